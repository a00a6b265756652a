/**
 * The parts of the DOM the sanitizer touches, declared structurally so that
 * core type-checks without the DOM lib (Deno's default compiler options; a
 * browser's or jsdom's nodes satisfy them), and the tree walks both engines
 * share: the flattened content of an unwrapped element with the policy's
 * `<br>` rule ({@linkcode flattenUnwrapped}), what the parser put outside
 * the body ({@linkcode outsideBody}) and the leading line feed of a `<pre>`
 * ({@linkcode protectPreNewline}). The DOMPurify engine (`sanitizer.ts`)
 * runs them inside its hooks; the browser's rebuild (`rebuild.ts`) while it
 * builds a clean tree.
 *
 * @example
 * ```ts ignore
 * import { flattenUnwrapped } from "./sanitizer_dom.ts";
 * flattenUnwrapped(div, "body", () => true, () => {}); // [text "Name", null]
 * ```
 *
 * @module
 */

import {
  elementRule,
  HTML_NS,
  isBoundaryTag,
  isSeparated,
} from "./sanitizer_policy.ts";
import type { DomDocument, DomElement, DomNode, DomText } from "./dom_like.ts";

export type {
  DomDocument,
  DomElement,
  DomNode,
  DomParent,
  DomText,
} from "./dom_like.ts";

/**
 * Whether `node` is an element in the HTML namespace (and, given
 * `localName`, one with that tag).
 *
 * @example
 * ```ts ignore
 * isHtmlElement(pre, "pre"); // true
 * isHtmlElement(svg); // false
 * ```
 */
export function isHtmlElement(
  node: DomNode,
  localName?: string,
): node is DomElement {
  const el = node as DomElement;
  return node.nodeType === 1 && el.namespaceURI === HTML_NS &&
    (localName === undefined || el.localName === localName);
}

/** Whitespace-only text, comments and dropped elements do not separate. */
function isTransparent(node: DomNode): boolean {
  return (node.nodeType === 3 && (node as DomText).data.trim() === "") ||
    node.nodeType === 8 || node.nodeType === 7 ||
    (node.nodeType === 1 && !isHtmlElement(node)) ||
    (isHtmlElement(node) && elementRule(node.localName) === "drop");
}

/**
 * Whether the first node from `node` on in direction `step` that is not
 * transparent (whitespace-only text, a comment, a dropped or foreign
 * element) keeps words apart: a boundary tag ({@linkcode isBoundaryTag}),
 * or nothing at all.
 *
 * @example
 * ```ts ignore
 * isBoundary(div.previousSibling, "previousSibling"); // true after a <p>
 * ```
 */
export function isBoundary(
  node: DomNode | null,
  step: "previousSibling" | "nextSibling",
): boolean {
  while (node !== null && isTransparent(node)) node = node[step];
  return node === null ||
    (isHtmlElement(node) && isBoundaryTag(node.localName));
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
