/**
 * Publishing in Deno KV: every record a publish touches goes in ONE atomic
 * commit that checks each record and drafts entry it read, so all fields
 * go public or (a concurrent write got in between) the whole publish is
 * read and planned again.
 *
 * @module
 */
import type { ContentRecord, DraftRef, PublishResult } from "../types.ts";
import {
  byRecord,
  planPublish,
  type RecordDrafts,
  type Selection,
} from "../draft.ts";
import { PublishTooLargeError } from "./_errors.ts";
import {
  AGAIN,
  commit,
  draftKey,
  type KvAt,
  reading,
  recordKey,
  retry,
} from "./_layout.ts";
import { heads, pruneAll, setHead, setRevision } from "./_history.ts";
import { draftRecords } from "./_drafts.ts";

/**
 * Most fields one publish takes on Deno KV: one atomic commit holds at most
 * 1000 mutations, and a field needs up to five.
 */
export const KV_MAX_PUBLISH = 180;

/** A field whose history to prune after a commit: collection, key, field, seq. */
export type Pruned = [string, string, string, number];

/** A planned publish: the commit to make, what it publishes, what to prune. */
export interface KvPublish {
  /** Checks every entry read and writes the publish. */
  op: Deno.AtomicOperation;
  /** What the publish does (commit only without conflicts). */
  result: PublishResult;
  /** The fields to prune once committed. */
  pruned: Pruned[];
}

/**
 * Publishes `fields` (`null`: all drafts) in one commit, retried while it
 * loses races. At most {@linkcode KV_MAX_PUBLISH} fields.
 */
export function publish(
  at: KvAt,
  fields: DraftRef[] | null,
  editor: string,
): Promise<PublishResult> {
  return retry(at, "publish", async () => {
    const { op, result, pruned } = await planKvPublish(at, fields, editor);
    if (result.conflicts.length) {
      return { published: [], conflicts: result.conflicts };
    }
    if (!result.published.length) return result;
    if (!await commit(op)) return AGAIN;
    await pruneAll(at, pruned);
    return result;
  });
}

/**
 * Reads and plans a publish: the atomic operation that checks every entry
 * read and writes the publish (to commit only without conflicts).
 * Throws {@linkcode PublishTooLargeError} past one commit's limits.
 */
export async function planKvPublish(
  at: KvAt,
  fields: DraftRef[] | null,
  editor: string,
): Promise<KvPublish> {
  const groups: [string, string, Selection][] = fields
    ? byRecord(fields)
    : (await draftRecords(at)).map(([c, k]) => [c, k, "all"]);
  const planned: KvPublish = {
    op: at.kv.atomic(),
    result: { published: [], conflicts: [] },
    pruned: [],
  };
  let mutations = 0;
  for (const [collection, key, selection] of groups) {
    mutations += await addRecord(
      at,
      planned,
      collection,
      key,
      selection,
      editor,
    );
  }
  const { result } = planned;
  if (
    !result.conflicts.length && (
      mutations > 1000 || groups.length > 50 ||
      result.published.length > KV_MAX_PUBLISH
    )
  ) {
    throw new PublishTooLargeError(
      `Too many fields to publish at once (limit ${KV_MAX_PUBLISH})`,
    );
  }
  return planned;
}

/**
 * Reads one record and its drafts into `planned`: checks both, and writes
 * the record, its drafts, revisions and heads. Returns how many mutations
 * that adds.
 */
async function addRecord(
  at: KvAt,
  planned: KvPublish,
  collection: string,
  key: string,
  selection: Selection,
  editor: string,
): Promise<number> {
  const { op, result } = planned;
  const recordAt = recordKey(at, collection, key);
  const draftAt = draftKey(at, collection, key);
  const [entry, drafts] = await reading(() =>
    at.kv.getMany<[ContentRecord, RecordDrafts]>([recordAt, draftAt])
  );
  op.check(entry, drafts);
  const touched = selection === "all"
    ? Object.keys(drafts.value ?? {})
    : selection.map((r) => r.field);
  const seqs = await heads(at, collection, key, touched);
  const plan = planPublish(
    collection,
    key,
    entry.value,
    drafts.value,
    selection,
    editor,
    (f) => seqs.get(f) !== undefined,
  );
  result.conflicts.push(...plan.conflicts);
  if (!plan.published.length) return 0;
  result.published.push(...plan.published);
  op.set(recordAt, plan.record);
  if (Object.keys(plan.drafts).length) op.set(draftAt, plan.drafts);
  else op.delete(draftAt);
  for (const rev of plan.revisions) {
    const seq = (seqs.get(rev.field) ?? 0) + 1;
    seqs.set(rev.field, seq);
    setRevision(at, op, rev, seq);
    planned.pruned.push([collection, key, rev.field, seq]);
  }
  for (const p of plan.published) {
    setHead(at, op, collection, key, p.field, seqs.get(p.field)!);
  }
  return 2 + plan.revisions.length * 2 + plan.published.length;
}
