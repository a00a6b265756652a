/**
 * Comments and review verdicts in PostgreSQL: one row per comment (page,
 * thread and time beside the `jsonb`) and one per verdict. Every add and
 * delete runs in a transaction that first takes a lock on the page
 * (`pg_advisory_xact_lock`), so changes of one page are serialized and its
 * limits hold however many instances write; a change of one comment locks
 * its row (`FOR UPDATE`).
 *
 * @module
 */
import type postgres from "postgres";
import type { Approval, Comment } from "../../core/protocol/review.ts";
import {
  approvalsToDrop,
  byCreated,
  canonicalApproval,
  canonicalComment,
  checkApproval,
  checkComment,
  type CommentExpect,
  type CommentUpdate,
  planAdd,
  planDelete,
  planUpdate,
  ReviewRefusal,
  type StoreLine,
} from "../../server/store/mod.ts";
import { type PgAt, run, type Tx } from "./_tables.ts";

const json = (tx: Tx | postgres.Sql, v: Comment | Approval) =>
  tx.json(v as unknown as postgres.JSONValue);

/** Serializes the changes of one page's review data. */
async function lockPage(at: PgAt, tx: Tx, page: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtext(${at.comments + page}))`;
}

/** Inserts a comment row. */
async function insertComment(at: PgAt, tx: Tx, c: Comment): Promise<void> {
  await tx`INSERT INTO ${tx(at.comments)} (id, page, thread, created, comment)
      VALUES (${c.id}, ${c.page}, ${c.thread}, ${new Date(c.created)},
        ${json(tx, c)})`;
}

/** Stores a new comment (see `ReviewStore.addComment`). */
export async function addComment(
  at: PgAt,
  comment: Comment,
): Promise<Comment> {
  const { page, id, thread } = checkComment(comment);
  return await run(at, (sql) =>
    sql.begin(async (tx) => {
      await lockPage(at, tx, page);
      const [{ count, taken }] = await tx`SELECT
          (SELECT count(*)::int FROM ${tx(at.comments)} WHERE page = ${page})
            AS count,
          EXISTS (SELECT 1 FROM ${tx(at.comments)} WHERE id = ${id}) AS taken`;
      const [first] = await tx`SELECT comment FROM ${tx(at.comments)}
          WHERE id = ${thread} AND page = ${page}`;
      const c = planAdd(comment, {
        count,
        taken,
        first: first ? canonicalComment(first.comment) : null,
      });
      await insertComment(at, tx, c);
      return c;
    }));
}

/** Changes a comment (see `ReviewStore.updateComment`). */
export async function updateComment(
  at: PgAt,
  id: string,
  patch: CommentUpdate,
  expect?: CommentExpect,
): Promise<Comment | null> {
  return await run(at, (sql) =>
    sql.begin(async (tx) => {
      const [row] = await tx`SELECT comment FROM ${tx(at.comments)}
          WHERE id = ${id} FOR UPDATE`;
      if (!row) return null;
      const next = planUpdate(canonicalComment(row.comment), patch, expect);
      await tx`UPDATE ${tx(at.comments)} SET comment = ${json(tx, next)}
          WHERE id = ${id}`;
      return next;
    }));
}

/** Deletes a comment (see `ReviewStore.deleteComment`). */
export async function deleteComment(
  at: PgAt,
  id: string,
  expect?: CommentExpect,
): Promise<boolean> {
  return await run(at, (sql) =>
    sql.begin(async (tx) => {
      const [found] = await tx`SELECT page FROM ${tx(at.comments)}
          WHERE id = ${id}`;
      if (!found) return false;
      await lockPage(at, tx, found.page);
      // The thread's rows, locked: a change of one waits, none is lost.
      const [row] = await tx`SELECT thread FROM ${tx(at.comments)}
          WHERE id = ${id}`;
      if (!row) return false;
      const thread = await tx`SELECT id, comment FROM ${tx(at.comments)}
          WHERE page = ${found.page} AND thread = ${row.thread} FOR UPDATE`;
      const mine = thread.find((r) => r.id === id);
      if (!mine) return false;
      const target = canonicalComment(mine.comment);
      const first = thread.find((r) => r.id === target.thread);
      const replies = thread.filter((r) => r.id !== target.thread).length;
      const plan = planDelete(
        target,
        first ? canonicalComment(first.comment) : null,
        replies,
        expect,
      );
      if (plan.remove.length) {
        await tx`DELETE FROM ${tx(at.comments)} WHERE id IN ${tx(plan.remove)}`;
      }
      if (plan.keep) {
        await tx`UPDATE ${tx(at.comments)} SET comment = ${
          json(tx, plan.keep)
        } WHERE id = ${plan.keep.id}`;
      }
      return true;
    }));
}

/** The page's comments, oldest first. */
export async function comments(at: PgAt, page: string): Promise<Comment[]> {
  const rows = await run(
    at,
    (sql) => sql`SELECT comment FROM ${sql(at.comments)} WHERE page = ${page}`,
  );
  return rows.map((r) => canonicalComment(r.comment)).sort(byCreated);
}

/** Comment `id`, or `null`. */
export async function comment(at: PgAt, id: string): Promise<Comment | null> {
  const [row] = await run(
    at,
    (sql) => sql`SELECT comment FROM ${sql(at.comments)} WHERE id = ${id}`,
  );
  return row ? canonicalComment(row.comment) : null;
}

/** Records a verdict, dropping the page's oldest past the limit. */
export async function addApproval(
  at: PgAt,
  approval: Approval,
): Promise<Approval> {
  const a = checkApproval(approval);
  return await run(at, (sql) =>
    sql.begin(async (tx) => {
      await lockPage(at, tx, a.page);
      const list = (await tx`SELECT approval FROM ${tx(at.approvals)}
          WHERE page = ${a.page}`).map((r) => canonicalApproval(r.approval));
      if (list.some((x) => x.id === a.id)) {
        throw new ReviewRefusal(409, "That verdict id is taken");
      }
      const drop = approvalsToDrop(list).map((x) => x.id);
      if (drop.length) {
        await tx`DELETE FROM ${tx(at.approvals)}
            WHERE page = ${a.page} AND id IN ${tx(drop)}`;
      }
      await insertApproval(at, tx, a);
      return a;
    }));
}

async function insertApproval(at: PgAt, tx: Tx, a: Approval): Promise<void> {
  await tx`INSERT INTO ${tx(at.approvals)} (page, id, at, approval)
      VALUES (${a.page}, ${a.id}, ${new Date(a.at)}, ${json(tx, a)})`;
}

/** The page's verdicts, oldest first. */
export async function approvals(at: PgAt, page: string): Promise<Approval[]> {
  const rows = await run(
    at,
    (sql) =>
      sql`SELECT approval FROM ${sql(at.approvals)} WHERE page = ${page}`,
  );
  return rows.map((r) => canonicalApproval(r.approval)).sort(byCreated);
}

/**
 * Every comment, then every verdict, as export lines: by page, then id, in
 * byte order (as Deno KV lists them).
 */
export async function* reviewLines(at: PgAt): AsyncIterable<StoreLine> {
  const sql = at.sql;
  const comments = sql`SELECT comment FROM ${sql(at.comments)}
      ORDER BY page COLLATE "C", id COLLATE "C"`.cursor(200);
  for await (const rows of comments) {
    for (const r of rows) {
      yield { type: "comment", comment: canonicalComment(r.comment) };
    }
  }
  const approvals = sql`SELECT approval FROM ${sql(at.approvals)}
      ORDER BY page COLLATE "C", id COLLATE "C"`.cursor(200);
  for await (const rows of approvals) {
    for (const r of rows) {
      yield { type: "approval", approval: canonicalApproval(r.approval) };
    }
  }
}

/** Inserts one comment or verdict of an export (inside the load's transaction). */
export async function loadReview(
  at: PgAt,
  tx: Tx,
  line: Extract<StoreLine, { type: "comment" | "approval" }>,
): Promise<void> {
  if (line.type === "comment") {
    await insertComment(at, tx, checkComment(line.comment));
  } else await insertApproval(at, tx, checkApproval(line.approval));
}
