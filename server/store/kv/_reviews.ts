/**
 * Comments and review verdicts in Deno KV. A comment at
 * `[20, page, id]`, its page by id at `[21, id]`, its thread's index entry
 * at `[22, page, thread, id]`, a verdict at `[23, page, id]`, and a page's
 * head at `[24, page]` (how many comments and verdicts it keeps). Every add
 * and delete checks and changes the page's head in its commit, so changes
 * of one page are serialized and its limits hold however many instances
 * write; a change of one comment checks that comment's entry.
 *
 * @module
 */
import type { Approval, Comment } from "../../../core/protocol/review.ts";
import {
  approvalsToDrop,
  byCreated,
  checkApproval,
  checkComment,
  type CommentExpect,
  type CommentUpdate,
  planAdd,
  planDelete,
  planUpdate,
  ReviewRefusal,
} from "../review.ts";
import type { StoreLine } from "../types.ts";
import {
  AGAIN,
  commit,
  type KvAt,
  listAll,
  reading,
  retry,
} from "./_layout.ts";

/** Key part of the comments. */
export const COMMENTS = 20;
/** Key part of the comments' pages by id. */
export const COMMENT_PAGES = 21;
/** Key part of the threads' index. */
export const THREADS = 22;
/** Key part of the verdicts. */
export const APPROVALS = 23;
/** Key part of the pages' heads. */
export const REVIEW_HEADS = 24;

/** How many comments and verdicts a page keeps. */
interface Head {
  comments: number;
  approvals: number;
}

const commentKey = (at: KvAt, page: string, id: string) => [
  ...at.prefix,
  COMMENTS,
  page,
  id,
];
const pageKey = (at: KvAt, id: string) => [...at.prefix, COMMENT_PAGES, id];
const threadKey = (at: KvAt, page: string, thread: string, id?: string) =>
  id === undefined
    ? [...at.prefix, THREADS, page, thread]
    : [...at.prefix, THREADS, page, thread, id];
const approvalKey = (at: KvAt, page: string, id?: string) =>
  id === undefined
    ? [...at.prefix, APPROVALS, page]
    : [...at.prefix, APPROVALS, page, id];
const headKey = (at: KvAt, page: string) => [...at.prefix, REVIEW_HEADS, page];

const countOf = (head: Deno.KvEntryMaybe<Head>): Head =>
  head.value ?? { comments: 0, approvals: 0 };

/** Stores a new comment (see `ReviewStore.addComment`). */
export async function addComment(
  at: KvAt,
  comment: Comment,
): Promise<Comment> {
  const { page, id, thread } = checkComment(comment);
  return await retry(at, "comment", async () => {
    const [head, taken, first] = await reading(() =>
      at.kv.getMany<[Head, string, Comment]>([
        headKey(at, page),
        pageKey(at, id),
        commentKey(at, page, thread),
      ])
    );
    const count = countOf(head);
    const c = planAdd(comment, {
      count: count.comments,
      taken: taken.value !== null,
      first: first.value,
    });
    const op = at.kv.atomic().check(head, taken)
      .set(commentKey(at, page, id), c)
      .set(pageKey(at, id), page)
      .set(threadKey(at, page, c.thread, id), true)
      .set(headKey(at, page), { ...count, comments: count.comments + 1 });
    return await commit(op) ? c : AGAIN;
  });
}

/** The stored comment `id` and its page, or `null`. */
async function find(
  at: KvAt,
  id: string,
): Promise<Deno.KvEntry<Comment> | null> {
  const page = await reading(() => at.kv.get<string>(pageKey(at, id)));
  if (page.value === null) return null;
  const entry = await reading(() =>
    at.kv.get<Comment>(commentKey(at, page.value!, id))
  );
  return entry.value === null ? null : entry as Deno.KvEntry<Comment>;
}

/** Changes a comment (see `ReviewStore.updateComment`). */
export function updateComment(
  at: KvAt,
  id: string,
  patch: CommentUpdate,
  expect?: CommentExpect,
): Promise<Comment | null> {
  return retry(at, "comment change", async () => {
    const entry = await find(at, id);
    if (!entry) return null;
    const next = planUpdate(entry.value, patch, expect);
    const op = at.kv.atomic().check(entry).set(entry.key, next);
    return await commit(op) ? next : AGAIN;
  });
}

