/**
 * Published records in Deno KV, one entry per record: reading one, and the
 * check-and-set that replaces it (with the field's revisions in the same
 * commit), retried when another writer got there first.
 *
 * @module
 */
import type { ContentRecord, RevisionInput } from "../types.ts";
import { newRevisions } from "../_revision.ts";
import {
  AGAIN,
  commit,
  type Head,
  headKey,
  type KvAt,
  reading,
  recordKey,
  retry,
} from "./_layout.ts";
import { prune, setRevision } from "./_history.ts";

/** Reads one record, or `null` when it does not exist. */
export async function getRecord(
  at: KvAt,
  collection: string,
  key: string,
): Promise<ContentRecord | null> {
  const entry = await reading(() =>
    at.kv.get<ContentRecord>(recordKey(at, collection, key))
  );
  return entry.value;
}

/**
 * Replaces one record with what `mutate` returns (`null`: write nothing) in
 * one atomic check-and-set, with `revision`'s revisions and the field's
 * head; `mutate` runs again on a fresh read when the commit lost a race.
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
    const [entry, head] = await readMany(at, recordAt, headAt);
    const next = mutate(entry.value);
    if (next === null) return null;
    const op = at.kv.atomic().check(entry).set(recordAt, next);
    seq = 0;
    if (revision && head) {
      seq = head.value?.seq ?? 0;
      const revs = newRevisions(
        collection,
        key,
        revision,
        entry.value,
        next,
        head.value !== null,
      );
      for (const rev of revs) setRevision(at, op, rev, ++seq);
      op.check(head).set(head.key, { seq } satisfies Head);
    }
    return await commit(op) ? next : AGAIN;
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
  [Deno.KvEntryMaybe<ContentRecord>, Deno.KvEntryMaybe<Head> | null]
> {
  return reading(async () => {
    if (!headAt) return [await at.kv.get<ContentRecord>(recordAt), null];
    return await at.kv.getMany<[ContentRecord, Head]>([recordAt, headAt]);
  });
}
