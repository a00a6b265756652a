/**
 * The one sanitizer policy for rich fields, shared by the browser (paste
 * cleaning, the rich text editor) and the server (the save endpoint, through
 * `server/sanitize/pool.ts` on jsdom).
 *
 * It is a DOMPurify configuration, the element rules as data
 * ({@linkcode elementRule}) and a few hooks. This module is pure: it touches
 * no DOM and no Deno API until a sanitizer runs, and importing it does
 * nothing. The caller brings a DOMPurify instance bound to a window.
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
 * @example Browser
 * ```ts ignore
 * import DOMPurify from "dompurify";
 * import { createSanitizer } from "./sanitizer.ts";
 *
 * // A dedicated instance: the hooks apply to every call on it.
 * const sanitize = createSanitizer(DOMPurify(window));
 * sanitize('<p onclick="x()">Hi<script>x()</script></p>'); // "<p>Hi</p>"
 * ```
 *
 * @module
 */

import { isAllowedUrl, LINK_SCHEMES } from "./url.ts";
export { isAllowedUrl, LINK_SCHEMES };

// The parts of the DOM the policy touches, declared structurally so that
// core type-checks without the DOM lib (Deno's default compiler options);
// a browser's or jsdom's nodes satisfy them.

/** A DOM node as the policy reads it (a browser's or jsdom's `Node`). */
export interface DomNode {
  /** 1 element, 3 text, 8 comment, 9 document. */
  readonly nodeType: number;
  /** The parent, or `null` when detached. */
  readonly parentNode: DomParent | null;
  /** First child, or `null`. */
  readonly firstChild: DomNode | null;
  /** Next sibling, or `null`. */
  readonly nextSibling: DomNode | null;
  /** Previous sibling, or `null`. */
  readonly previousSibling: DomNode | null;
  /** The text of the node and its descendants. */
  textContent: string | null;
}

/** A node that holds children (an element or a document). */
export interface DomParent extends DomNode {
  /** Its children. */
  readonly childNodes: { readonly length: number };
  /** Inserts `node` before `child` (`null`: at the end). */
  insertBefore(node: DomNode, child: DomNode | null): unknown;
  /** Removes `child`. */
  removeChild(child: DomNode): unknown;
}

/** A DOM element as the policy reads it. */
export interface DomElement extends DomParent {
  /** Lower-case tag name for HTML. */
  readonly localName: string;
  /** The element's namespace. */
  readonly namespaceURI: string | null;
  /** The document it belongs to. */
  readonly ownerDocument: DomDocument;
  /** Its serialized content. */
  innerHTML: string;
  /** An attribute's value, or `null`. */
  getAttribute(name: string): string | null;
  /** Whether it has the attribute. */
  hasAttribute(name: string): boolean;
  /** Sets an attribute. */
  setAttribute(name: string, value: string): void;
  /** Removes an attribute. */
  removeAttribute(name: string): void;
}

/** A text node. */
export interface DomText extends DomNode {
  /** Its text. */
  data: string;
  /** The document it belongs to. */
  readonly ownerDocument: DomDocument;
}

/** A document. */
export interface DomDocument extends DomParent {
  /** Its `<body>`, if any. */
  readonly body: DomElement | null;
  /** Its `<head>`, if any. */
  readonly head: DomElement | null;
  /** Its root element. */
  readonly documentElement: DomElement;
  /** Creates an element. */
  createElement(tag: string): DomElement;
}

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

/** The attribute hook event DOMPurify passes to `uponSanitizeAttribute`. */
export interface AttributeHookEvent {
  /** Lower-cased attribute name. */
  readonly attrName: string;
  /** Trimmed attribute value. */
  attrValue: string;
  /** Set to false to remove the attribute. */
  keepAttr: boolean;
}

/** The element hook event DOMPurify passes to `uponSanitizeElement`. */
export interface ElementHookEvent {
  /** Lower-cased node name (`#text` and `#comment` for those nodes). */
  readonly tagName: string;
}

/**
 * The part of a DOMPurify instance the policy uses. A DOMPurify 3 instance
 * (`DOMPurify(window)`) satisfies it.
 */
