/**
 * Drafts in Deno KV: one entry per record holding all its drafts. A draft
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
  commit,
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

/** One record with its drafts written over it, or `null`. */
export async function getDrafted(
  at: KvAt,
  collection: string,
  key: string,
): Promise<ContentRecord | null> {
  const [entry, drafts] = await reading(() =>
    at.kv.getMany<[ContentRecord, RecordDrafts]>([
      recordKey(at, collection, key),
      draftKey(at, collection, key),
    ])
  );
  return overlay(entry.value, drafts.value);
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
    const [entry, drafts, head] = await reading(() =>
      at.kv.getMany<[ContentRecord, RecordDrafts, Head]>([
        recordKey(at, collection, key),
        draftAt,
        headKey(at, collection, key, revision.field),
      ])
    );
    const plan = planDraft(
      collection,
      key,
      entry.value,
      drafts.value,
      mutate,
      revision,
      head.value !== null,
    );
    if (plan === null) return null;
    const op = at.kv.atomic().check(entry, drafts, head)
      .set(draftAt, plan.drafts);
    seq = head.value?.seq ?? 0;
    for (const rev of plan.revisions) setRevision(at, op, rev, ++seq);
    setHead(at, op, collection, key, revision.field, seq);
    return await commit(op) ? plan.record : AGAIN;
  });
  if (next !== null && at.retention) {
    await prune(at, collection, key, revision.field, seq);
  }
  return next;
}

/** Every draft, oldest first. */
export async function allDrafts(at: KvAt): Promise<Draft[]> {
  const prefix = [...at.prefix, DRAFTS];
  const found = await listAll<RecordDrafts>(at, prefix);
  return listDrafts(found.map((e) => {
    const [collection, key] = e.key.slice(prefix.length) as string[];
    return [collection, key, e.value];
  }));
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
    const drafts = await reading(() => at.kv.get<RecordDrafts>(draftAt));
    const rest = withoutDraft(drafts.value, field);
    if (rest === undefined) return false;
    const op = at.kv.atomic().check(drafts);
    if (rest) op.set(draftAt, rest);
    else op.delete(draftAt);
    return await commit(op) ? true : AGAIN;
  });
}
