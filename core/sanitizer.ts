/**
 * The one sanitizer for rich fields, shared by the browser (paste
 * cleaning, the rich text editor) and the server (the save endpoint, through
 * `server/sanitize/pool.ts` on jsdom): the policy of `sanitizer_policy.ts`
 * installed on DOMPurify as a configuration ({@linkcode SANITIZER_POLICY})
 * and a few hooks, which unwrap elements with the walks of
 * `sanitizer_dom.ts`.
 *
 * This module is pure: it touches no DOM and no Deno API until a sanitizer
 * runs, and importing it does nothing. The caller brings a DOMPurify
 * instance bound to a window. It re-exports the policy's data and rules and
 * the DOM walks, so one import gives the whole sanitizer.
 *
 * What the policy keeps, unwraps and drops, and which attributes and URLs
 * it admits, is declared and described in `sanitizer_policy.ts`.
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

import {
  type DomDocument,
  type DomElement,
  type DomNode,
  type DomText,
  flattenUnwrapped,
  isBoundary,
  isHtmlElement,
  protectPreNewline,
} from "./sanitizer_dom.ts";
import {
  elementRule,
  isAllowedImage,
  isAllowedOn,
  KEPT_TAGS,
  keptAttributes,
  LINK_REL,
  SANITIZER_POLICY,
  type SanitizerPolicy,
} from "./sanitizer_policy.ts";
export { isAllowedUrl, LINK_SCHEMES } from "./url.ts";
import { canonicalUrl } from "./url.ts";
export {
  type DomDocument,
  type DomElement,
  type DomNode,
  type DomParent,
  type DomText,
  flattenUnwrapped,
  outsideBody,
  protectPreNewline,
} from "./sanitizer_dom.ts";
export {
  DROPPED_WITH_CONTENT,
  type ElementRule,
  elementRule,
  isAllowedAttribute,
  isAllowedImage,
  isAllowedSrcset,
  isBoundaryTag,
  isSeparated,
  KEPT_TAGS,
  LINK_REL,
  MAX_IMAGE_SIDE,
  SANITIZER_POLICY,
  type SanitizerPolicy,
  SEPARATED_TAGS,
  URI_GATE,
} from "./sanitizer_policy.ts";

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
    parent.insertBefore(child ?? createBr(node.ownerDocument), next);
  }
  parent.removeChild(node);
}

/**
 * A `<br>` of `doc`, made with the `createElement` of its prototype: jsdom
 * answers a read of a property on the document itself (`doc.createElement`)
 * by looking the name up among the document's named elements first, a walk
 * of the whole document after each change to its images.
 */
function createBr(doc: DomDocument): DomElement {
  return (Object.getPrototypeOf(doc) as DomDocument).createElement.call(
    doc,
    "br",
  );
}

/**
 * {@linkcode outsideBody} for a body DOMPurify walks, read from the body's
 * side without reading a property of the document itself (see
 * {@linkcode createBr}): its document's root, the root's other children
 * and the root's siblings.
 */
function outsideBodyOf(body: DomElement): number {
  const root = body.parentNode as DomElement | null;
  if (
    root === null || root.parentNode !== body.ownerDocument ||
    !isHtmlElement(root, "html")
  ) return 0;
  let count = 0;
  let head: DomElement | null = null;
  let first = true;
  for (let n = root.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 8) count++;
    else if (!isHtmlElement(n)) continue;
    else if (head === null && n.localName === "head") head = n;
    else if (first && (n.localName === "body" || n.localName === "frameset")) {
      // The document's body is the root's first body or frameset.
      if (n !== body) return 0;
      first = false;
    }
  }
  for (const step of ["previousSibling", "nextSibling"] as const) {
    for (let n = root[step]; n !== null; n = n[step]) {
      if (n.nodeType === 8) count++;
    }
  }
  return count + (head?.childNodes.length ?? 0);
}

interface InstanceState {
  options: SanitizerOptions;
  /** Removals the hooks made that DOMPurify does not record. */
  removed: number;
  /**
   * Nodes the hooks removed; DOMPurify's attribute records on them are
   * moot. Emptied after each call (no node is held past it).
   */
  readonly gone: Set<DomNode>;
  /** The element whose attributes are being judged, and its kept names. */
  el: DomElement | null;
  kept: ReadonlySet<string> | undefined;
  /** The `<a>` with an attribute the policy may keep, being judged. */
  link: DomElement | null;
  /** The `<body>` the walk started from, when it visited one. */
  body: DomElement | null;
}

// Attribute names some tag keeps; DOMPurify's `ALLOWED_ATTR` (the same
// names) removes any other, so the attribute hook need not look at the tag.
const SOME_TAG_KEEPS =
  /* @__PURE__ */ (() => new Set<string>(SANITIZER_POLICY.ALLOWED_ATTR))();
