/**
 * Published records in Deno KV: one entry per record under
 * `[collection, key]` holding each field inline when small, else a
 * reference to its blob (`_blobs.ts`); reading one, and the check-and-set
 * that replaces it (with the field's revisions in the same commit),
 * retried when another writer got there first. A record written before
 * blobs existed is that same entry with every value inline: it reads as is
 * and is repacked on its next write.
 *
 * @module
 */
import type { ContentRecord, RevisionInput } from "../types.ts";
import { newRevisions } from "../_revision.ts";
import {
  AGAIN,
  type Head,
  headKey,
  type KvAt,
  reading,
  recordKey,
  retry,
} from "./_layout.ts";
import { prune, setRevision } from "./_history.ts";
import {
  commitWith,
  type NewBlob,
  pack,
  readStable,
  type StoredRecord,
  unpack,
} from "./_blobs.ts";

/** A record's entry and its values (`null`: no record). */
export interface ReadRecord {
  /** The entry, to check in a commit. */
  entry: Deno.KvEntryMaybe<StoredRecord>;
  /** The values, blobs read. */
  record: ContentRecord | null;
}

/** Unpacks a record entry; `null` when a blob was retired meanwhile. */
export async function unpackEntry(
  at: KvAt,
  entry: Deno.KvEntryMaybe<StoredRecord>,
): Promise<ReadRecord | null> {
  if (entry.value === null) return { entry, record: null };
  const record = await unpack(at, entry.value);
  return record ? { entry, record } : null;
}

/** Reads one record, or `null` when it does not exist. */
export async function getRecord(
  at: KvAt,
  collection: string,
  key: string,
): Promise<ContentRecord | null> {
  const recordAt = recordKey(at, collection, key);
  const got = await readStable(async () =>
    unpackEntry(at, await reading(() => at.kv.get<StoredRecord>(recordAt)))
  );
  return got.record;
}

/**
 * Replaces one record with what `mutate` returns (`null`: write nothing) in
 * one atomic check-and-set, with `revision`'s revisions and the field's
 * head; `mutate` runs again on a fresh read when the commit lost a race.
 * Only the fields that changed are written (see `pack`).
 */
export async function updateRecord(
  at: KvAt,
  collection: string,
  key: string,
  mutate: (current: ContentRecord | null) => ContentRecord | null,
  revision: RevisionInput | undefined,
): Promise<ContentRecord | null> {
  const recordAt = recordKey(at, collection, key);
  const headAt = revision ? headKey(at, collection, key, revision.field) : null;
  let seq = 0;
  const next = await retry(at, `update of ${collection}:${key}`, async () => {
    const [{ entry, record }, head] = await readStable(async () => {
      const [entry, head] = await readMany(at, recordAt, headAt);
      const got = await unpackEntry(at, entry);
      return got && [got, head] as const;
    });
    const next = mutate(record);
    if (next === null) return null;
    const packed = pack(entry.value, record, next);
    const blobs: NewBlob[] = [...packed.blobs];
    const op = at.kv.atomic().check(entry).set(recordAt, packed.stored);
    seq = 0;
    if (revision && head) {
      seq = head.value?.seq ?? 0;
      const revs = newRevisions(
        collection,
        key,
        revision,
        record,
        next,
        head.value !== null,
      );
      for (const rev of revs) {
        const blob = setRevision(at, op, rev, ++seq);
        if (blob) blobs.push(blob);
      }
      op.check(head).set(head.key, { seq } satisfies Head);
    }
    return await commitWith(at, op, blobs, packed.retired) ? next : AGAIN;
  });
  if (next !== null && revision && at.retention) {
    await prune(at, collection, key, revision.field, seq);
  }
  return next;
}

/** Reads a record, and the field's head when there is one to read. */
function readMany(
  at: KvAt,
  recordAt: Deno.KvKey,
  headAt: Deno.KvKey | null,
): Promise<
  [Deno.KvEntryMaybe<StoredRecord>, Deno.KvEntryMaybe<Head> | null]
> {
  return reading(async () => {
    if (!headAt) return [await at.kv.get<StoredRecord>(recordAt), null];
    return await at.kv.getMany<[StoredRecord, Head]>([recordAt, headAt]);
  });
}
