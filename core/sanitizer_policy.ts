/**
 * The sanitizer policy for rich fields as data, apart from the engines that
 * apply it: which tags are kept, unwrapped or dropped with their content,
 * which attributes each kept tag may carry and with what values, and which
 * URLs links and images may use, with the small predicates that read these
 * tables. The DOMPurify engine (`sanitizer.ts`) and the browser's rebuild
 * (`rebuild.ts`) both decide by them. Importing it does nothing but build
 * the tables; it touches no DOM and no Deno API.
 *
 * The policy:
 * - Kept: `p br h2 h3 h4 strong b em i u s strike del a ul ol li blockquote
 *   code pre img`, and tables (`table caption thead tbody tfoot tr th td`).
 * - Removed with their content: script, style, template, svg, math, iframe,
 *   noscript, title, audio, video, colgroup and the like
 *   ({@linkcode DROPPED_WITH_CONTENT}), comments and processing instructions.
 * - Everything else is unwrapped: its content stays. Block elements
 *   ({@linkcode SEPARATED_TAGS}, e.g. `div`, `h1`, `hr`, `dt`) leave a
 *   `<br>` where their content would otherwise touch neighbouring text, so
 *   `<div>Name</div><div>Role</div>` becomes `Name<br>Role`, never
 *   "NameRole".
 * - Attributes: `href` (and `target="_blank"`) on `<a>`; `src alt width
 *   height` on `<img>`, plus `srcset`/`sizes` when every srcset URL is under
 *   the `mediaBase` option, `loading="lazy"` and `decoding="async"`;
 *   `colspan`/`rowspan` (1 to 1000) on `th`/`td`. Nothing else: no `class`,
 *   `id`, `style`, `title`, `data-*`, `aria-*` or event handlers.
 * - `href`: `http:`, `https:`, `mailto:`, `tel:` or a relative URL. A
 *   rejected `href` is removed and the `<a>` stays inert. Every `<a href>`
 *   gets `rel="noopener noreferrer nofollow"`.
 * - `<img>` stays only with `width` and `height` that are integers from 1 to
 *   10000 written plainly (`/^[1-9]\d{0,4}$/`), and a `src` that is `http:`,
 *   `https:` or relative. Otherwise the whole `<img>` is removed.
 * - Relative means path, query or fragment: protocol-relative URLs
 *   (`//host`, `\\host`) are rejected for both `href` and `src`. Tabs,
 *   newlines, control characters and Unicode spaces are ignored when the
 *   scheme is judged, as browsers ignore them when they parse the URL.
 * - Text is never removed because of what it says: text that looks like a
 *   tag (`Vec&lt;u8&gt;`) next to a comment stays (DOMPurify's SAFE_FOR_XML
 *   is off; everything it guards against, comments, foreign content and
 *   raw-text elements, is removed by the rules above), and a `<pre>` keeps
 *   its leading blank line.
 *
 * @example
 * ```ts
 * import { elementRule, isAllowedImage } from "./sanitizer_policy.ts";
 * elementRule("div"); // "unwrap"
 * isAllowedImage("/a.png", "640", "480"); // true
 * ```
 *
 * @module
 */

import type { DomElement } from "./dom_like.ts";
import { isAllowedUrl, LINK_SCHEMES } from "./url.ts";

/** The DOMPurify options the policy sets (a subset of DOMPurify's `Config`). */
export interface SanitizerPolicy {
  /** Tags kept. */
  readonly ALLOWED_TAGS: string[];
  /** Attributes kept on some tag; the hooks narrow them per tag. */
  readonly ALLOWED_ATTR: string[];
  /** Elements removed with their content (the rest is unwrapped). */
  readonly FORBID_CONTENTS: string[];
  /** Only the HTML namespace: no SVG, no MathML. */
  readonly ALLOWED_NAMESPACES: string[];
  /** First gate for URL-valued attributes. */
  readonly ALLOWED_URI_REGEXP: RegExp;
  /** `data-*` attributes: off. */
  readonly ALLOW_DATA_ATTR: false;
  /** `aria-*` attributes: off. */
  readonly ALLOW_ARIA_ATTR: false;
  /** Unknown URL schemes: off. */
  readonly ALLOW_UNKNOWN_PROTOCOLS: false;
  /** Keep the text of unwrapped elements (never of script, style, svg...). */
  readonly KEEP_CONTENT: true;
  /**
   * Off: it removes whole elements whose text mentions a tag next to a
   * comment. Comments, foreign content and raw-text elements are removed by
   * the policy itself.
   */
  readonly SAFE_FOR_XML: false;
  /** Return a plain string, never a `TrustedHTML`. */
  readonly RETURN_TRUSTED_TYPE: false;
  /** Return the body's content only. */
  readonly WHOLE_DOCUMENT: false;
}

