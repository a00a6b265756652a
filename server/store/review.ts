/**
 * Review in place, the part every store shares: the contract a store
 * implements to keep comments and approvals ({@linkcode ReviewStore}), the
 * checks of what it stores, the refusal endpoints turn into a 4xx
 * ({@linkcode ReviewRefusal}), and the pure plans of adding, changing and
 * deleting a comment that the memory, Deno KV and PostgreSQL stores apply
 * atomically to a page's comments.
 *
 * Deleting a reply removes it. Deleting a thread's first comment removes the
 * thread when it has no replies; with replies the thread stays and its first
 * comment keeps its place, marked `deleted` with empty text, and goes with
 * the thread's last reply.
 *
 * @module
 */
import {
  ANCHOR_CONTEXT_CHARS,
  type Approval,
  type Comment,
  type CommentAuthor,
  MAX_APPROVALS_PER_PAGE,
  MAX_COMMENT_CHARS,
  MAX_COMMENTS_PER_PAGE,
  MAX_NAME_CHARS,
  MAX_QUOTE_CHARS,
} from "../../core/protocol/review.ts";

/**
 * A change of one comment. `text` (with `edited`, when it was changed)
 * needs the comment not deleted; `resolved` (an object resolves, `null`
 * reopens) is for a thread's first comment.
 */
export interface CommentUpdate {
  /** The new text (1 to `MAX_COMMENT_CHARS`). */
  text?: string;
  /** When the text was changed, ISO 8601 (set with `text`). */
  edited?: string;
  /** Resolve (who, when) or reopen (`null`) the thread. */
  resolved?: { by: string; at: string } | null;
}

/** What the stored comment must be for a change or a delete to happen. */
export interface CommentExpect {
  /** Its author (name and kind): only authors edit or delete their own. */
  author?: CommentAuthor;
}

/**
 * Why a store refused a comment or approval: `status` is the 4xx an
 * endpoint answers, `message` a short plain-text reason for the editor.
 * Nothing was stored.
 */
export class ReviewRefusal extends Error {
  /** The HTTP status that fits: 400, 403, 404, 409 or 413. */
  readonly status: 400 | 403 | 404 | 409 | 413;
  /** Creates the refusal. */
  constructor(status: 400 | 403 | 404 | 409 | 413, message: string) {
    super(message);
    this.name = "ReviewRefusal";
    this.status = status;
  }
}

/**
 * Where comments and approvals are kept. The memory, Deno KV and
 * PostgreSQL stores implement it; each change is one atomic operation, and
 * a refusal ({@linkcode ReviewRefusal}) writes nothing.
 */
export interface ReviewStore {
  /**
   * Stores a new comment: a thread's first (`thread === id`) or a reply
   * (its thread must exist on the same page, not deleted). Refused past
   * `MAX_COMMENTS_PER_PAGE` comments on the page (409), text past
   * `MAX_COMMENT_CHARS` (413), a bad shape (400), a taken id (409).
   */
  addComment(comment: Comment): Promise<Comment>;
  /**
   * Changes comment `id` as `patch` says, when it is as `expect` says
   * (403 otherwise). The comment as it now is; `null` when there is none.
   */
  updateComment(
    id: string,
    patch: CommentUpdate,
    expect?: CommentExpect,
  ): Promise<Comment | null>;
  /**
   * Deletes comment `id` (see the module doc for threads), when it is as
   * `expect` says (403 otherwise); `false` when there is none.
   */
  deleteComment(id: string, expect?: CommentExpect): Promise<boolean>;
  /** The page's comments, oldest first (then by id). */
  comments(page: string): Promise<Comment[]>;
  /** Comment `id`, or `null`. */
  comment(id: string): Promise<Comment | null>;
  /**
   * Records a verdict. A page keeps its newest `MAX_APPROVALS_PER_PAGE`:
   * the oldest goes when one more comes.
   */
  addApproval(approval: Approval): Promise<Approval>;
  /** The page's verdicts, oldest first (then by id). */
  approvals(page: string): Promise<Approval[]>;
}

/**
 * Whether `store` keeps comments and approvals.
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "./memory.ts";
 * import { isReviewStore } from "./review.ts";
 * isReviewStore(new MemoryContentStore()); // true
 * ```
 */
export function isReviewStore(store: unknown): store is ReviewStore {
  const s = store as Partial<ReviewStore> | null;
  return typeof s?.addComment === "function" &&
    typeof s.updateComment === "function" &&
    typeof s.deleteComment === "function" &&
    typeof s.comments === "function" &&
    typeof s.addApproval === "function" &&
    typeof s.approvals === "function";
}

/** The most fields (drafts) one verdict covers. */
export const MAX_APPROVAL_FIELDS = 100;

/** The longest page path a comment or approval may name. */
export const MAX_PAGE_CHARS = 1000;

