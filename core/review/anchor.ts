/**
 * Text anchors for comments: a quote of a field's text and the text around
 * it, made from a selection ({@linkcode anchorAt}) and found again after
 * edits ({@linkcode resolveAnchor}). Offsets count UTF-16 code units of the
 * field's text content: the browser's `textContent` of the region, or on the
 * server {@linkcode textOf} of the stored (sanitized) HTML; a plain field's
 * text is its value.
 *
 * @example
 * ```ts
 * import { anchorAt, resolveAnchor, textOf } from "./anchor.ts";
 * const text = textOf("<p>The <b>quick</b> fox</p>"); // "The quick fox"
 * const anchor = anchorAt(text, 4, 9, "pages:home:body");
 * resolveAnchor("A quick fox. The quick fox", anchor); // { start: 17, end: 22 }
 * resolveAnchor("The slow fox", anchor); // null: detached
 * ```
 *
 * @module
 */
import { ANCHOR_CONTEXT_CHARS, type TextAnchor } from "../protocol/review.ts";

export type { TextAnchor };

/** A range of a field's text, in UTF-16 code units, `end` exclusive. */
export interface TextRange {
  /** The first code unit. */
  start: number;
  /** One past the last code unit. */
  end: number;
}

// Whether a cut at `at` would split a surrogate pair.
function splits(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return false;
  const high = text.charCodeAt(at - 1);
  const low = text.charCodeAt(at);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

/**
 * The anchor of `text.slice(start, end)` in the field `field`: the quote
 * and up to {@linkcode ANCHOR_CONTEXT_CHARS} code units either side. Offsets
 * are clamped to the text, and never split a surrogate pair (the range
 * widens to whole characters, the context narrows).
 *
 * @example
 * ```ts
 * import { anchorAt } from "./anchor.ts";
 * anchorAt("Hello world", 6, 11, "pages:home:title");
 * // { field: "pages:home:title", quote: "world", prefix: "Hello ", suffix: "" }
 * ```
 */
export function anchorAt(
  text: string,
  start: number,
  end: number,
  field: string,
): TextAnchor {
  let from = Math.max(0, Math.min(start, end, text.length));
  let to = Math.min(text.length, Math.max(start, end, 0));
  if (splits(text, from)) from--;
  if (splits(text, to)) to++;
  let before = Math.max(0, from - ANCHOR_CONTEXT_CHARS);
  let after = Math.min(text.length, to + ANCHOR_CONTEXT_CHARS);
  if (splits(text, before)) before++;
  if (splits(text, after)) after--;
  return {
    field,
    quote: text.slice(from, to),
    prefix: text.slice(before, from),
    suffix: text.slice(to, after),
  };
}

// How many code units end both `a` (before `aEnd`) and `b`.
function commonTail(a: string, aEnd: number, b: string): number {
  let n = 0;
  while (
    n < b.length && n < aEnd && a[aEnd - 1 - n] === b[b.length - 1 - n]
  ) n++;
  return n;
}

// How many code units start both `a` (from `aStart`) and `b`.
function commonHead(a: string, aStart: number, b: string): number {
  let n = 0;
  while (n < b.length && aStart + n < a.length && a[aStart + n] === b[n]) n++;
  return n;
}

/**
 * Where the anchor's quote is in `text` now, or `null` when it is gone
 * (the comment is detached). When the quote occurs several times, the
 * occurrence whose surrounding text matches most of the anchor's prefix and
 * suffix wins (the first one on a tie). Exact and deterministic: no fuzzy
 * matching, so a resolved range always holds exactly the quote. An empty
 * quote never resolves.
 *
 * @example
 * ```ts
 * import { resolveAnchor } from "./anchor.ts";
 * const anchor = { field: "f", quote: "a", prefix: "x ", suffix: " y" };
 * resolveAnchor("b a c x a y", anchor); // { start: 8, end: 9 }
 * ```
 */
export function resolveAnchor(
  text: string,
  anchor: TextAnchor,
): TextRange | null {
  const { quote, prefix, suffix } = anchor;
  if (!quote) return null;
  let best = -1;
  let bestScore = -1;
  for (
    let at = text.indexOf(quote);
    at >= 0;
    at = text.indexOf(quote, at + 1)
  ) {
    const score = commonTail(text, at, prefix) +
      commonHead(text, at + quote.length, suffix);
    if (score > bestScore) {
      best = at;
      bestScore = score;
      if (score === prefix.length + suffix.length) break;
    }
  }
  return best < 0 ? null : { start: best, end: best + quote.length };
}

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  shy: "\u00ad",
  ndash: "\u2013",
  mdash: "\u2014",
  hellip: "\u2026",
  lsquo: "\u2018",
  rsquo: "\u2019",
  ldquo: "\u201c",
  rdquo: "\u201d",
  bdquo: "\u201e",
  laquo: "\u00ab",
  raquo: "\u00bb",
  copy: "\u00a9",
  reg: "\u00ae",
  euro: "\u20ac",
  auml: "\u00e4",
  ouml: "\u00f6",
  uuml: "\u00fc",
  Auml: "\u00c4",
  Ouml: "\u00d6",
  Uuml: "\u00dc",
  szlig: "\u00df",
};

function decodeEntity(entity: string, body: string): string {
  if (body[0] === "#") {
    const hex = body[1] === "x" || body[1] === "X";
    const code = parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
    if (!Number.isFinite(code) || code > 0x10ffff) return "\ufffd";
    return code === 0 || (code >= 0xd800 && code <= 0xdfff)
      ? "\ufffd"
      : String.fromCodePoint(code);
  }
  return NAMED[body] ?? entity;
}

// A comment, a tag (its quoted attribute values may hold ">"), or an entity.
const MARKUP =
  /<!--[\s\S]*?(?:-->|$)|<[A-Za-z/!?][^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*>?|&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z]+);?/g;

/**
 * The text content of a field's sanitized HTML, as the browser's
 * `textContent` of the region gives it, so that server and client agree on
 * anchor offsets: tags and comments dropped, character references decoded
 * (numeric ones, and the named ones a sanitizer or an editor writes; other
 * names are kept as written), the line feed right after `<pre>` or
 * `<textarea>` dropped as the HTML parser does. Whitespace is kept as is.
 *
 * @example
 * ```ts
 * import { textOf } from "./anchor.ts";
 * textOf("<p>Fish &amp; chips</p>\n<p>A<br>B</p>"); // "Fish & chips\nAB"
 * ```
 */
export function textOf(html: string): string {
  let out = "";
  let last = 0;
  let dropFeed = false;
  for (const match of html.matchAll(MARKUP)) {
    let text = html.slice(last, match.index);
    if (dropFeed && text[0] === "\n") text = text.slice(1);
    out += text;
    last = match.index + match[0].length;
    const token = match[0];
    dropFeed = false;
    if (token[0] === "&") out += decodeEntity(token, match[1]);
    else if (/^<(pre|textarea|listing)\b/i.test(token)) dropFeed = true;
  }
  let tail = html.slice(last);
  if (dropFeed && tail[0] === "\n") tail = tail.slice(1);
  return out + tail;
}