export interface Purifier {
  /** False when the window lacks what DOMPurify needs. */
  readonly isSupported: boolean;
  /** What the last `sanitize` call removed (elements and attributes). */
  removed?: unknown[];
  /** Registers a hook that may detach the node to remove it. */
  addHook(
    entryPoint: "uponSanitizeElement",
    hook: (node: DomNode, data: ElementHookEvent) => void,
  ): void;
  /** Registers a hook that decides per attribute. */
  addHook(
    entryPoint: "uponSanitizeAttribute",
    hook: (node: DomElement, event: AttributeHookEvent) => void,
  ): void;
  /** Registers a hook run after a node (text too) is sanitized. */
  addHook(
    entryPoint: "afterSanitizeElements",
    hook: (node: DomNode) => void,
  ): void;
  /** Registers a hook run after an element's attributes are sanitized. */
  addHook(
    entryPoint: "afterSanitizeAttributes",
    hook: (node: DomElement) => void,
  ): void;
  /** Removes a hook registered with `addHook`. */
  removeHook(
    entryPoint: "afterSanitizeElements",
    hook: (node: DomNode) => void,
  ): unknown;
  /**
   * Sanitizes an HTML string, or with `IN_PLACE` an element's content where
   * it is.
   */
  sanitize(
    dirty: string | DomNode,
    config: SanitizerPolicy & { IN_PLACE?: boolean },
  ): string | DomNode;
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
// What the element hook leaves to DOMPurify at once: kept tags but <img>
// (judged as a whole), text and comments.
const FAST_KEPT = /* @__PURE__ */ (() =>
  new Set<string>([
    ...KEPT_TAGS.filter((tag) => tag !== "img"),
    "#text",
    "#comment",
  ]))();
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
 * import { elementRule } from "./sanitizer.ts";
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
 * import { isSeparated } from "./sanitizer.ts";
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
 * import { isBoundaryTag } from "./sanitizer.ts";
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
const HTML_NS = "http://www.w3.org/1999/xhtml";
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
 * import { URI_GATE } from "./sanitizer.ts";
 * URI_GATE.test("javascript:alert(1)"); // false
 * URI_GATE.test("_blank"); // true
 * ```
 */
export const URI_GATE: RegExp =
  /^(?:(?:https?|mailto|tel):|[^a-z]|[a-z\d+.-]*(?:[^a-z\d+.:-]|$))/i;

/**
 * The DOMPurify configuration of the policy. Frozen; pass it as is.
 * `ALLOWED_URI_REGEXP` is a first gate only: the hooks installed by
 * {@linkcode createSanitizer} apply the exact per-tag rules. (Built in an
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

/** Options of {@linkcode createSanitizer}. */
export interface SanitizerOptions {
  /**
   * Where uploaded media is served from, e.g. `/media/` or
   * `https://cdn.example/media/`. An `<img srcset>` is kept only when every
   * URL in it starts with this base; without it, `srcset` and `sizes` are
   * always removed.
   */
  readonly mediaBase?: string;
}

/** The result of a counted sanitize. */
export interface SanitizeResult {
  /** The clean HTML. */
  readonly html: string;
  /**
   * How many elements, comments and attributes the policy removed or
   * unwrapped (0 for HTML that was already clean).
   */
  readonly removed: number;
}

/** A sanitizer bound to one DOMPurify instance: dirty HTML in, clean out. */
export interface Sanitize {
  /** Sanitizes an HTML string. */
  (html: string): string;
  /** Sanitizes an HTML string and counts what was removed. */
  counted(html: string): SanitizeResult;
  /**
   * Sanitizes the children of `root` (a `<body>` element, attached or not)
   * where they are, and returns how many things were removed. The server
   * uses it on a tree it built itself.
   */
  inPlace(root: DomElement): number;
}

/**
 * Whether an `<img>` with these raw attribute values is admitted: `width`
 * and `height` plain integers from 1 to {@linkcode MAX_IMAGE_SIDE}, `src`
 * http(s) or relative.
 *
 * @example
 * ```ts
 * import { isAllowedImage } from "./sanitizer.ts";
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
 * import { isAllowedSrcset } from "./sanitizer.ts";
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

// The same, given the element's set of kept attributes (`ATTR_SETS`), so a
// caller that judges several attributes of one element reads its tag once.
function isAllowedOn(
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

function isHtmlElement(node: DomNode, localName?: string): node is DomElement {
  const el = node as DomElement;
  return node.nodeType === 1 && el.namespaceURI === HTML_NS &&
    (localName === undefined || el.localName === localName);
}

/** Whitespace-only text, comments and dropped elements do not separate. */
function isTransparent(node: DomNode): boolean {
  return (node.nodeType === 3 && (node as DomText).data.trim() === "") ||
    node.nodeType === 8 || node.nodeType === 7 ||
    (node.nodeType === 1 && !isHtmlElement(node)) ||
    (isHtmlElement(node) && DROPPED.has(node.localName));
}