/**
 * Whether `page` is a page path a store keeps review data for: `/`, then
 * printable ASCII (a URL's path as the browser's `location.pathname` gives
 * it), no query or fragment, at most {@linkcode MAX_PAGE_CHARS}.
 *
 * @example
 * ```ts
 * import { isPagePath } from "./review.ts";
 * isPagePath("/de/article"); // true
 * isPagePath("de/article?x"); // false
 * ```
 */
export function isPagePath(page: unknown): page is string {
  return typeof page === "string" && page.length <= MAX_PAGE_CHARS &&
    /^\/[\x21-\x22\x24-\x3e\x40-\x7e]*$/.test(page);
}

const isText = (v: unknown, max: number, min = 0): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max &&
  storable(v);

/** Text every store can hold: no NUL, no half of a surrogate pair. */
const storable = (v: string) => v.isWellFormed() && !v.includes("\0");

const isTime = (v: unknown): v is string =>
  typeof v === "string" && !Number.isNaN(Date.parse(v));

function checkAuthor(author: CommentAuthor): void {
  if (
    !isText(author?.name?.trim(), MAX_NAME_CHARS, 1) ||
    author.name.length > MAX_NAME_CHARS ||
    (author.kind !== "editor" && author.kind !== "reviewer")
  ) {
    throw new ReviewRefusal(
      400,
      `A name must be 1 to ${MAX_NAME_CHARS} characters`,
    );
  }
}

/**
 * Checks the text of a comment or note: 1 to `MAX_COMMENT_CHARS` (a note may
 * be empty); throws a {@linkcode ReviewRefusal} (413 past the limit, 400
 * empty or not a string).
 *
 * @example
 * ```ts
 * import { checkCommentText } from "./review.ts";
 * checkCommentText("Looks good"); // "Looks good"
 * ```
 */
export function checkCommentText(text: unknown, empty = false): string {
  if (typeof text !== "string" || (!empty && !text.trim())) {
    throw new ReviewRefusal(400, "A comment needs some text");
  }
  if (!storable(text)) {
    throw new ReviewRefusal(
      400,
      "A comment cannot hold a NUL character or half of an emoji",
    );
  }
  if (text.length > MAX_COMMENT_CHARS) {
    throw new ReviewRefusal(
      413,
      `A comment may have at most ${MAX_COMMENT_CHARS} characters (this one has ${text.length})`,
    );
  }
  return text;
}

/**
 * Checks a comment before it is stored or loaded: a copy with its declared
 * keys only, in their declared order (so every store exports the same
 * bytes); throws a {@linkcode ReviewRefusal} (400, or 413 for a text too
 * long).
 *
 * @example
 * ```ts
 * import { checkComment } from "./review.ts";
 * checkComment({ id: "c1", page: "/", thread: "c1", text: "Hi",
 *   anchor: { field: "pages:home:title", quote: "Home", prefix: "", suffix: "" },
 *   author: { name: "Ada", kind: "editor" }, created: "2030-01-01T00:00:00Z" });
 * ```
 */
export function checkComment(comment: Comment): Comment {
  const c = comment as Partial<Comment> | null;
  const a = c?.anchor;
  if (
    !isText(c?.id, 200, 1) || !isText(c.thread, 200, 1) ||
    !isPagePath(c.page) || !isTime(c.created) ||
    (c.edited !== undefined && !isTime(c.edited)) ||
    (c.deleted !== undefined && c.deleted !== true) ||
    (c.resolved !== undefined &&
      !(isText(c.resolved?.by, MAX_NAME_CHARS, 1) && isTime(c.resolved.at))) ||
    (c.resolved !== undefined && c.thread !== c.id) ||
    !isText(a?.field, 300, 1) ||
    !isText(a.prefix, ANCHOR_CONTEXT_CHARS) ||
    !isText(a.suffix, ANCHOR_CONTEXT_CHARS)
  ) throw new ReviewRefusal(400, "Not a valid comment");
  if (!isText(a.quote, MAX_QUOTE_CHARS, 1)) {
    throw new ReviewRefusal(
      400,
      `Select 1 to ${MAX_QUOTE_CHARS} characters to comment on`,
    );
  }
  checkAuthor(c.author!);
  if (c.deleted) {
    if (c.text !== "") throw new ReviewRefusal(400, "Not a valid comment");
  } else checkCommentText(c.text);
  return canonicalComment(comment);
}

/**
 * A comment with its declared keys only, in their declared order: every
 * store keeps and exports the same bytes, whatever order its input or its
 * database (`jsonb`) gave. No checks.
 *
 * @example
 * ```ts
 * import { canonicalComment } from "./review.ts";
 * const c = canonicalComment({ created: "2030-01-01T00:00:00Z", id: "c1", page: "/",
 *   thread: "c1", text: "Hi", author: { kind: "editor", name: "Ada" },
 *   anchor: { suffix: "", quote: "Home", prefix: "", field: "pages:home:title" } });
 * Object.keys(c)[0]; // "id"
 * ```
 */
