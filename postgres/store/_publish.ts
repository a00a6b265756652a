/**
 * Publishing in PostgreSQL, in ONE transaction: each record is locked (in a
 * fixed order, so publishes never deadlock), its drafts are checked against
 * the versions given, written over the published values, and each field
 * gets a published revision. Any conflict: nothing is written.
 *
 * @module
 */
import type postgres from "postgres";
import {
  byRecord,
  type DraftRef,
  planPublish,
  type PublishResult,
  type RecordPublish,
  type Selection,
} from "../../server/store/mod.ts";
import { type PgAt, RETRY, type Tx } from "./_tables.ts";
import { insertRevision, prune } from "./_history.ts";
import { lockRecord } from "./_drafts.ts";

/** One record's publish as planned: where, whether its row exists, the plan, the revisions' numbers. */
type Planned = [string, string, boolean, RecordPublish, number[]];

/**
 * Publishes `fields` (`null`: all drafts) in `tx`. Throws
 * {@linkcode RETRY} when a direct save created a record meanwhile.
 */
export async function publishIn(
  at: PgAt,
  tx: Tx,
  fields: DraftRef[] | null,
  editor: string,
): Promise<PublishResult> {
  const plans: Planned[] = [];
  for (const [collection, key, selection] of await groupsOf(at, tx, fields)) {
    plans.push(await planRecord(at, tx, collection, key, selection, editor));
  }
  const conflicts = plans.flatMap(([, , , p]) => p.conflicts);
  if (conflicts.length) return { published: [], conflicts };
  for (const planned of plans) await writePlanned(at, tx, planned);
  return {
    published: plans.flatMap(([, , , p]) => p.published),
    conflicts: [],
  };
}

/** The records to publish, in lock order, each with what to publish. */
async function groupsOf(
  at: PgAt,
  tx: Tx,
  fields: DraftRef[] | null,
): Promise<[string, string, Selection][]> {
  if (fields) return byRecord(fields);
  const rows = await tx`SELECT DISTINCT collection, key
        FROM ${tx(at.drafts)}`;
  return byRecord(
    rows.map((r) => ({ collection: r.collection, key: r.key, field: "" })),
  ).map(([c, k]) => [c, k, "all"]);
}

/** Locks and reads one record, and plans its part of the publish. */
async function planRecord(
  at: PgAt,
  tx: Tx,
  collection: string,
  key: string,
  selection: Selection,
  editor: string,
): Promise<Planned> {
  const [record, drafts, exists] = await lockRecord(at, tx, collection, key);
  const touched = selection === "all"
    ? Object.keys(drafts ?? {})
    : selection.map((r) => r.field);
  const heads = new Map<string, number>();
  if (touched.length) {
    const rows = await tx`SELECT field, max(seq)::float8 AS seq
          FROM ${tx(at.revisions)}
          WHERE collection = ${collection} AND key = ${key}
            AND field IN ${tx(touched)}
          GROUP BY field`;
    for (const r of rows) heads.set(r.field, r.seq);
  }
  const plan = planPublish(
    collection,
    key,
    record,
    drafts,
    selection,
    editor,
    (f) => heads.has(f),
  );
  const seqs = plan.revisions.map((rev) => {
    const seq = (heads.get(rev.field) ?? 0) + 1;
    heads.set(rev.field, seq);
    return seq;
  });
  return [collection, key, exists, plan, seqs];
}

/** Writes one record's planned publish: record, drafts, revisions, pruning. */
async function writePlanned(
  at: PgAt,
  tx: Tx,
  [collection, key, exists, plan, seqs]: Planned,
): Promise<void> {
  if (!plan.published.length) return;
  const record = tx.json(plan.record as postgres.JSONValue);
  const written = exists
    ? await tx`UPDATE ${tx(at.records)}
            SET record = ${record}, version = version + 1
            WHERE collection = ${collection} AND key = ${key}`
    : await tx`INSERT INTO ${tx(at.records)}
            (collection, key, record, version)
            VALUES (${collection}, ${key}, ${record}, 1)
            ON CONFLICT DO NOTHING`;
  // A direct save created the record meanwhile: start over.
  if (written.count !== 1) throw RETRY;
  await tx`DELETE FROM ${tx(at.drafts)}
        WHERE collection = ${collection} AND key = ${key}
          AND field IN ${tx(plan.published.map((p) => p.field))}`;
  const last = new Map<string, number>();
  for (const [i, rev] of plan.revisions.entries()) {
    await insertRevision(at, tx, rev, seqs[i]);
    last.set(rev.field, seqs[i]);
  }
  if (at.retention) {
    for (const [field, seq] of last) {
      await prune(at, tx, collection, key, field, seq);
    }
  }
}