function isBoundary(
  node: DomNode | null,
  step: "previousSibling" | "nextSibling",
) {
  while (node !== null && isTransparent(node)) node = node[step];
  return node === null ||
    (isHtmlElement(node) && BOUNDARY.has(node.localName));
}

/**
 * The content that replaces an unwrapped element, flattened: the children of
 * `node` and of every unwrapped element nested in it, in order, once each,
 * with `null` standing for a `<br>` where a block's content would touch
 * neighbouring text. Nested unwrapped elements are passed to `onUnwrap`
 * (`node` first). `boundaryBefore` tells whether what precedes `node`
 * already keeps words apart. Nothing is moved or copied: the server's hook
 * inserts the list where `node` stood, the browser's rebuild
 * (`core/rebuild.ts`) builds from it. Linear however deep wrappers nest.
 *
 * @example
 * ```ts ignore
 * flattenUnwrapped(div, "body", () => true, () => {}); // [text "Name", null]
 * ```
 */
export function flattenUnwrapped(
  node: DomElement,
  parentTag: string,
  boundaryBefore: () => boolean,
  onUnwrap: (el: DomElement) => void,
): (DomNode | null)[] {
  const out: (DomNode | null)[] = [];
  // Whether the last significant output node (else what precedes `node`)
  // keeps words apart.
  const before = () => {
    for (let i = out.length - 1; i >= 0; i--) {
      const n = out[i];
      if (n === null) return true;
      if (!isTransparent(n)) return isBoundary(n, "previousSibling");
    }
    return boundaryBefore();
  };
  // Flattens `el` (being unwrapped inside `parentTag`) into `out`; returns
  // whether it held visible text when `needed` (else it may say false: only
  // a separated element, or one inside it, looks at its text).
  const flatten = (
    el: DomElement,
    parentTag: string,
    needed: boolean,
  ): boolean => {
    onUnwrap(el);
    const separated = isSeparated(el.localName, parentTag);
    const needs = needed || separated;
    const brBefore = separated && !before();
    const after = separated && !isBoundary(el.nextSibling, "nextSibling");
    const start = out.length;
    if (brBefore) out.push(null); // dropped below when nothing needs it
    let content = false;
    for (let child = el.firstChild; child !== null; child = child.nextSibling) {
      if (
        isHtmlElement(child) && child.localName !== "body" &&
        elementRule(child.localName) === "unwrap"
      ) {
        content = flatten(child, el.localName, needs) || content;
      } else {
        out.push(child);
        content ||= needs && (child.nodeType === 3 || isHtmlElement(child)) &&
          !isTransparent(child) && (child.textContent ?? "").trim() !== "";
      }
    }
    if (brBefore && !(content || after)) out.splice(start, 1);
    if (after && content) out.push(null);
    return content;
  };
  flatten(node, parentTag, false);
  return out;
}

/**
 * Unwraps `node` where it stands (see {@linkcode flattenUnwrapped}): its
 * flattened content moves to after `node`, so DOMPurify's walk still
 * visits it. Every node moves at most once; no subtree is copied.
 */
function unwrapInDom(
  node: DomElement,
  onUnwrap: (el: DomElement) => void,
): void {
  const parent = node.parentNode;
  if (parent === null) return;
  const out = flattenUnwrapped(
    node,
    (parent as DomElement).localName ?? "",
    () => isBoundary(node.previousSibling, "previousSibling"),
    onUnwrap,
  );
  const next = node.nextSibling;
  for (const child of out) {
    parent.insertBefore(child ?? node.ownerDocument.createElement("br"), next);
  }
  parent.removeChild(node);
}

