/**
 * Review in place: comments anchored to a field's text, review links for
 * people without an account, and approvals of a page's drafts.
 *
 * - `GET comments?page=P` → {@linkcode CommentsAnswer}.
 * - `POST comments` a {@linkcode CommentCreateBody} → `201` {@linkcode Comment}.
 * - `PATCH comments/:id` a {@linkcode CommentPatchBody} → `200` {@linkcode Comment}.
 * - `DELETE comments/:id` → `204`.
 * - `POST review/links` a {@linkcode ReviewLinkBody} → {@linkcode ReviewLinkAnswer}.
 * - `POST review/approve?page=P` an {@linkcode ApproveBody} → `201` {@linkcode Approval}.
 * - `POST review/name` a {@linkcode ReviewNameBody} → `204` (sets a cookie).
 *
 * A reviewer's API calls carry the review token in {@linkcode REVIEW_HEADER}
 * (or the cookie set by `review/name`); the page carries it in the
 * {@linkcode REVIEW_PARAM} query parameter. The limits are in one place:
 * {@linkcode MAX_COMMENT_CHARS}, {@linkcode MAX_COMMENTS_PER_PAGE},
 * {@linkcode MAX_NAME_CHARS}, {@linkcode MAX_QUOTE_CHARS},
 * {@linkcode MAX_APPROVALS_PER_PAGE},
 * {@linkcode ANCHOR_CONTEXT_CHARS}.
 *
 * @module
 */

/** The longest comment text, in UTF-16 code units (past it: 413). */
export const MAX_COMMENT_CHARS = 2000;
/** The most comments (replies included) one page keeps (one more: 409). */
export const MAX_COMMENTS_PER_PAGE = 1000;
/** The most verdicts one page keeps: one more drops the oldest. */
export const MAX_APPROVALS_PER_PAGE = 100;
/** The longest author name, in UTF-16 code units (past it: 400). */
export const MAX_NAME_CHARS = 80;
/** The longest quoted text an anchor holds, in UTF-16 code units (past it: 400). */
export const MAX_QUOTE_CHARS = 1000;
/** How much text before and after the quote an anchor keeps, at most. */
export const ANCHOR_CONTEXT_CHARS = 32;
/** The default lifetime of a review link, in seconds (7 days). */
export const REVIEW_LINK_DEFAULT_SECONDS = 7 * 24 * 60 * 60;
/** The longest lifetime of a review link, in seconds (30 days). */
export const REVIEW_LINK_MAX_SECONDS = 30 * 24 * 60 * 60;
/** The request header carrying a reviewer's token on API calls. */
export const REVIEW_HEADER = "X-CMS-Review";
/** The page URL's query parameter carrying a review token. */
export const REVIEW_PARAM = "review";

/**
 * Where a comment sits: the quoted text of one field and some text around it
 * (the field's text content, not its HTML), so that it is found again after
 * edits elsewhere in the field. When the quote is gone the comment is
 * detached (kept, shown apart), never lost.
 *
 * @example
 * ```ts
 * import type { TextAnchor } from "./review.ts";
 * const anchor: TextAnchor = {
 *   field: "pages:home:body@de",
 *   quote: "schnelle",
 *   prefix: "Der ",
 *   suffix: " Fuchs",
 * };
 * ```
 */
export interface TextAnchor {
  /** The field's address, its locale suffix included (`pages:home:body@de`). */
  field: string;
  /** The quoted text (1 to {@linkcode MAX_QUOTE_CHARS} code units). */
  quote: string;
  /** Up to {@linkcode ANCHOR_CONTEXT_CHARS} code units of text before the quote. */
  prefix: string;
  /** Up to {@linkcode ANCHOR_CONTEXT_CHARS} code units of text after the quote. */
  suffix: string;
}

/** Who wrote a comment or gave a verdict. */
export interface CommentAuthor {
  /** The editor's name, or the name a reviewer gave (≤ {@linkcode MAX_NAME_CHARS}). */
  name: string;
  /** An editor with a session, or a reviewer from a review link. */
  kind: "editor" | "reviewer";
}

