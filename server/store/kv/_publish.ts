/**
 * Publishing in Deno KV: every record a publish touches goes in ONE atomic
 * commit that checks each record and drafts entry it read, so all fields
 * go public or (a concurrent write got in between) the whole publish is
 * read and planned again. Large values are written as blobs before that
 * commit, which switches to them (`_blobs.ts`).
 *
 * @module
 */
import type { DraftRef, PublishResult } from "../types.ts";
import { byRecord, planPublish, type Selection } from "../draft.ts";
import { PublishTooLargeError } from "./_errors.ts";
import {
  AGAIN,
  draftKey,
  type KvAt,
  reading,
  recordKey,
  retry,
} from "./_layout.ts";
import { heads, pruneAll, setHead, setRevision } from "./_history.ts";
import { draftRecords, readBoth } from "./_drafts.ts";
import {
  type BlobRef,
  commitWith,
  type NewBlob,
  pack,
  packDrafts,
  readStable,
  retiredDrafts,
  type StoredDrafts,
  type StoredRecord,
} from "./_blobs.ts";

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
  /** Blobs to write before the commit (see `commitPublish`). */
  blobs: NewBlob[];
  /** Blobs the commit stops referring to. */
  retired: BlobRef[];
}

/**
 * Commits a planned publish's `op`: its blobs first, then the one commit
 * that switches to them; `false` when it lost a race.
 */
export function commitPublish(
  at: KvAt,
  planned: KvPublish,
  op: Deno.AtomicOperation,
): Promise<boolean> {
  return commitWith(at, op, planned.blobs, planned.retired);
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
    const planned = await planKvPublish(at, fields, editor);
    const { op, result, pruned } = planned;
    if (result.conflicts.length) {
      return { published: [], conflicts: result.conflicts };
    }
    if (!result.published.length) return result;
    if (!await commitPublish(at, planned, op)) return AGAIN;
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
    blobs: [],
    retired: [],
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
  mutations += 2; // the blob markers (`_blobs.ts`)
  const checks = groups.length * 2 + 1;
  if (
    !result.conflicts.length && (
      mutations > 1000 || checks > 100 ||
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
  const [entry, drafts, record, current] = await readStable(async () => {
    const [entry, drafts] = await reading(() =>
      at.kv.getMany<[StoredRecord, StoredDrafts]>([recordAt, draftAt])
    );
    const both = await readBoth(at, entry, drafts);
    return both && [entry, drafts, both[0].record, both[1]] as const;
  });
  op.check(entry, drafts);
  const touched = selection === "all"
    ? Object.keys(current ?? {})
    : selection.map((r) => r.field);
  const seqs = await heads(at, collection, key, touched);
  const plan = planPublish(
    collection,
    key,
    record,
    current,
    selection,
    editor,
    (f) => seqs.get(f) !== undefined,
  );
  result.conflicts.push(...plan.conflicts);
  if (!plan.published.length) return 0;
  result.published.push(...plan.published);
  const packed = pack(entry.value, record, plan.record);
  op.set(recordAt, packed.stored);
  const rest = Object.keys(plan.drafts).length
    ? packDrafts(drafts.value, current, plan.drafts)
    : null;
  if (rest) op.set(draftAt, rest.stored);
  else op.delete(draftAt);
  planned.blobs.push(...packed.blobs, ...rest?.blobs ?? []);
  planned.retired.push(
    ...packed.retired,
    ...rest?.retired ?? retiredDrafts(drafts.value, null),
  );
  for (const rev of plan.revisions) {
    const seq = (seqs.get(rev.field) ?? 0) + 1;
    seqs.set(rev.field, seq);
    const blob = setRevision(at, op, rev, seq);
    if (blob) planned.blobs.push(blob);
    planned.pruned.push([collection, key, rev.field, seq]);
  }
  for (const p of plan.published) {
    setHead(at, op, collection, key, p.field, seqs.get(p.field)!);
  }
  return 2 + plan.revisions.length * 2 + plan.published.length;
}
