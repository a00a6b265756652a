/**
 * The sanitizer policy of `core/sanitizer_policy.ts` without DOMPurify: the
 * browser's rebuild of a clean tree (the server keeps DOMPurify on jsdom;
 * both give the same string and the same removed count).
 *
 * The dirty HTML is parsed into an inert document (`DOMParser`: no script
 * runs, nothing loads). Its body is walked and a NEW tree is built in
 * another inert document, from the policy's data only: elements of the kept
 * tags (HTML namespace), text nodes, and attributes that pass the policy's
 * checks. Unwrapped elements give their flattened content (with the
 * policy's `<br>` rule for blocks); elements removed with their content,
 * comments and foreign content give nothing. No dirty string is ever
 * assigned to `innerHTML`; the result is the serialization of the built
 * tree, which holds no raw-text element, comment or foreign content.
 *
 * Before the walk, `id` and `name` attributes that would shadow a member
 * of the document or of a form (DOM clobbering) are taken off the parsed
 * document, so every read of it is a real one; the policy never keeps
 * them, so they count as removed as before.
 *
 * @example
 * ```ts ignore
 * import { createRebuild } from "./rebuild.ts";
 * const clean = createRebuild(
 *   (html) => new DOMParser().parseFromString(html, "text/html"),
 *   { mediaBase: "/media/" },
 * );
 * clean('<p onclick="x()">Hi<script>x()</script></p>'); // "<p>Hi</p>"
 * clean.counted("<div>Name</div><div>Role</div>");
 * // { html: "Name<br>Role", removed: 2 }
 * ```
 *
 * @module
 */

import {
  flattenUnwrapped,
  outsideBody,
  protectPreNewline,
} from "./sanitizer_dom.ts";
import {
  elementRule,
  isAllowedAttribute,
  isAllowedImage,
  isBoundaryTag,
  LINK_REL,
  URI_GATE,
} from "./sanitizer_policy.ts";
import type { SanitizeResult, SanitizerOptions } from "./sanitizer.ts";
import { canonicalUrl } from "./url.ts";

/** Parses HTML into an inert document, e.g. with `DOMParser`. */
export type ParseHtml = (html: string) => Document;

/** The policy's sanitizer by rebuilding: dirty HTML in, clean HTML out. */
export interface Rebuild {
  /** Sanitizes an HTML string. */
  (html: string): string;
  /** Sanitizes an HTML string and counts what was removed, as the server. */
  counted(html: string): SanitizeResult;
}

const HTML_NS = "http://www.w3.org/1999/xhtml";
// What DOMPurify strips before its URL gate, and the leading whitespace it
// puts back in front of the body (the parser drops it).
const ATTR_WHITESPACE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0020\u00a0\u1680\u180e\u2000-\u2029\u205f\u3000]/g;
const LEADING_WHITESPACE = /^[\r\n\t ]+/;

interface Walk {
  /** The clean document new nodes are made in. */
  out: Document;
  mediaBase?: string;
  removed: number;
  /** Clobbering `id`/`name` attributes taken off an element beforehand. */
  stripped: WeakMap<Element, number>;
}

/** The real (unshadowable) member `key` of `of`'s prototype chain. */
function real<T>(of: object, key: string): T {
  for (let p = Object.getPrototypeOf(of); p; p = Object.getPrototypeOf(p)) {
    const d = Object.getOwnPropertyDescriptor(p, key);
    if (d) return (d.get ?? d.value) as T;
  }
  throw new TypeError(`no ${key}`);
}

/**
 * Takes off `id` and `name` attributes that shadow a member of the document
 * or of a form, in `root` and in template contents, remembering how many
 * per element.
 */
function unclobber(root: Document | DocumentFragment, walk: Walk): void {
  const probe = walk.out.createElement("form");
  const all = real<(this: ParentNode, s: string) => NodeListOf<Element>>(
    root,
    "querySelectorAll",
  ).call(root, "[id],[name],template");
  const get = real<(this: Element, n: string) => string | null>(
    probe,
    "getAttribute",
  );
  const drop = real<(this: Element, n: string) => void>(
    probe,
    "removeAttribute",
  );
  for (const el of all) {
    for (const name of ["id", "name"]) {
      const value = get.call(el, name);
      if (value !== null && (value in walk.out || value in probe)) {
        drop.call(el, name);
        walk.stripped.set(el, (walk.stripped.get(el) ?? 0) + 1);
      }
    }
    const content = (el as HTMLTemplateElement).content;
    if (el.localName === "template" && content) unclobber(content, walk);
  }
}

/** Whether the built content of `into` ends where words are kept apart. */
function endsAtBoundary(into: Element): boolean {
  let n = into.lastChild;
  while (n !== null && n.nodeType === 3 && (n as Text).data.trim() === "") {
    n = n.previousSibling;
  }
  return n === null || isBoundaryTag((n as Element).localName);
}