/** Inline tags kept in stored rich HTML. */
const KEPT_INLINE = [
  "br",
  "strong",
  "b",
  "em",
  "i",
  "u",
  "s",
  "strike",
  "del",
  "a",
  "code",
  "img",
] as const;

/** Block tags kept in stored rich HTML: they separate words themselves. */
const KEPT_BLOCK = [
  "p",
  "h2",
  "h3",
  "h4",
  "ul",
  "ol",
  "li",
  "blockquote",
  "pre",
  "table",
  "caption",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "th",
  "td",
] as const;

/** Every tag kept in stored rich HTML. */
export const KEPT_TAGS: readonly string[] = Object.freeze([
  ...KEPT_BLOCK,
  ...KEPT_INLINE,
]);

/**
 * Elements removed together with their content: code, styles, embedded
 * documents and media, foreign content, and elements whose content is not
 * text a reader sees. (DOMPurify's default list, without `thead`.)
 */
export const DROPPED_WITH_CONTENT: readonly string[] = Object.freeze([
  "annotation-xml",
  "audio",
  "colgroup",
  "desc",
  "foreignobject",
  "head",
  "iframe",
  "math",
  "mi",
  "mn",
  "mo",
  "ms",
  "mtext",
  "noembed",
  "noframes",
  "noscript",
  "plaintext",
  "script",
  "style",
  "svg",
  "template",
  "title",
  "video",
  "xmp",
]);

/**
 * Unwrapped elements that render as blocks (or break lines): when one is
 * unwrapped, a `<br>` keeps its content apart from neighbouring text.
 */
export const SEPARATED_TAGS: readonly string[] = Object.freeze([
  "address",
  "article",
  "aside",
  "center",
  "dd",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "legend",
  "listing",
  "main",
  "menu",
  "nav",
  "optgroup",
  "option",
  "search",
  "section",
  "summary",
]);

const KEPT = new Set<string>(KEPT_TAGS);
const DROPPED = new Set<string>(DROPPED_WITH_CONTENT);
const SEPARATED = new Set<string>(SEPARATED_TAGS);
const BOUNDARY = new Set<string>([...KEPT_BLOCK, "br", ...SEPARATED_TAGS]);
// Parents whose text content the HTML parser moves elsewhere: no <br> there.
const TABLE_CONTEXT = new Set(["table", "thead", "tbody", "tfoot", "tr"]);

/** What the policy does with an HTML element, by its lower-case tag name. */
export type ElementRule = "keep" | "unwrap" | "drop";

/**
 * The rule for an HTML element: kept, unwrapped (content stays) or dropped
 * with its content. Elements outside the HTML namespace are always dropped.
 *
 * @example
 * ```ts
 * import { elementRule } from "./sanitizer_policy.ts";
 * elementRule("td"); // "keep"
 * elementRule("div"); // "unwrap"
 * elementRule("script"); // "drop"
 * ```
 */
export function elementRule(tag: string): ElementRule {
  return KEPT.has(tag) ? "keep" : DROPPED.has(tag) ? "drop" : "unwrap";
}

/**
 * Whether unwrapping `tag` inside `parentTag` needs line breaks around its
 * content (a block element outside table structure).
 *
 * @example
 * ```ts
 * import { isSeparated } from "./sanitizer_policy.ts";
 * isSeparated("div", "body"); // true
 * isSeparated("span", "body"); // false
 * ```
 */
export function isSeparated(tag: string, parentTag: string): boolean {
  return SEPARATED.has(tag) && !TABLE_CONTEXT.has(parentTag);
}

/**
 * Whether an element with this tag already keeps words apart on its side
 * (a kept block, a `<br>`, or an unwrapped block that separates itself).
 *
 * @example
 * ```ts
 * import { isBoundaryTag } from "./sanitizer_policy.ts";
 * isBoundaryTag("p"); // true
 * isBoundaryTag("b"); // false
 * ```
 */
export function isBoundaryTag(tag: string): boolean {
  return BOUNDARY.has(tag);
}

/** Attributes kept, per tag. Any other attribute on any tag is removed. */
const ATTRS_BY_TAG: ReadonlyMap<string, readonly string[]> = new Map([
  ["a", ["href", "target", "rel"]],
  [
    "img",
    ["src", "alt", "width", "height", "srcset", "sizes", "loading", "decoding"],
  ],
  ["th", ["colspan", "rowspan"]],
  ["td", ["colspan", "rowspan"]],
]);