/**
 * One comment: a thread's first comment (`thread === id`) or a reply.
 *
 * @example
 * ```ts
 * import type { Comment } from "./review.ts";
 * const comment: Comment = {
 *   id: "c1",
 *   page: "/de/article",
 *   anchor: { field: "pages:article:title@de", quote: "Titel", prefix: "", suffix: "" },
 *   thread: "c1",
 *   text: "Too long?",
 *   author: { name: "Ada", kind: "reviewer" },
 *   created: "2026-01-01T09:00:00.000Z",
 * };
 * ```
 */
export interface Comment {
  /** Unique id. */
  id: string;
  /** The page's path (`/de/article`). */
  page: string;
  /** Where it sits (a reply carries its thread's anchor). */
  anchor: TextAnchor;
  /** The id of the thread's first comment (its own id for a first comment). */
  thread: string;
  /** Plain text, 1 to {@linkcode MAX_COMMENT_CHARS} code units. */
  text: string;
  /** Who wrote it. */
  author: CommentAuthor;
  /** When it was written, ISO 8601. */
  created: string;
  /** When its text was last changed, ISO 8601. */
  edited?: string;
  /** When the thread was resolved and by whom (on a thread's first comment). */
  resolved?: { by: string; at: string };
  /**
   * Set when a thread's first comment was deleted while it had replies: the
   * thread stays, its first comment's text is empty.
   */
  deleted?: true;
}

/**
 * A reviewer's or an editor's verdict on a page's drafts, as they were when
 * given: the fields and their draft versions.
 *
 * @example
 * ```ts
 * import type { Approval } from "./review.ts";
 * const approval: Approval = {
 *   id: "a1",
 *   page: "/de/article",
 *   verdict: "approved",
 *   by: { name: "Ada", kind: "reviewer" },
 *   at: "2026-01-01T09:00:00.000Z",
 *   fields: [{ field: "pages:article:title@de", version: "3x" }],
 * };
 * ```
 */
export interface Approval {
  /** Unique id. */
  id: string;
  /** The page's path. */
  page: string;
  /** Approved, or changes asked for. */
  verdict: "approved" | "changes";
  /** Who gave it. */
  by: CommentAuthor;
  /** When, ISO 8601. */
  at: string;
  /** An optional plain-text note (≤ {@linkcode MAX_COMMENT_CHARS}). */
  note?: string;
  /** The page's drafts and their draft versions at that moment. */
  fields: { field: string; version: string }[];
}

/** The body of `POST comments`: a new thread, or a reply when `thread` is given. */
export interface CommentCreateBody {
  /** The page's path. */
  page: string;
  /** Where it sits (ignored for a reply: the thread's anchor is used). */
  anchor: TextAnchor;
  /** Plain text. */
  text: string;
  /** The thread's id, for a reply. */
  thread?: string;
}

/** The body of `PATCH comments/:id`: new text (own comments), or resolve/reopen a thread. */
export interface CommentPatchBody {
  /** The new text. */
  text?: string;
  /** `true` resolves the thread, `false` reopens it. */
  resolved?: boolean;
}

/** The body of `POST review/links` (editors only). */
export interface ReviewLinkBody {
  /** The page's path the link is limited to. */
  page: string;
  /** Lifetime in seconds ({@linkcode REVIEW_LINK_DEFAULT_SECONDS} when absent, ≤ {@linkcode REVIEW_LINK_MAX_SECONDS}). */
  expiresIn?: number;
}

/** The answer of `POST review/links`. */
export interface ReviewLinkAnswer {
  /** The page's URL with `?review=<token>`. */
  url: string;
  /** When it stops working, ISO 8601. */
  expires: string;
}

/** The body of `POST review/approve?page=P`. */
export interface ApproveBody {
  /** Approve, or ask for changes. */
  verdict: "approved" | "changes";
  /** An optional plain-text note. */
  note?: string;
}

/** The body of `POST review/name`: the name a reviewer goes by. */
export interface ReviewNameBody {
  /** 1 to {@linkcode MAX_NAME_CHARS} code units. */
  name: string;
}

/** The answer of `GET comments?page=P`: oldest first. */
export interface CommentsAnswer {
  /** The page's comments the caller may see, oldest first. */
  comments: Comment[];
  /** The page's verdicts, oldest first. */
  approvals: Approval[];
}

/** The event stream's data when a page's comments or approvals changed (listeners re-read). */
export interface CommentsEventData {
  /** Always `comments`. */
  type: "comments";
  /** The page's path. */
  page: string;
}