/** Builds what the policy keeps of `node` at the end of `into`. */
function visit(node: Node, into: Element, tag: string, walk: Walk): void {
  if (node.nodeType === 3) {
    const text = into.appendChild(
      walk.out.createTextNode((node as Text).data),
    );
    protectPreNewline(text);
    return;
  }
  const el = node as Element;
  if (node.nodeType !== 1 || el.namespaceURI !== HTML_NS) {
    walk.removed++; // comments, processing instructions, foreign content
    return;
  }
  const name = el.localName;
  const rule = elementRule(name);
  if (rule === "unwrap") {
    const flat = flattenUnwrapped(el, tag, () => endsAtBoundary(into), () => {
      walk.removed++;
    });
    for (const item of flat) {
      if (item === null) into.appendChild(walk.out.createElement("br"));
      else visit(item as Node, into, tag, walk);
    }
  } else if (
    rule === "drop" ||
    (name === "img" &&
      !isAllowedImage(
        el.getAttribute("src"),
        el.getAttribute("width"),
        el.getAttribute("height"),
      ))
  ) {
    walk.removed++;
    // DOMPurify also walks a removed template's content: count it too.
    const content = (el as HTMLTemplateElement).content;
    if (name === "template" && content) {
      children(content, walk.out.createElement("div"), "", walk);
    }
  } else {
    const built = into.appendChild(walk.out.createElement(name));
    copyAttributes(el, built, walk);
    children(el, built, name, walk);
  }
}

/** Builds the kept content of every child of `from` into `into`. */
function children(from: Node, into: Element, tag: string, walk: Walk): void {
  for (const child of [...from.childNodes]) visit(child, into, tag, walk);
}

/** Copies the attributes of `from` the policy keeps onto `to` (trimmed). */
function copyAttributes(from: Element, to: Element, walk: Walk): void {
  let removed = walk.stripped.get(from) ?? 0;
  let is = false;
  for (const { name, value: raw } of [...from.attributes]) {
    const value = raw.trim();
    if (
      isAllowedAttribute(from, name, value, walk.mediaBase) &&
      (name === "alt" || value === "" ||
        URI_GATE.test(
          value.replace(ATTR_WHITESPACE, ""),
        ))
    ) {
      // An image's address in its one spelling, as the server writes it.
      to.setAttribute(
        name,
        name === "src" ? canonicalUrl(value) ?? value : value,
      );
    } else {
      removed++;
      is ||= name === "is";
    }
  }
  // Where DOMPurify removes an `is`, it writes an empty one (else the
  // serializer would write the element's original `is` value back). The
  // rebuilt element has no such value; the empty one is written too, so
  // both sides give the same string.
  if (is) to.setAttribute("is", "");
  if (to.localName === "a") {
    if (to.hasAttribute("href")) to.setAttribute("rel", LINK_REL);
    else {
      // A link without an address keeps neither rel nor target.
      if (to.hasAttribute("target")) removed++;
      to.removeAttribute("rel");
      to.removeAttribute("target");
    }
  }
  walk.removed += removed;
}

/**
 * The policy's sanitizer, rebuilding a clean tree from documents that
 * `parse` makes (inert ones: `DOMParser`, or jsdom's in tests). Output and
 * removed count equal the server's (`server/sanitize/pool.ts`, DOMPurify on
 * jsdom) for the same input; HTML without `<` is returned as it is, as
 * there.
 *
 * @example
 * ```ts ignore
 * const clean = createRebuild((html) =>
 *   new DOMParser().parseFromString(html, "text/html")
 * );
 * clean('<a href="javascript:alert(1)" target="_top">x</a>'); // "<a>x</a>"
 * ```
 */
export function createRebuild(
  parse: ParseHtml,
  options: SanitizerOptions = {},
): Rebuild {
  let out: Document | undefined;
  const counted = (html: string): SanitizeResult => {
    if (typeof html !== "string") {
      throw new TypeError("sanitize expects a string of HTML");
    }
    if (!html.includes("<")) return { html, removed: 0 };
    out ??= parse("");
    const walk: Walk = {
      out,
      mediaBase: options.mediaBase,
      removed: 0,
      stripped: new WeakMap(),
    };
    const dirty = parse(html);
    unclobber(dirty, walk);
    const body = dirty.body;
    // A <frameset> replaces the body: nothing is left, one removal.
    if (body?.localName !== "body") return { html: "", removed: 1 };
    walk.removed += outsideBody(body) + body.attributes.length +
      (walk.stripped.get(body) ?? 0);
    const root = out.createElement("div");
    const lead = LEADING_WHITESPACE.exec(html);
    if (lead) root.appendChild(out.createTextNode(lead[0]));
    children(body, root, "body", walk);
    return { html: root.innerHTML, removed: walk.removed };
  };
  const rebuild = ((html: string) => counted(html).html) as Rebuild;
  rebuild.counted = counted;
  return rebuild;
}