const LINK_ATTRS = /* @__PURE__ */ keptAttributes("a");
// What the element hook leaves to DOMPurify at once: kept tags but <img>
// (judged as a whole); text and comments, whose names start with `#`.
const FAST_KEPT =
  /* @__PURE__ */ (() =>
    new Set<string>(KEPT_TAGS.filter((tag) => tag !== "img")))();
// A root-relative path already in the one spelling `canonicalUrl` gives:
// segments of unreserved characters, none empty, `.` or `..` (each starts
// with a character other than a dot), no query or fragment. Most images'
// `src` look like this, and skip the URL parser.
const CANONICAL_PATH = /^(?:\/[\w~-][\w.~-]*)+\/?$/;
// A `<pre>` element comes only from a `<pre` start tag in the markup.
const PRE_TAG = /<pre/i;

const installed = new WeakMap<Purifier, InstanceState>();

// Registered only while a value that may hold a `<pre>` is sanitized: a
// hook on every node costs a call per node.
const preHook = (node: DomNode) => {
  if (node.nodeType === 3) protectPreNewline(node as DomText);
};

// The element hook: a bad <img> goes entirely, an unwrapped element gives
// way to its flattened content, and the body counts what the parser put
// outside it. Everything else is DOMPurify's.
function elementHook(state: InstanceState) {
  return (node: DomNode, data: ElementHookEvent) => {
    if (state.link !== null) fixLink(state);
    // Text and comments (`#text`, `#comment`: most nodes, told by their
    // first character without hashing a new string), and kept tags but
    // <img>: DOMPurify decides alone.
    const name = data.tagName;
    if (name.charCodeAt(0) === 35 || FAST_KEPT.has(name)) return;
    if (!isHtmlElement(node)) return; // text, comments, foreign: DOMPurify's
    const tag = node.localName;
    if (tag === "body") {
      state.body = node;
      state.removed += outsideBodyOf(node);
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
  };
}

// The attribute hook: the policy's per-tag rules on top of DOMPurify's
// `ALLOWED_ATTR` and URL gate.
function attributeHook(state: InstanceState) {
  return (node: DomElement, event: AttributeHookEvent) => {
    const name = event.attrName;
    if (!SOME_TAG_KEEPS.has(name)) return; // DOMPurify removes it
    if (node !== state.el) { // the tag is read once per element
      state.el = node;
      state.kept = keptAttributes(node.localName);
      // Fixed once its attributes are judged (see `fixLink`).
      if (state.kept === LINK_ATTRS) state.link = node;
    }
    const value = event.attrValue;
    if (!isAllowedOn(state.kept, node, name, value, state.options.mediaBase)) {
      event.keepAttr = false;
    } else {
      // As judged (trimmed); an image's address in its one spelling, so
      // media cleanup sees every use of an upload.
      event.attrValue = name !== "src" || CANONICAL_PATH.test(value)
        ? value
        : canonicalUrl(value) ?? value;
    }
  };
}

// A link whose attributes are judged: one with an address gets the
// policy's `rel`; one without keeps neither `rel` nor `target`. Run from
// the element hook of the next node DOMPurify visits (every attribute of
// the link is judged by then), or after the walk for a link that is the
// last node: a hook after every element's attributes costs a call per
// element.
function fixLink(state: InstanceState): void {
  const node = state.link!;
  state.link = null;
  if (!isHtmlElement(node)) return;
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

function install(purify: Purifier): InstanceState {
  const existing = installed.get(purify);
  if (existing) return existing;
  if (!purify.isSupported) {
    throw new Error("DOMPurify is not supported by this window");
  }
  const state: InstanceState = {
    options: {},
    removed: 0,
    gone: new Set(),
    el: null,
    kept: undefined,
    link: null,
    body: null,
  };
  purify.addHook("uponSanitizeElement", elementHook(state));
  purify.addHook("uponSanitizeAttribute", attributeHook(state));
  installed.set(purify, state);
  return state;
}

/**
 * Removals DOMPurify recorded, less attribute records on removed nodes;
 * empties `state.gone`.
 */
function countRemoved(purify: Purifier, state: InstanceState): number {
  const removed = purify.removed ?? [];
  const gone = state.gone;
  if (gone.size === 0) return state.removed + removed.length;
  let count = state.removed;
  for (const item of removed) {
    const from = (item as { from?: DomNode }).from;
    if (from === undefined || !gone.has(from)) count++;
  }
  gone.clear();
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
    state.gone.clear(); // after a call that threw
    const pre = typeof dirty !== "string" || PRE_TAG.test(dirty);
    if (pre) purify.addHook("afterSanitizeElements", preHook);
    try {
      const out = purify.sanitize(
        dirty,
        typeof dirty === "string"
          ? SANITIZER_POLICY
          : { ...SANITIZER_POLICY, IN_PLACE: true },
      );
      if (state.link === null) return out;
      // The last node was a link: fixed now, and serialized again.
      fixLink(state);
      return typeof out === "string" && state.body ? state.body.innerHTML : out;
    } finally {
      // Hold no node of this document past the call (the count reads
      // `gone` first).
      state.el = state.link = state.body = null;
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