// The same, as sets: one lookup per attribute, no allocation.
const ATTR_SETS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  [...ATTRS_BY_TAG].map(([tag, names]) => [tag, new Set(names)]),
);

/**
 * The attributes the policy keeps on `tag` (lower case), as a set to hand
 * to {@linkcode isAllowedOn}; `undefined` for a tag that keeps none. The
 * same set each call, so callers may compare it by identity.
 *
 * @example
 * ```ts
 * import { keptAttributes } from "./sanitizer_policy.ts";
 * keptAttributes("a")?.has("href"); // true
 * keptAttributes("p"); // undefined
 * ```
 */
export function keptAttributes(tag: string): ReadonlySet<string> | undefined {
  return ATTR_SETS.get(tag);
}

/** Attributes admitted only with one exact value. */
const EXACT_VALUES: ReadonlyMap<string, string> = new Map([
  ["target", "_blank"],
  ["loading", "lazy"],
  ["decoding", "async"],
]);

/** The `rel` value forced on every link with an `href`. */
export const LINK_REL = "noopener noreferrer nofollow";

/** Largest accepted `width` or `height` of an `<img>`, in CSS pixels. */
export const MAX_IMAGE_SIDE = 10000;

const IMAGE_SCHEMES: readonly string[] = ["http", "https"];

/** The HTML namespace, the only one whose elements the policy keeps. */
export const HTML_NS = "http://www.w3.org/1999/xhtml";

const SIDE = /^[1-9]\d{0,4}$/;
const SPAN = /^[1-9]\d{0,3}$/;
const MAX_SPAN = 1000;
// One srcset candidate: a URL without commas or spaces, then an optional
// width (`640w`) or density (`2x`, `1.5x`) descriptor.
const SRCSET_CANDIDATE =
  /^(\S+?)(?:\s+(?:[1-9]\d{0,4}w|\d{1,2}(?:\.\d{1,3})?x))?$/;