/**
 * What the parser put outside the body of a parsed document, which the
 * result leaves out: elements in `<head>` (a leading `<style>`, `<title>`,
 * `<meta>`) and comments before or around `<html>`. 0 for a body that is
 * not its document's. Counted as removed.
 *
 * @example
 * ```ts ignore
 * outsideBody(parse("<title>x</title><p>y").body); // 1
 * ```
 */
export function outsideBody(body: DomElement): number {
  const doc = body.ownerDocument;
  if (doc.body !== body) return 0;
  let count = doc.head?.childNodes.length ?? 0;
  for (const parent of [doc, doc.documentElement]) {
    for (let n = parent.firstChild; n !== null; n = n.nextSibling) {
      if (n.nodeType === 8) count++;
    }
  }
  return count;
}

// Whether this document's serializer writes the extra line feed that the
// HTML parser drops after <pre> (the current spec and jsdom do not).
const preSerializerAddsNewline = new WeakMap<DomDocument, boolean>();

/**
 * Makes the first text of a `<pre>` that starts with a line feed survive
 * serializing: the parser drops one leading line feed, so one more is
 * written. DOMPurify visits text after any sibling before it is unwrapped
 * or removed, so the text is the `<pre>`'s first child for good (and the
 * rebuild calls it as it appends the text).
 *
 * @example
 * ```ts ignore
 * pre.append(text); // text.data === "\nx"
 * protectPreNewline(text); // "\n\nx" where the serializer adds nothing
 * ```
 */
export function protectPreNewline(text: DomText): void {
  const pre = text.parentNode;
  if (
    pre === null || pre.firstChild !== text || !text.data.startsWith("\n") ||
    !isHtmlElement(pre, "pre")
  ) return;
  const doc = text.ownerDocument;
  let adds = preSerializerAddsNewline.get(doc);
  if (adds === undefined) {
    const probe = doc.createElement("pre");
    probe.textContent = "\nx";
    adds = probe.innerHTML.startsWith("\n\n");
    preSerializerAddsNewline.set(doc, adds);
  }
  if (!adds) text.data = "\n" + text.data;
}

interface InstanceState {
  options: SanitizerOptions;
  /** Removals the hooks made that DOMPurify does not record. */
  removed: number;
  /** Nodes the hooks removed; DOMPurify's attribute records on them are moot. */
  gone: WeakSet<DomNode>;
  /** The element whose attributes are being judged, and its kept names. */
  el: DomElement | null;
  kept: ReadonlySet<string> | undefined;
  /** The last `<a>` with an attribute the policy may keep. */
  link: DomElement | null;
}

// Attribute names some tag keeps; DOMPurify's `ALLOWED_ATTR` (the same
// names) removes any other, so the attribute hook need not look at the tag.
const SOME_TAG_KEEPS =
  /* @__PURE__ */ (() => new Set<string>(SANITIZER_POLICY.ALLOWED_ATTR))();
const LINK_ATTRS = /* @__PURE__ */ ATTR_SETS.get("a");
// A `<pre>` element comes only from a `<pre` start tag in the markup.
const PRE_TAG = /<pre/i;

const installed = new WeakMap<Purifier, InstanceState>();

// Registered only while a value that may hold a `<pre>` is sanitized: a
// hook on every node costs a call per node.
const preHook = (node: DomNode) => {
  if (node.nodeType === 3) protectPreNewline(node as DomText);
};

