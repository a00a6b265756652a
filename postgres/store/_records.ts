/**
 * Published records in PostgreSQL: one `jsonb` row per record with a
 * `version` counter. A write reads the row `FOR UPDATE` (other instances
 * wait instead of racing) and writes only if the version is still the one
 * it read, with the field's revisions in the same transaction.
 *
 * @module
 */
import type postgres from "postgres";
import {
  type ContentRecord,
  newRevisions,
  type RevisionInput,
} from "../../server/store/mod.ts";
import { type PgAt, RETRY, run, type Tx } from "./_tables.ts";
import { insertRevision, lastSeq, prune } from "./_history.ts";

/** Reads one record, or `null` when it does not exist. */
export async function getRecord(
  at: PgAt,
  collection: string,
  key: string,
): Promise<ContentRecord | null> {
  const rows = await run(at, (sql) =>
    sql`SELECT record FROM ${sql(at.records)}
          WHERE collection = ${collection} AND key = ${key}`);
  return rows.length ? rows[0].record as ContentRecord : null;
}

/**
 * One attempt to replace a record with what `mutate` returns, in `tx`;
 * {@linkcode RETRY} when another writer won a race (nothing written then).
 */
export async function writeRecord(
  at: PgAt,
  tx: Tx,
  collection: string,
  key: string,
  mutate: (current: ContentRecord | null) => ContentRecord | null,
  revision: RevisionInput | undefined,
): Promise<ContentRecord | null | typeof RETRY> {
  const rows = await tx`SELECT record, version::text AS version
      FROM ${tx(at.records)}
      WHERE collection = ${collection} AND key = ${key}
      FOR UPDATE`;
  const current = rows.length ? rows[0].record as ContentRecord : null;
  const next = mutate(current === null ? null : structuredClone(current));
  if (next === null) return null;
  const json = tx.json(next as postgres.JSONValue);
  if (!rows.length) {
    // First write of the record: two first inserts can race, so the
    // revision waits for the insert to win.
    const written = await tx`INSERT INTO ${tx(at.records)}
        (collection, key, record, version)
        VALUES (${collection}, ${key}, ${json}, 1)
        ON CONFLICT DO NOTHING`;
    if (written.count !== 1) return RETRY;
    if (revision) {
      await addRevisions(at, tx, collection, key, revision, current, next);
    }
    return next;
  }
  const update = tx`UPDATE ${tx(at.records)}
      SET record = ${json}, version = version + 1
      WHERE collection = ${collection} AND key = ${key}
        AND version = ${rows[0].version}`;
  if (!revision) {
    return (await update).count === 1 ? next : RETRY;
  }
  const seq = await updateWithRevisions(
    at,
    tx,
    update,
    collection,
    key,
    revision,
    current,
    next,
  );
  // Unreachable while the row lock holds; nothing was written then.
  if (seq === RETRY) return RETRY;
  if (at.retention) await prune(at, tx, collection, key, revision.field, seq);
  return next;
}

/**
 * Sends `update` and the revisions in ONE statement, so a save with history
 * takes the round trips of one without. The row is locked, so this
 * statement's snapshot (taken after the lock) sees every revision of the
 * field: it numbers the new ones after the newest, and keeps the value the
 * field held before only when the field has no history yet. The revisions
 * are made first, so a bad field throws before anything is sent. Answers
 * the newest revision's number, or {@linkcode RETRY} when the update
 * matched no row.
 */
async function updateWithRevisions(
  at: PgAt,
  tx: Tx,
  update: postgres.PendingQuery<postgres.Row[]>,
  collection: string,
  key: string,
  revision: RevisionInput,
  current: ContentRecord | null,
  next: ContentRecord,
): Promise<number | typeof RETRY> {
  const revs = newRevisions(collection, key, revision, current, next, false)
    .map((rev, i, all) => ({
      ...rev,
      published: rev.published ?? null,
      ord: i,
      prior: all.length > 1 && i === 0,
    }));
  const [written] = await tx`WITH u AS (${update} RETURNING 1),
      h AS (SELECT coalesce(max(seq), 0) AS last
        FROM ${tx(at.revisions)}
        WHERE collection = ${collection} AND key = ${key}
          AND field = ${revision.field}),
      i AS (INSERT INTO ${tx(at.revisions)}
        (id, collection, key, field, seq, at, editor, value, bytes, published)
        SELECT r.id, r.collection, r.key, r.field,
          h.last + row_number() OVER (ORDER BY r.ord),
          r.at, r.editor, r.value, r.bytes, r.published
        FROM jsonb_to_recordset(${
    tx.json(revs as unknown as postgres.JSONValue)
  }) AS r(id text, collection text, key text, field text, at text,
          editor text, value jsonb, bytes integer, published text, ord integer,
          prior boolean), h
        WHERE EXISTS (SELECT 1 FROM u) AND NOT (r.prior AND h.last > 0)
        RETURNING seq)
      SELECT (SELECT count(*) FROM u)::int AS count,
        (SELECT max(seq) FROM i)::float8 AS seq`;
  return written.count === 1 ? written.seq : RETRY;
}

/**
 * Inserts one save's revisions after the field's newest, then prunes what
 * retention lets go.
 */
async function addRevisions(
  at: PgAt,
  tx: Tx,
  collection: string,
  key: string,
  revision: RevisionInput,
  current: ContentRecord | null,
  next: ContentRecord,
): Promise<void> {
  let seq = await lastSeq(at, tx, collection, key, revision.field);
  const revs = newRevisions(collection, key, revision, current, next, seq > 0);
  for (const rev of revs) await insertRevision(at, tx, rev, ++seq);
  if (at.retention) await prune(at, tx, collection, key, revision.field, seq);
}