// `sizes`: media conditions and lengths only; no functions but calc/min/max.
const SIZES = /^[a-z\d\s().,:%+\-*/]{1,1000}$/i;
const SIZES_FUNCTIONS = /[a-z-]+\(/gi;
const ALLOWED_SIZES_FUNCTIONS = new Set(["calc(", "min(", "max(", "clamp("]);

/**
 * DOMPurify's first gate for every attribute value but `alt` (after
 * removing whitespace): http, https, mailto, tel, or no scheme at all.
 * The per-tag rules ({@linkcode isAllowedAttribute}) refine it.
 *
 * @example
 * ```ts
 * import { URI_GATE } from "./sanitizer_policy.ts";
 * URI_GATE.test("javascript:alert(1)"); // false
 * URI_GATE.test("_blank"); // true
 * ```
 */
export const URI_GATE: RegExp =
  /^(?:(?:https?|mailto|tel):|[^a-z]|[a-z\d+.-]*(?:[^a-z\d+.:-]|$))/i;

/**
 * The DOMPurify configuration of the policy. Frozen; pass it as is.
 * `ALLOWED_URI_REGEXP` is a first gate only: the hooks installed by
 * `createSanitizer` (`sanitizer.ts`) apply the exact per-tag rules. (Built in an
 * IIFE marked pure, like the other tables only DOMPurify reads, so the
 * browser bundle, which has no DOMPurify, drops it.)
 */
export const SANITIZER_POLICY: SanitizerPolicy =
  /* @__PURE__ */ (() =>
    Object.freeze({
      // "body" is the root DOMPurify walks, never output: the HTML parser
      // merges any <body> tag into the one root. Allowing it spares
      // DOMPurify a deep clone of the whole input, and lets the server
      // sanitize a body in place.
      ALLOWED_TAGS: Object.freeze([...KEPT_TAGS, "body"]) as string[],
      ALLOWED_ATTR: Object.freeze(
        [...new Set([...ATTRS_BY_TAG.values()].flat())].sort(),
      ) as string[],
      FORBID_CONTENTS: DROPPED_WITH_CONTENT as string[],
      ALLOWED_NAMESPACES: Object.freeze([HTML_NS]) as string[],
      ALLOWED_URI_REGEXP: URI_GATE,
      ALLOW_DATA_ATTR: false,
      ALLOW_ARIA_ATTR: false,
      ALLOW_UNKNOWN_PROTOCOLS: false,
      KEEP_CONTENT: true,
      SAFE_FOR_XML: false,
      RETURN_TRUSTED_TYPE: false,
      WHOLE_DOCUMENT: false,
    }))();

/**
 * Whether an `<img>` with these raw attribute values is admitted: `width`
 * and `height` plain integers from 1 to {@linkcode MAX_IMAGE_SIDE}, `src`
 * http(s) or relative.
 *
 * @example
 * ```ts
 * import { isAllowedImage } from "./sanitizer_policy.ts";
 * isAllowedImage("/a.png", "640", "480"); // true
 * isAllowedImage("/a.png", "640px", "480"); // false
 * ```
 */
export function isAllowedImage(
  src: string | null,
  width: string | null,
  height: string | null,
): boolean {
  return src !== null && isAllowedUrl(src.trim(), IMAGE_SCHEMES) &&
    isSide(width) && isSide(height);
}

/**
 * Whether an `srcset` value is admitted: every candidate URL starts with
 * `mediaBase`, has no `..` segment, backslash or encoded dot, and carries at
 * most a plain `w` or `x` descriptor. Without a `mediaBase`, never.
 *
 * @example
 * ```ts
 * import { isAllowedSrcset } from "./sanitizer_policy.ts";
 * isAllowedSrcset("/media/a-640.webp 640w, /media/a.webp 1280w", "/media/"); // true
 * isAllowedSrcset("/media/../admin 1x", "/media/"); // false
 * isAllowedSrcset("https://evil.example/a.png 2x", "/media/"); // false
 * ```
 */
export function isAllowedSrcset(
  value: string,
  mediaBase: string | undefined,
): boolean {
  if (!mediaBase || value.length > 4000) return false;
  const candidates = value.split(",");
  return candidates.every((candidate) => {
    const match = SRCSET_CANDIDATE.exec(candidate.trim());
    if (match === null) return false;
    const url = match[1];
    return url.startsWith(mediaBase) && !/\.\.|\\|%2e|%5c/i.test(url) &&
      isAllowedUrl(url, IMAGE_SCHEMES);
  });
}

function isAllowedSizes(value: string): boolean {
  if (!SIZES.test(value)) return false;
  for (const [fn] of value.matchAll(SIZES_FUNCTIONS)) {
    if (!ALLOWED_SIZES_FUNCTIONS.has(fn.toLowerCase())) return false;
  }
  return true;
}

/**
 * Whether the policy keeps attribute `name` (lower case) with its trimmed
 * `value` on the HTML element `el`: the per-tag list, exact values, link
 * and srcset URLs, `sizes` only beside an admitted `srcset` (read from
 * `el`), spans from 1 to 1000. DOMPurify's URL gate
 * ({@linkcode URI_GATE}) applies on top.
 *
 * @example
 * ```ts ignore
 * isAllowedAttribute(a, "target", "_blank"); // true
 * isAllowedAttribute(a, "onclick", "x()"); // false
 * ```
 */
export function isAllowedAttribute(
  el: DomElement,
  name: string,
  value: string,
  mediaBase?: string,
): boolean {
  return isAllowedOn(ATTR_SETS.get(el.localName), el, name, value, mediaBase);
}

/**
 * {@linkcode isAllowedAttribute} given the element's set of kept attributes
 * ({@linkcode keptAttributes}), so a caller that judges several attributes
 * of one element reads its tag once.
 *
 * @example
 * ```ts ignore
 * isAllowedOn(keptAttributes("a"), a, "target", "_blank", undefined); // true
 * ```
 */
export function isAllowedOn(
  kept: ReadonlySet<string> | undefined,
  el: DomElement,
  name: string,
  value: string,
  mediaBase: string | undefined,
): boolean {
  if (kept?.has(name) !== true) return false;
  const exact = EXACT_VALUES.get(name);
  if (exact !== undefined) return value === exact;
  if (name === "href") return isAllowedUrl(value, LINK_SCHEMES);
  if (name === "rel") return value === LINK_REL;
  if (name === "srcset") return isAllowedSrcset(value, mediaBase);
  if (name === "sizes") {
    return isAllowedSrcset(el.getAttribute("srcset") ?? "", mediaBase) &&
      isAllowedSizes(value);
  }
  if (name === "colspan" || name === "rowspan") {
    return SPAN.test(value) && Number(value) <= MAX_SPAN;
  }
  return true;
}

function isSide(value: string | null): boolean {
  return value !== null && SIDE.test(value) && Number(value) <= MAX_IMAGE_SIDE;
}