/** Deletes a comment (see `ReviewStore.deleteComment`). */
export function deleteComment(
  at: KvAt,
  id: string,
  expect?: CommentExpect,
): Promise<boolean> {
  return retry(at, "comment delete", async () => {
    const entry = await find(at, id);
    if (!entry) return false;
    const { page, thread } = entry.value;
    const [head, first] = await reading(() =>
      at.kv.getMany<[Head, Comment]>([
        headKey(at, page),
        commentKey(at, page, thread),
      ])
    );
    const members = await listAll(at, threadKey(at, page, thread));
    const replies = members.filter((e) => e.key.at(-1) !== thread).length;
    const plan = planDelete(entry.value, first.value, replies, expect);
    const count = countOf(head);
    const op = at.kv.atomic().check(head, entry)
      .set(headKey(at, page), {
        ...count,
        comments: count.comments - plan.remove.length,
      });
    for (const gone of plan.remove) {
      op.delete(commentKey(at, page, gone)).delete(pageKey(at, gone))
        .delete(threadKey(at, page, thread, gone));
    }
    if (plan.keep) op.set(commentKey(at, page, plan.keep.id), plan.keep);
    return await commit(op) ? true : AGAIN;
  });
}

/** The page's comments, oldest first. */
export async function comments(at: KvAt, page: string): Promise<Comment[]> {
  const list = await listAll<Comment>(at, [...at.prefix, COMMENTS, page]);
  return list.map((e) => e.value).sort(byCreated);
}

/** Comment `id`, or `null`. */
export async function comment(at: KvAt, id: string): Promise<Comment | null> {
  return (await find(at, id))?.value ?? null;
}

/** Records a verdict, dropping the page's oldest past the limit. */
export async function addApproval(
  at: KvAt,
  approval: Approval,
): Promise<Approval> {
  const a = structuredClone(checkApproval(approval));
  return await retry(at, "verdict", async () => {
    const head = await reading(() => at.kv.get<Head>(headKey(at, a.page)));
    const list = (await listAll<Approval>(at, approvalKey(at, a.page)))
      .map((e) => e.value);
    if (list.some((x) => x.id === a.id)) {
      throw new ReviewRefusal(409, "That verdict id is taken");
    }
    const drop = approvalsToDrop(list);
    const count = countOf(head);
    const op = at.kv.atomic().check(head)
      .set(approvalKey(at, a.page, a.id), a)
      .set(headKey(at, a.page), {
        ...count,
        approvals: count.approvals + 1 - drop.length,
      });
    for (const old of drop) op.delete(approvalKey(at, a.page, old.id));
    return await commit(op) ? a : AGAIN;
  });
}

/** The page's verdicts, oldest first. */
export async function approvals(at: KvAt, page: string): Promise<Approval[]> {
  const list = await listAll<Approval>(at, approvalKey(at, page));
  return list.map((e) => e.value).sort(byCreated);
}

/** Every comment, then every verdict, as export lines. */
export async function* reviewLines(at: KvAt): AsyncIterable<StoreLine> {
  for (const e of await listAll<Comment>(at, [...at.prefix, COMMENTS])) {
    yield { type: "comment", comment: e.value };
  }
  for (const e of await listAll<Approval>(at, [...at.prefix, APPROVALS])) {
    yield { type: "approval", approval: e.value };
  }
}

/** Loads one comment or verdict of an export into a store being loaded. */
export async function loadReview(
  at: KvAt,
  line: Extract<StoreLine, { type: "comment" | "approval" }>,
): Promise<void> {
  const item = line.type === "comment"
    ? checkComment(line.comment)
    : checkApproval(line.approval);
  const page = item.page;
  const head = await reading(() => at.kv.get<Head>(headKey(at, page)));
  const count = countOf(head);
  const op = at.kv.atomic().check(head);
  if (line.type === "comment") {
    const c = item as Comment;
    op.set(commentKey(at, page, c.id), c).set(pageKey(at, c.id), page)
      .set(threadKey(at, page, c.thread, c.id), true)
      .set(headKey(at, page), { ...count, comments: count.comments + 1 });
  } else {
    op.set(approvalKey(at, page, item.id), item)
      .set(headKey(at, page), { ...count, approvals: count.approvals + 1 });
  }
  if (!await commit(op)) throw new Error("import write failed");
}
