/**
 * Drafts in Deno KV: one entry per record holding all its drafts (a large
 * value as a blob, `_blobs.ts`). A draft
 * save commits the drafts entry with the field's unpublished revisions and
 * history head, checking all three and the record it read.
 *
 * @module
 */
import type { ContentRecord, Draft, RevisionInput } from "../types.ts";
import {
  listDrafts,
  overlay,
  planDraft,
  type RecordDrafts,
  withoutDraft,
} from "../draft.ts";
import {
  AGAIN,
  draftKey,
  DRAFTS,
  type Head,
  headKey,
  type KvAt,
  listAll,
  reading,
  recordKey,
  retry,
} from "./_layout.ts";
import { prune, setHead, setRevision } from "./_history.ts";
import { type ReadRecord, unpackEntry } from "./_records.ts";
import {
  commitWith,
  packDrafts,
  readStable,
  retiredDrafts,
  type StoredDrafts,
  type StoredRecord,
  unpackDrafts,
} from "./_blobs.ts";

/** One record with its drafts written over it, or `null`. */
export async function getDrafted(
  at: KvAt,
  collection: string,
  key: string,
): Promise<ContentRecord | null> {
  const [record, drafts] = await readStable(async () => {
    const [entry, drafts] = await reading(() =>
      at.kv.getMany<[StoredRecord, StoredDrafts]>([
        recordKey(at, collection, key),
        draftKey(at, collection, key),
      ])
    );
    return readBoth(at, entry, drafts);
  });
  return overlay(record.record, drafts);
}

/** A record and its drafts with their blobs read; `null`: read again. */
export async function readBoth(
  at: KvAt,
  entry: Deno.KvEntryMaybe<StoredRecord>,
  drafts: Deno.KvEntryMaybe<StoredDrafts>,
): Promise<[ReadRecord, RecordDrafts | null] | null> {
  const record = await unpackEntry(at, entry);
  const values = record && await unpackDrafts(at, drafts.value);
  return record && values && [record, values[0]];
}

/**
 * Saves the draft of `revision.field` from what `mutate` returns, as
 * {@linkcode planDraft} plans it, in one atomic commit that checks the
 * record, its drafts and the field's history head.
 */
export async function saveDraft(
  at: KvAt,
  collection: string,
  key: string,
  mutate: (current: ContentRecord | null) => ContentRecord | null,
  revision: RevisionInput,
): Promise<ContentRecord | null> {
  const draftAt = draftKey(at, collection, key);
  let seq = 0;
  const next = await retry(at, `draft of ${collection}:${key}`, async () => {
    const [entry, drafts, head, record, current] = await readStable(
      async () => {
        const [entry, drafts, head] = await reading(() =>
          at.kv.getMany<[StoredRecord, StoredDrafts, Head]>([
            recordKey(at, collection, key),
            draftAt,
            headKey(at, collection, key, revision.field),
          ])
        );
        const both = await readBoth(at, entry, drafts);
        return both && [entry, drafts, head, both[0].record, both[1]] as const;
      },
    );
    const plan = planDraft(
      collection,
      key,
      record,
      current,
      mutate,
      revision,
      head.value !== null,
    );
    if (plan === null) return null;
    const packed = packDrafts(drafts.value, current, plan.drafts);
    const op = at.kv.atomic().check(entry, drafts, head)
      .set(draftAt, packed.stored);
    seq = head.value?.seq ?? 0;
    const blobs = [...packed.blobs];
    for (const rev of plan.revisions) {
      const blob = setRevision(at, op, rev, ++seq);
      if (blob) blobs.push(blob);
    }
    setHead(at, op, collection, key, revision.field, seq);
    return await commitWith(at, op, blobs, packed.retired)
      ? plan.record
      : AGAIN;
  });
  if (next !== null && at.retention) {
    await prune(at, collection, key, revision.field, seq);
  }
  return next;
}

/** Every draft, oldest first. */
export async function allDrafts(at: KvAt): Promise<Draft[]> {
  const prefix = [...at.prefix, DRAFTS];
  const found = await listAll<StoredDrafts>(at, prefix);
  const out: [string, string, RecordDrafts][] = [];
  for (const e of found) {
    const [collection, key] = e.key.slice(prefix.length) as string[];
    let stored: StoredDrafts | null = e.value;
    const drafts = await readStable(async () => {
      const got = await unpackDrafts(at, stored);
      if (got) return got[0];
      stored = (await at.kv.get<StoredDrafts>(e.key)).value;
      return null;
    });
    if (drafts) out.push([collection, key, drafts]);
  }
  return listDrafts(out);
}

/** Records that have drafts, in key order. */
export async function draftRecords(at: KvAt): Promise<[string, string][]> {
  const prefix = [...at.prefix, DRAFTS];
  const found = await listAll(at, prefix);
  return found.map((e) => e.key.slice(prefix.length) as [string, string]);
}

/** Drops one field's draft; `false` when it had none. */
export function discard(
  at: KvAt,
  collection: string,
  key: string,
  field: string,
): Promise<boolean> {
  const draftAt = draftKey(at, collection, key);
  return retry(at, "discard", async () => {
    const drafts = await reading(() => at.kv.get<StoredDrafts>(draftAt));
    const rest = withoutDraft(drafts.value as RecordDrafts | null, field);
    if (rest === undefined) return false;
    const op = at.kv.atomic().check(drafts);
    if (rest) op.set(draftAt, rest);
    else op.delete(draftAt);
    const retired = retiredDrafts(drafts.value, rest);
    return await commitWith(at, op, [], retired) ? true : AGAIN;
  });
}
