/**
 * Drafts in PostgreSQL: one row per drafted field. A draft save runs in one
 * transaction that holds the record's advisory lock (drafts and publishes
 * of one record are serialized by it) and the record's row lock.
 *
 * @module
 */
import type postgres from "postgres";
import {
  type ContentRecord,
  type Draft,
  listDrafts,
  overlay,
  planDraft,
  type RecordDrafts,
  type RevisionInput,
} from "../../server/store/mod.ts";
import { type PgAt, run, type Tx } from "./_tables.ts";
import { insertRevision, lastSeq, prune } from "./_history.ts";

/** One record with its drafts written over it (one snapshot), or `null`. */
export async function getDrafted(
  at: PgAt,
  collection: string,
  key: string,
): Promise<ContentRecord | null> {
  const [row] = await run(at, (sql) =>
    sql`SELECT
        (SELECT record FROM ${sql(at.records)}
          WHERE collection = ${collection} AND key = ${key}) AS record,
        (SELECT jsonb_object_agg(field, jsonb_build_object(
            'value', value, 'at', at, 'editor', editor))
          FROM ${sql(at.drafts)}
          WHERE collection = ${collection} AND key = ${key}) AS drafts`);
  return overlay(row.record ?? null, row.drafts ?? null);
}

/**
 * Saves the draft of `revision.field` from what `mutate` returns, as
 * {@linkcode planDraft} plans it, in one transaction.
 */
export function saveDraft(
  at: PgAt,
  collection: string,
  key: string,
  mutate: (current: ContentRecord | null) => ContentRecord | null,
  revision: RevisionInput,
): Promise<ContentRecord | null> {
  return run(at, (sql) =>
    sql.begin(async (tx) => {
      const [record, drafts] = await lockRecord(at, tx, collection, key);
      let seq = await lastSeq(at, tx, collection, key, revision.field);
      const plan = planDraft(
        collection,
        key,
        record,
        drafts,
        mutate,
        revision,
        seq > 0,
      );
      if (plan === null) return null;
      if (plan.drop.length) {
        await tx`DELETE FROM ${tx(at.drafts)}
              WHERE collection = ${collection} AND key = ${key}
                AND field IN ${tx(plan.drop)}`;
      }
      const { draft } = plan;
      await tx`INSERT INTO ${tx(at.drafts)}
            (collection, key, field, value, at, editor)
            VALUES (${collection}, ${key}, ${plan.field},
              ${tx.json(draft.value)}, ${draft.at}, ${draft.editor})
            ON CONFLICT (collection, key, field) DO UPDATE
            SET value = EXCLUDED.value, at = EXCLUDED.at,
              editor = EXCLUDED.editor`;
      for (const rev of plan.revisions) {
        await insertRevision(at, tx, rev, ++seq);
      }
      if (at.retention) {
        await prune(at, tx, collection, key, revision.field, seq);
      }
      return plan.record;
    })) as Promise<ContentRecord | null>;
}

/** Every draft, oldest first. */
export async function allDrafts(at: PgAt): Promise<Draft[]> {
  const rows = await run(
    at,
    (sql) =>
      sql`SELECT collection, key, field, value, at, editor
        FROM ${sql(at.drafts)}`,
  );
  return listDrafts(draftsByRecord(rows));
}

/** Draft rows grouped by record, in the order each record first appears. */
export function draftsByRecord(
  rows: Iterable<postgres.Row>,
): Iterable<[string, string, RecordDrafts]> {
  const byId = new Map<string, [string, string, RecordDrafts]>();
  for (const r of rows) {
    const id = JSON.stringify([r.collection, r.key]);
    const entry: [string, string, RecordDrafts] = byId.get(id) ??
      [r.collection, r.key, {}];
    entry[2][r.field] = { value: r.value, at: r.at, editor: r.editor };
    byId.set(id, entry);
  }
  return byId.values();
}

/** Drops one field's draft; `false` when it had none. */
export function discard(
  at: PgAt,
  collection: string,
  key: string,
  field: string,
): Promise<boolean> {
  return run(at, (sql) =>
    sql.begin(async (tx) => {
      await lock(at, tx, collection, key);
      const gone = await tx`DELETE FROM ${tx(at.drafts)}
          WHERE collection = ${collection} AND key = ${key}
            AND field = ${field}`;
      return gone.count > 0;
    }));
}

/** Serializes drafts and publishes of one record across instances. */
async function lock(at: PgAt, tx: Tx, collection: string, key: string) {
  const name = JSON.stringify([at.records, collection, key]);
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
}

/**
 * Locks a record (advisory lock and row) and reads it with its drafts, and
 * whether its row exists.
 */
export async function lockRecord(
  at: PgAt,
  tx: Tx,
  collection: string,
  key: string,
): Promise<[ContentRecord | null, RecordDrafts | null, boolean]> {
  await lock(at, tx, collection, key);
  const rows = await tx`SELECT record FROM ${tx(at.records)}
      WHERE collection = ${collection} AND key = ${key} FOR UPDATE`;
  const draftRows = await tx`SELECT field, value, at, editor
      FROM ${tx(at.drafts)}
      WHERE collection = ${collection} AND key = ${key}`;
  const drafts: RecordDrafts = {};
  for (const r of draftRows) {
    drafts[r.field] = { value: r.value, at: r.at, editor: r.editor };
  }
  return [
    rows.length ? rows[0].record as ContentRecord : null,
    draftRows.length ? drafts : null,
    rows.length > 0,
  ];
}