function install(purify: Purifier): InstanceState {
  const existing = installed.get(purify);
  if (existing) return existing;
  if (!purify.isSupported) {
    throw new Error("DOMPurify is not supported by this window");
  }
  const state: InstanceState = {
    options: {},
    removed: 0,
    gone: new WeakSet(),
    el: null,
    kept: undefined,
    link: null,
  };
  purify.addHook("uponSanitizeElement", (node, data) => {
    // Kept tags (but <img>), text and comments: DOMPurify decides alone.
    if (FAST_KEPT.has(data.tagName)) return;
    if (!isHtmlElement(node)) return; // text, comments, foreign: DOMPurify's
    const tag = node.localName;
    if (tag === "body") {
      state.removed += outsideBody(node);
      return;
    }
    if (tag === "img") {
      // A bad <img> goes entirely; DOMPurify treats a detached node as removed.
      if (
        !isAllowedImage(
          node.getAttribute("src"),
          node.getAttribute("width"),
          node.getAttribute("height"),
        )
      ) {
        node.parentNode?.removeChild(node);
        state.removed++;
        state.gone.add(node);
      }
    } else if (tag !== "body" && elementRule(tag) === "unwrap") {
      unwrapInDom(node, (el) => {
        state.removed++;
        state.gone.add(el);
      });
    }
  });
  purify.addHook("uponSanitizeAttribute", (node, event) => {
    const name = event.attrName;
    if (!SOME_TAG_KEEPS.has(name)) return; // DOMPurify removes it
    if (node !== state.el) { // the tag is read once per element
      state.el = node;
      state.kept = ATTR_SETS.get(node.localName);
      if (state.kept === LINK_ATTRS) state.link = node;
    }
    const value = event.attrValue;
    if (!isAllowedOn(state.kept, node, name, value, state.options.mediaBase)) {
      event.keepAttr = false;
    } else event.attrValue = value; // as judged (trimmed)
  });
  purify.addHook("afterSanitizeAttributes", (node) => {
    // Only an <a> with an attribute the policy may keep needs a look: one
    // with none has no rel or target to set or remove.
    if (node === state.link && isHtmlElement(node)) {
      if (node.hasAttribute("href")) node.setAttribute("rel", LINK_REL);
      else {
        // A link without an address keeps neither rel nor target.
        for (const name of ["rel", "target"]) {
          if (node.hasAttribute(name)) {
            node.removeAttribute(name);
            if (name === "target") state.removed++;
          }
        }
      }
    }
  });
  installed.set(purify, state);
  return state;
}

/** Removals DOMPurify recorded, less attribute records on removed nodes. */
function countRemoved(purify: Purifier, state: InstanceState): number {
  let count = state.removed;
  for (const item of purify.removed ?? []) {
    const from = (item as { from?: DomNode }).from;
    if (from === undefined || !state.gone.has(from)) count++;
  }
  return count;
}

/**
 * Installs the policy's hooks on a DOMPurify instance (once per instance)
 * and returns the function that sanitizes with the policy.
 *
 * Give it a dedicated instance, for example `DOMPurify(window)`: hooks apply
 * to every `sanitize` call on that instance. It throws when the instance
 * reports `isSupported === false`, because DOMPurify then returns its input
 * unchanged.
 *
 * @example Browser
 * ```ts ignore
 * import DOMPurify from "dompurify";
 * const sanitize = createSanitizer(DOMPurify(window), { mediaBase: "/media/" });
 * sanitize('<a href="javascript:alert(1)" target="_top">x</a>'); // "<a>x</a>"
 * sanitize.counted("<div>Name</div><div>Role</div>");
 * // { html: "Name<br>Role", removed: 2 }
 * ```
 *
 * @example Server (what `server/sanitize/dom.ts` does)
 * ```ts ignore
 * import { JSDOM } from "jsdom";
 * import createDOMPurify from "dompurify";
 * const sanitize = createSanitizer(createDOMPurify(new JSDOM("").window));
 * sanitize('<img src="/a.png" width="10" height="20" alt="x">');
 * // '<img src="/a.png" width="10" height="20" alt="x">'
 * ```
 */
export function createSanitizer(
  purify: Purifier,
  options: SanitizerOptions = {},
): Sanitize {
  const state = install(purify);
  const run = (dirty: string | DomElement) => {
    state.options = options;
    state.removed = 0;
    state.gone = new WeakSet();
    const pre = typeof dirty !== "string" || PRE_TAG.test(dirty);
    if (pre) purify.addHook("afterSanitizeElements", preHook);
    try {
      return purify.sanitize(
        dirty,
        typeof dirty === "string"
          ? SANITIZER_POLICY
          : { ...SANITIZER_POLICY, IN_PLACE: true },
      );
    } finally {
      // Hold no node of this document past the call.
      state.el = state.link = null;
      if (pre) purify.removeHook("afterSanitizeElements", preHook);
    }
  };
  const counted = (html: string): SanitizeResult => {
    if (typeof html !== "string") {
      throw new TypeError("sanitize expects a string of HTML");
    }
    const out = run(html) as string;
    return { html: out, removed: countRemoved(purify, state) };
  };
  const sanitize = ((html: string) => counted(html).html) as Sanitize;
  sanitize.counted = counted;
  sanitize.inPlace = (root) => {
    run(root);
    return countRemoved(purify, state);
  };
  return sanitize;
}
