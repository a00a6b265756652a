/**
 * The checks of what a review request sends: the page, a comment's text,
 * an anchor, a verdict, a comment id. Each refusal is a plain-text 4xx.
 *
 * @module
 */
import {
  ANCHOR_CONTEXT_CHARS,
  type Approval,
  MAX_COMMENT_CHARS,
  MAX_QUOTE_CHARS,
  type TextAnchor,
} from "../../core/protocol/review.ts";
import { Status } from "../../core/protocol/mod.ts";
import type { FieldAddress } from "../../core/address.ts";
import { allowedField, type Allowlist, HttpError } from "../http/mod.ts";

/** Longest page path. */
const MAX_PATH = 1024;

/**
 * `path` when it is a plain, canonical site path (`/`, `/de/article`);
 * else 400 "Missing or invalid page".
 */
export function checkPage(path: unknown): string {
  if (
    typeof path === "string" && path.startsWith("/") &&
    !path.startsWith("//") && path.length <= MAX_PATH &&
    !/[\\?#\s]/.test(path) && ![...path].some((c) => c < " " || c === "\x7f")
  ) {
    try {
      if (new URL(path, "http://x").pathname === path) return path;
    } catch {
      // Falls through to the refusal.
    }
  }
  throw new HttpError(Status.BadRequest, "Missing or invalid page");
}

/**
 * A comment's (or a note's) plain text, trimmed, with `\r\n` as `\n`: 400
 * when it is not text or empty (unless `optional` and absent), 413 past
 * `MAX_COMMENT_CHARS`.
 */
export function checkText(value: unknown, what = "Comment"): string {
  if (typeof value !== "string" || !value.trim()) {
    throw new HttpError(Status.BadRequest, `${what} text is missing`);
  }
  const text = value.replace(/\r\n?/g, "\n").trim();
  if (
    [...text].some((c) => (c < " " && c !== "\n" && c !== "\t") || c === "\x7f")
  ) {
    throw new HttpError(
      Status.BadRequest,
      `${what} text has control characters`,
    );
  }
  if (text.length > MAX_COMMENT_CHARS) {
    throw new HttpError(
      Status.ContentTooLarge,
      `${what} is too long: at most ${MAX_COMMENT_CHARS} characters`,
    );
  }
  return text;
}

/**
 * A new thread's anchor: its field allowlisted (400 with the reason), its
 * quote 1 to `MAX_QUOTE_CHARS` characters, prefix and suffix at most
 * `ANCHOR_CONTEXT_CHARS` each (400 "Invalid anchor: …"). Returns the
 * anchor with only its four keys, and the field's parsed address.
 */
export function checkAnchor(
  allowlist: Allowlist,
  value: unknown,
): { anchor: TextAnchor; address: FieldAddress } {
  const a = value as Partial<Record<keyof TextAnchor, unknown>> | null;
  if (typeof a !== "object" || a === null || Array.isArray(a)) {
    throw new HttpError(Status.BadRequest, "Invalid anchor: not an object");
  }
  const address = allowedField(allowlist, a.field);
  const { quote, prefix, suffix } = a;
  if (
    typeof quote !== "string" || !quote || quote.length > MAX_QUOTE_CHARS
  ) {
    throw new HttpError(
      Status.BadRequest,
      `Invalid anchor: the quote must be 1 to ${MAX_QUOTE_CHARS} characters`,
    );
  }
  for (const context of [prefix, suffix]) {
    if (
      typeof context !== "string" || context.length > ANCHOR_CONTEXT_CHARS
    ) {
      throw new HttpError(
        Status.BadRequest,
        `Invalid anchor: prefix and suffix must be text of at most ${ANCHOR_CONTEXT_CHARS} characters`,
      );
    }
  }
  return {
    anchor: {
      field: a.field as string,
      quote,
      prefix: prefix as string,
      suffix: suffix as string,
    },
    address,
  };
}

/** A verdict: `approved` or `changes`, else 400. */
export function checkVerdict(value: unknown): Approval["verdict"] {
  if (value === "approved" || value === "changes") return value;
  throw new HttpError(
    Status.BadRequest,
    'verdict must be "approved" or "changes"',
  );
}

/**
 * The comment id that ends `pathname` (`…/comments/ID`): 404 "No such
 * comment" when it is not an id.
 */
export function commentId(pathname: string): string {
  const rest = pathname.slice(pathname.lastIndexOf("/") + 1);
  if (!/^[\w-]{1,64}$/.test(rest)) {
    throw new HttpError(Status.NotFound, "No such comment");
  }
  return rest;
}
