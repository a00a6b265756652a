/**
 * Review in place, the state part (no DOM): a page's comments as threads,
 * each found again in its field's text ({@linkcode threads}), the latest
 * verdict and whether a later draft edit voided it ({@linkcode verdict}). `review.ts` is the view.
 *
 * @module
 */

import type { Approval, Comment } from "../core/protocol/review.ts";
import { resolveAnchor, type TextRange } from "../core/review/anchor.ts";

/** One thread: its first comment, its replies, and where its quote is now. */
export interface Thread {
  /** The thread's id (its first comment's). */
  id: string;
  /** The first comment (holds `resolved`). */
  head: Comment;
  /** The replies, oldest first. */
  replies: Comment[];
  /** Where the quote is in the field's text now; `null`: detached. */
  at: TextRange | null;
}

/**
 * The threads of `comments`, found in `texts` (each field's text content, in
 * page order): open ones first, then resolved ones; in each, attached ones
 * in page order (field, then offset), then detached ones (their quote is
 * gone, or their field is not on the page), oldest first. A reply whose
 * first comment is missing makes its own thread: none is dropped.
 *
 * @example
 * ```ts ignore
 * const list = threads(answer.comments, new Map([["pages:home:title", "Hello world"]]));
 * list[0].at; // { start: 6, end: 11 }
 * ```
 */
export function threads(
  comments: Comment[],
  texts: Map<string, string>,
): Thread[] {
  const byId = new Map<string, Thread>();
  for (const c of comments) {
    const t = byId.get(c.thread);
    if (t && c.id !== c.thread) t.replies.push(c);
    else if (!t) {
      byId.set(c.thread, { id: c.thread, head: c, replies: [], at: null });
    } else (t.replies.unshift(t.head), t.head = c);
  }
  const order = [...texts.keys()];
  const key = (t: Thread) => {
    const text = texts.get(t.head.anchor.field);
    t.at = text === undefined ? null : resolveAnchor(text, t.head.anchor);
    return [
      t.head.resolved ? 1 : 0,
      t.at ? 0 : 1,
      t.at ? order.indexOf(t.head.anchor.field) : 0,
      t.at?.start ?? 0,
    ];
  };
  const keyed = [...byId.values()].map((t) => [key(t), t] as const);
  return keyed.sort(([a], [b]) =>
    a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]
  ).map(([, t]) => t);
}

/**
 * The page's latest verdict, and whether it still covers the drafts:
 * `void` when a field it covered now has another version (`versions`: each
 * field's current version, from the regions), so a new approval is needed.
 * `undefined` without any verdict.
 *
 * @example
 * ```ts ignore
 * verdict(approvals, new Map([["pages:home:title", "v2"]]));
 * // { approval: {...}, void: true } when approved at "v1"
 * ```
 */
export function verdict(
  approvals: Approval[],
  versions: Map<string, string>,
): { approval: Approval; void: boolean } | undefined {
  const approval = approvals.at(-1);
  return approval && {
    approval,
    void: approval.fields.some((f) =>
      versions.has(f.field) && versions.get(f.field) !== f.version
    ),
  };
}
