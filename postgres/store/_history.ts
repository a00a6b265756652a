/**
 * History in PostgreSQL: one row per revision, numbered per field
 * (`seq`), inserted in the transaction of what it records. Retention
 * deletes in the same transaction.
 *
 * @module
 */
import type postgres from "postgres";
import { expired, type Revision } from "../../server/store/mod.ts";
import { type PgAt, run, type Tx } from "./_tables.ts";

/** The newest revision number of a field (0: no history). */
export async function lastSeq(
  at: PgAt,
  tx: Tx,
  collection: string,
  key: string,
  field: string,
): Promise<number> {
  const [{ seq }] = await tx`SELECT coalesce(max(seq), 0)::float8 AS seq
      FROM ${tx(at.revisions)}
      WHERE collection = ${collection} AND key = ${key} AND field = ${field}`;
  return seq as number;
}

/** The query that inserts a revision; sent when first awaited. */
export function insertRevision(
  at: PgAt,
  tx: Tx,
  rev: Revision,
  seq: number,
): postgres.PendingQuery<postgres.Row[]> {
  return tx`INSERT INTO ${tx(at.revisions)}
      (id, collection, key, field, seq, at, editor, value, bytes, published)
      VALUES (${rev.id}, ${rev.collection}, ${rev.key}, ${rev.field}, ${seq},
        ${rev.at}, ${rev.editor}, ${tx.json(rev.value)}, ${rev.bytes},
        ${rev.published ?? null})`;
}

/** Deletes what retention lets go (the newest revision always stays). */
export async function prune(
  at: PgAt,
  tx: Tx,
  collection: string,
  key: string,
  field: string,
  seq: number,
): Promise<void> {
  const old = await tx`SELECT id, seq::float8 AS seq, at
      FROM ${tx(at.revisions)}
      WHERE collection = ${collection} AND key = ${key} AND field = ${field}
        AND seq < ${seq}
      ORDER BY seq LIMIT 100`;
  const now = Date.now();
  const gone: string[] = [];
  for (const row of old) {
    if (!expired(seq - row.seq, row.at, at.retention, now)) break;
    gone.push(row.id);
  }
  if (gone.length) {
    await tx`DELETE FROM ${tx(at.revisions)} WHERE id IN ${tx(gone)}`;
  }
}

/** A field's revisions, newest first, at most `limit`. */
export async function revisions(
  at: PgAt,
  collection: string,
  key: string,
  field: string,
  limit?: number,
): Promise<Revision[]> {
  if (limit !== undefined && limit <= 0) return [];
  const rows = await run(at, (sql) =>
    sql`SELECT * FROM ${sql(at.revisions)}
        WHERE collection = ${collection} AND key = ${key} AND field = ${field}
        ORDER BY seq DESC
        ${limit === undefined ? sql`` : sql`LIMIT ${limit}`}`);
  return rows.map(toRevision);
}

/** One revision by id, or `null`. */
export async function revision(
  at: PgAt,
  id: string,
): Promise<Revision | null> {
  const rows = await run(
    at,
    (sql) => sql`SELECT * FROM ${sql(at.revisions)} WHERE id = ${id}`,
  );
  return rows.length ? toRevision(rows[0]) : null;
}

/** A revision row as a {@linkcode Revision}. */
export function toRevision(row: postgres.Row): Revision {
  const rev: Revision = {
    id: row.id,
    collection: row.collection,
    key: row.key,
    field: row.field,
    at: row.at,
    editor: row.editor,
    value: row.value,
    bytes: row.bytes,
  };
  if (row.published !== null) rev.published = row.published;
  return rev;
}
