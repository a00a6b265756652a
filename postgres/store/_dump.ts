/**
 * Export and import of the PostgreSQL store: every table as store lines in
 * the byte order of their keys (as Deno KV lists them), and those lines
 * written back into empty tables in one transaction.
 *
 * @module
 */
import type postgres from "postgres";
import {
  checkDraft,
  checkRevision,
  type ContentRecord,
  draftLines,
  type StoreLine,
} from "../../server/store/mod.ts";
import { type PgAt, run, type Tx } from "./_tables.ts";
import { insertRevision, toRevision } from "./_history.ts";
import { draftsByRecord } from "./_drafts.ts";
import { loadReview, reviewLines } from "./_reviews.ts";

/**
 * Every record, then every revision (oldest first per field), then every
 * draft, then every comment and review verdict; in byte order of their keys, as Deno KV lists them.
 */
export async function* dump(at: PgAt): AsyncIterable<StoreLine> {
  const sql = at.sql;
  const records = sql`SELECT collection, key, record
      FROM ${sql(at.records)}
      ORDER BY collection COLLATE "C", key COLLATE "C"`.cursor(200);
  for await (const rows of records) {
    for (const row of rows) {
      yield {
        type: "record",
        collection: row.collection,
        key: row.key,
        record: row.record as ContentRecord,
      };
    }
  }
  const revisions = sql`SELECT * FROM ${sql(at.revisions)}
      ORDER BY collection COLLATE "C", key COLLATE "C", field COLLATE "C", seq`
    .cursor(200);
  for await (const rows of revisions) {
    for (const row of rows) {
      yield { type: "revision", revision: toRevision(row) };
    }
  }
  const drafts = sql`SELECT collection, key, field, value, at, editor
      FROM ${sql(at.drafts)}
      ORDER BY collection COLLATE "C", key COLLATE "C", field COLLATE "C"`
    .cursor(200);
  for await (const rows of drafts) yield* draftLines(draftsByRecord(rows));
  yield* reviewLines(at);
}

/**
 * Loads a dump into this empty store, in one transaction: on any error
 * nothing is written. Throws on a non-empty store.
 */
export async function load(
  at: PgAt,
  lines: AsyncIterable<StoreLine> | Iterable<StoreLine>,
): Promise<void> {
  await run(at, (sql) =>
    sql.begin(async (tx) => {
      await tx`LOCK TABLE ${tx(at.records)}, ${tx(at.revisions)},
          ${tx(at.drafts)}, ${tx(at.comments)}, ${tx(at.approvals)}
          IN EXCLUSIVE MODE`;
      const [{ used }] = await tx`SELECT
          EXISTS (SELECT 1 FROM ${tx(at.records)}) OR
          EXISTS (SELECT 1 FROM ${tx(at.revisions)}) OR
          EXISTS (SELECT 1 FROM ${tx(at.drafts)}) OR
          EXISTS (SELECT 1 FROM ${tx(at.comments)}) OR
          EXISTS (SELECT 1 FROM ${tx(at.approvals)}) AS used`;
      if (used) throw new Error("store is not empty");
      const seqs = new Map<string, number>();
      for await (const line of lines) await loadLine(at, tx, line, seqs);
    }));
}

/** Inserts one line; `seqs` numbers each field's revisions in order. */
async function loadLine(
  at: PgAt,
  tx: Tx,
  line: StoreLine,
  seqs: Map<string, number>,
): Promise<void> {
  if (line.type === "record") {
    await tx`INSERT INTO ${tx(at.records)}
              (collection, key, record, version)
              VALUES (${line.collection}, ${line.key}, ${
      tx.json(line.record as postgres.JSONValue)
    }, 1)`;
  } else if (line.type === "draft") {
    const d = checkDraft(line.draft);
    await tx`INSERT INTO ${tx(at.drafts)}
              (collection, key, field, value, at, editor)
              VALUES (${d.collection}, ${d.key}, ${d.field},
                ${tx.json(d.value)}, ${d.at}, ${d.editor})`;
  } else if (line.type === "comment" || line.type === "approval") {
    await loadReview(at, tx, line);
  } else {
    const rev = checkRevision(line.revision);
    const field = JSON.stringify([rev.collection, rev.key, rev.field]);
    const seq = (seqs.get(field) ?? 0) + 1;
    seqs.set(field, seq);
    await insertRevision(at, tx, rev, seq);
  }
}