export function canonicalComment(c: Comment): Comment {
  const out: Comment = {
    id: c.id,
    page: c.page,
    anchor: {
      field: c.anchor.field,
      quote: c.anchor.quote,
      prefix: c.anchor.prefix,
      suffix: c.anchor.suffix,
    },
    thread: c.thread,
    text: c.text,
    author: { name: c.author.name, kind: c.author.kind },
    created: c.created,
  };
  if (c.edited !== undefined) out.edited = c.edited;
  if (c.resolved) out.resolved = { by: c.resolved.by, at: c.resolved.at };
  if (c.deleted) out.deleted = true;
  return out;
}

/**
 * Checks a verdict before it is stored or loaded: a copy with its declared
 * keys only, in their declared order; throws a {@linkcode ReviewRefusal}
 * (400, or 413 for a note too long).
 *
 * @example
 * ```ts
 * import { checkApproval } from "./review.ts";
 * checkApproval({ id: "a1", page: "/", verdict: "approved",
 *   by: { name: "Ada", kind: "reviewer" }, at: "2030-01-01T00:00:00Z",
 *   fields: [{ field: "pages:home:title", version: "3x" }] });
 * ```
 */
export function checkApproval(approval: Approval): Approval {
  const a = approval as Partial<Approval> | null;
  if (
    !isText(a?.id, 200, 1) || !isPagePath(a.page) || !isTime(a.at) ||
    (a.verdict !== "approved" && a.verdict !== "changes") ||
    !Array.isArray(a.fields) ||
    !a.fields.every((f) =>
      isText(f?.field, 300, 1) && isText(f.version, 100, 1)
    )
  ) throw new ReviewRefusal(400, "Not a valid verdict");
  if (a.fields.length > MAX_APPROVAL_FIELDS) {
    throw new ReviewRefusal(
      413,
      `A verdict covers at most ${MAX_APPROVAL_FIELDS} fields: publish some first`,
    );
  }
  checkAuthor(a.by!);
  if (a.note !== undefined) checkCommentText(a.note, true);
  return canonicalApproval(approval);
}

/**
 * A verdict with its declared keys only, in their declared order (see
 * {@linkcode canonicalComment}). No checks.
 *
 * @example
 * ```ts
 * import { canonicalApproval } from "./review.ts";
 * const a = canonicalApproval({ verdict: "approved", id: "a1", page: "/",
 *   by: { kind: "reviewer", name: "Rita" }, at: "2030-01-01T00:00:00Z", fields: [] });
 * Object.keys(a)[0]; // "id"
 * ```
 */
export function canonicalApproval(a: Approval): Approval {
  const out: Approval = {
    id: a.id,
    page: a.page,
    verdict: a.verdict,
    by: { name: a.by.name, kind: a.by.kind },
    at: a.at,
  } as Approval;
  if (a.note !== undefined) out.note = a.note;
  out.fields = a.fields.map((f) => ({ field: f.field, version: f.version }));
  return out;
}

/**
 * Oldest first, then by id: the order every store lists comments and
 * approvals in.
 *
 * @example
 * ```ts
 * import { byCreated } from "./review.ts";
 * [{ id: "b", created: "2030-01-02T00:00:00Z" }, { id: "a", created: "2030-01-01T00:00:00Z" }]
 *   .sort(byCreated).map((c) => c.id); // ["a", "b"]
 * ```
 */
export function byCreated(
  a: { id: string; created?: string; at?: string },
  b: { id: string; created?: string; at?: string },
): number {
  const d = Date.parse(a.created ?? a.at!) - Date.parse(b.created ?? b.at!);
  return d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** What a store knows of a page when a comment is added. */
export interface PageState {
  /** How many comments the page keeps (replies and deleted firsts included). */
  count: number;
  /** Whether the new comment's id is taken (on any page). */
  taken: boolean;
  /** The thread's first comment, for a reply (`null`: none on the page). */
  first?: Comment | null;
}

/**
 * Checks a new comment against its page: the id is free, a reply's thread
 * is there, and the page has room. The comment to store (a reply takes its
 * thread's anchor); throws a {@linkcode ReviewRefusal} otherwise.
 *
 * @example
 * ```ts
 * import { planAdd } from "./review.ts";
 * const c = { id: "c1", page: "/", thread: "c1", text: "Hi",
 *   anchor: { field: "pages:home:title", quote: "Home", prefix: "", suffix: "" },
 *   author: { name: "Ada", kind: "editor" as const }, created: "2030-01-01T00:00:00Z" };
 * planAdd(c, { count: 0, taken: false }).id; // "c1"
 * ```
 */
export function planAdd(comment: Comment, state: PageState): Comment {
  const c = structuredClone(checkComment(comment));
  delete c.deleted;
  delete c.edited;
  delete c.resolved;
  if (state.taken) throw new ReviewRefusal(409, "That comment id is taken");
  if (c.thread !== c.id) {
    const first = state.first;
    if (!first || first.id !== c.thread || first.thread !== first.id) {
      throw new ReviewRefusal(404, "That thread is gone");
    }
    c.anchor = structuredClone(first.anchor);
  }
  if (state.count >= MAX_COMMENTS_PER_PAGE) {
    throw new ReviewRefusal(
      409,
      `This page has ${MAX_COMMENTS_PER_PAGE} comments, the most it keeps: delete some first`,
    );
  }
  return c;
}

function checkExpect(current: Comment, expect?: CommentExpect): void {
  const author = expect?.author;
  if (
    author &&
    (author.name !== current.author.name || author.kind !== current.author.kind)
  ) throw new ReviewRefusal(403, "Only its author can change a comment");
}

/**
 * The comment as `patch` changes it, from the stored one; throws a
 * {@linkcode ReviewRefusal} when `expect` does not hold (403), the comment
 * is deleted (409), `resolved` is given for a reply (400) or the text is
 * refused.
 *
 * @example
 * ```ts
 * import { planUpdate } from "./review.ts";
 * const c = { id: "c1", page: "/", thread: "c1", text: "Hi",
 *   anchor: { field: "pages:home:title", quote: "Home", prefix: "", suffix: "" },
 *   author: { name: "Ada", kind: "editor" as const }, created: "2030-01-01T00:00:00Z" };
 * planUpdate(c, { resolved: { by: "Ada", at: "2030-01-02T00:00:00Z" } }).resolved?.by; // "Ada"
 * ```
 */
export function planUpdate(
  current: Comment,
  patch: CommentUpdate,
  expect?: CommentExpect,
): Comment {
  checkExpect(current, expect);
  const next = structuredClone(current);
  if (patch.text !== undefined) {
    if (current.deleted) {
      throw new ReviewRefusal(409, "That comment was deleted");
    }
    next.text = checkCommentText(patch.text);
    next.edited = isTime(patch.edited)
      ? patch.edited
      : new Date().toISOString();
  }
  if (patch.resolved !== undefined) {
    if (current.thread !== current.id) {
      throw new ReviewRefusal(
        400,
        "Resolve or reopen the thread's first comment",
      );
    }
    if (patch.resolved === null) delete next.resolved;
    else next.resolved = { by: patch.resolved.by, at: patch.resolved.at };
  }
  return checkComment(next);
}

/** What deleting a comment writes: the ids to remove, a comment to keep changed. */
export interface CommentDeletion {
  /** The comments to remove. */
  remove: string[];
  /** The thread's first comment, kept as deleted (it has replies). */
  keep?: Comment;
}

/**
 * What deleting `target` does to its thread, whose first comment is `first`
 * and which has `replies` replies (`target` among them when it is one): see
 * the module doc. Throws a {@linkcode ReviewRefusal} (403) when `expect`
 * does not hold.
 *
 * @example
 * ```ts
 * import { planDelete } from "./review.ts";
 * const c = { id: "c1", page: "/", thread: "c1", text: "Hi",
 *   anchor: { field: "pages:home:title", quote: "Home", prefix: "", suffix: "" },
 *   author: { name: "Ada", kind: "editor" as const }, created: "2030-01-01T00:00:00Z" };
 * planDelete(c, c, 0); // { remove: ["c1"] }
 * ```
 */
export function planDelete(
  target: Comment,
  first: Comment | null,
  replies: number,
  expect?: CommentExpect,
): CommentDeletion {
  if (target.id === target.thread) {
    if (target.deleted) return { remove: [] };
    checkExpect(target, expect);
    if (!replies) return { remove: [target.id] };
    const keep = structuredClone(target);
    keep.text = "";
    keep.deleted = true;
    delete keep.edited;
    return { keep, remove: [] };
  }
  checkExpect(target, expect);
  if (first?.deleted && replies === 1) {
    return { remove: [target.id, first.id] };
  }
  return { remove: [target.id] };
}

/**
 * The verdicts to drop so that a page keeps its newest
 * `MAX_APPROVALS_PER_PAGE` once one more comes: the oldest of `page`.
 *
 * @example
 * ```ts
 * import { approvalsToDrop } from "./review.ts";
 * approvalsToDrop([]); // []
 * ```
 */
export function approvalsToDrop(page: Approval[]): Approval[] {
  const over = page.length + 1 - MAX_APPROVALS_PER_PAGE;
  return over > 0 ? [...page].sort(byCreated).slice(0, over) : [];
}
