/**
 * The server's sanitize pipeline, run inside the sanitizer worker
 * (`server/sanitize_worker.ts`): one parse, bounded, then the shared policy
 * from `core/sanitizer.ts` by DOMPurify on jsdom.
 *
 * 1. **Parse once, with limits.** parse5 (the parser inside jsdom) builds a
 *    light tree and counts as it goes: attributes per element and in total
 *    (counted by the tokenizer before its duplicate check, which is
 *    quadratic in the attributes of one tag), nodes and nesting depth.
 *    Going past a limit stops the parse at once with an `HttpError`: 413
 *    for the amount of markup (nodes, attributes), 400 for its shape
 *    (depth, attributes on one element).
 * 2. **Structure in one linear pass.** Comments and dropped elements are
 *    left out, unwrapped elements are spliced into their parent (with the
 *    policy's `<br>` separators), and only kept elements become jsdom
 *    nodes, built bottom-up with appends only. jsdom's insert and remove
 *    cost grows with the siblings and ancestors of the node, so the policy
 *    never unwraps inside jsdom.
 * 3. **DOMPurify in place** on the built `<body>`, with the same hooks as in
 *    the browser (attributes, links, images), then serialize.
 *
 * @example
 * ```ts ignore
 * import { createDomSanitizer } from "./sanitize_dom.ts";
 * const sanitize = await createDomSanitizer();
 * sanitize("<div>Name</div><div>Role</div>"); // { html: "Name<br>Role", removed: 2 }
 * ```
 *
 * @module
 */

import type { WindowLike } from "dompurify";
import type { DefaultTreeAdapterMap, TreeAdapter } from "parse5";
import type * as Parse5 from "parse5";
import { HttpError } from "./http.ts";
import {
  createSanitizer,
  elementRule,
  isBoundaryTag,
  isSeparated,
  type SanitizeResult,
  type SanitizerOptions,
} from "../core/sanitizer.ts";

/** Limits on the shape of rich HTML; past one, the save is refused. */
export interface HtmlLimits {
  /** Attributes on one element (start or end tag). Default 100. */
  readonly attributesPerElement: number;
  /** Attributes in the whole value. Default 20,000. */
  readonly attributes: number;
  /** Elements, comments and text runs the parser creates. Default 10,000. */
  readonly nodes: number;
  /** Nesting depth of elements. Default 256 (browsers flatten past 512). */
  readonly depth: number;
}

/** The default {@linkcode HtmlLimits}. */
export const HTML_LIMITS: HtmlLimits = Object.freeze({
  attributesPerElement: 100,
  attributes: 20_000,
  nodes: 10_000,
  depth: 256,
});

type Map5 = DefaultTreeAdapterMap;
type Node5 = Map5["childNode"];
type Element5 = Map5["element"];
type Parent5 = Map5["parentNode"];

const HTML_NS = "http://www.w3.org/1999/xhtml";

/** Sanitizes one value: clean HTML and the count of removals. */
export type DomSanitize = (
  html: string,
  options?: SanitizerOptions,
  limits?: HtmlLimits,
) => SanitizeResult;

/**
 * Loads jsdom, DOMPurify and parse5 and returns the synchronous pipeline.
 * It throws an `HttpError` (413 or 400) past the limits and `TypeError` for a
 * non-string.
 */
export async function createDomSanitizer(): Promise<DomSanitize> {
  const [{ JSDOM }, { default: createDOMPurify }, parse5] = await Promise.all([
    import("jsdom"),
    import("dompurify"),
    import("parse5"),
  ]);
  const { window } = new JSDOM("<!DOCTYPE html>");
  const document = window.document as Document;
  const purify = createDOMPurify(window as unknown as WindowLike);
  const sanitizers = new Map<
    string | undefined,
    ReturnType<typeof createSanitizer>
  >();
  const sanitizerFor = (options: SanitizerOptions) => {
    let s = sanitizers.get(options.mediaBase);
    if (!s) {
      s = createSanitizer(purify, options);
      sanitizers.set(options.mediaBase, s);
    }
    return s;
  };
  return (html, options = {}, limits = HTML_LIMITS) => {
    if (typeof html !== "string") {
      throw new TypeError("sanitizeHtml expects a string of HTML");
    }
    // Without markup there is nothing to parse; DOMPurify returns it as is.
    if (!html.includes("<")) return { html, removed: 0 };
    const { body, removedByParse } = parseBounded(parse5, html, limits);
    const built = new Builder(document);
    const root = document.createElement("body");
    // The parser drops leading whitespace before <body>; DOMPurify keeps it.
    const leading = /^[\r\n\t ]+/.exec(html);
    if (leading) root.appendChild(document.createTextNode(leading[0]));
    for (const node of built.children(body, "body")) root.appendChild(node);
    const removed = sanitizerFor(options).inPlace(root);
    return {
      html: root.innerHTML,
      removed: removedByParse + built.removed + removed,
    };
  };
}

function parseBounded(
  parse5: typeof Parse5,
  html: string,
  limits: HtmlLimits,
): { body: Element5; removedByParse: number } {
  const parser = new parse5.Parser({
    treeAdapter: countingAdapter(parse5.defaultTreeAdapter, limits),
    scriptingEnabled: false, // as DOMParser, which DOMPurify uses
  });
  // Count attributes as the tokenizer starts each one, before its duplicate
  // check (a scan of the tag's attributes so far).
  const tokenizer = parser.tokenizer as unknown as {
    currentToken: { attrs: unknown[] };
    _createAttr(this: unknown, first: string): void;
  };
  const createAttr = tokenizer._createAttr;
  if (typeof createAttr !== "function") {
    throw new Error("parse5 changed: no tokenizer _createAttr to count");
  }
  let attributes = 0;
  tokenizer._createAttr = function (first) {
    if (++attributes > limits.attributes) {
      throw new HttpError(
        413,
        `rich HTML too complex: over ${limits.attributes} attributes`,
      );
    }
    if (tokenizer.currentToken.attrs.length >= limits.attributesPerElement) {
      throw new HttpError(
        400,
        `rich HTML too complex: over ${limits.attributesPerElement} attributes on one element`,
      );
    }
    createAttr.call(this, first);
  };
  parser.tokenizer.write(html, true);
  const doc = parser.document;
  const htmlEl = doc.childNodes.find((n) => n.nodeName === "html") as Element5;
  const head = htmlEl.childNodes.find((n) => n.nodeName === "head") as Element5;
  let body = htmlEl.childNodes.find((n) => n.nodeName === "body") as
    | Element5
    | undefined;
  // A <frameset> early in the value replaces the body (and what preceded
  // it): an empty body, the frameset counted as removed.
  const frameset = body === undefined ? 1 : 0;
  body ??= parse5.defaultTreeAdapter.createElement(
    "body",
    parse5.html.NS.HTML,
    [],
  );
  // Elements the parser put in <head> (a leading <style>, <title>, <meta>).
  const removedByParse = frameset + head.childNodes.length +
    doc.childNodes.filter((n) => n.nodeName === "#comment").length +
    htmlEl.childNodes.filter((n) => n.nodeName === "#comment").length;
  return { body, removedByParse };
}

/** parse5's default tree adapter, counting what it builds against the limits. */
function countingAdapter(
  base: TreeAdapter<Map5>,
  limits: HtmlLimits,
): TreeAdapter<Map5> {
  const depths = new WeakMap<object, number>();
  let nodes = 0;
  const count = () => {
    if (++nodes > limits.nodes) {
      throw new HttpError(
        413,
        `rich HTML too complex: over ${limits.nodes} nodes`,
      );
    }
  };
  const place = (parent: object, node: object) => {
    const depth = (depths.get(parent) ?? 0) + 1;
    if (depth > limits.depth) {
      throw new HttpError(
        400,
        `rich HTML too complex: nested over ${limits.depth} deep`,
      );
    }
    depths.set(node, depth);
  };
  return {
    ...base,
    createElement(tagName, namespaceURI, attrs) {
      count();
      return base.createElement(tagName, namespaceURI, attrs);
    },
    createCommentNode(data) {
      count();
      return base.createCommentNode(data);
    },
    appendChild(parent, node) {
      place(parent, node);
      base.appendChild(parent, node);
    },
    insertBefore(parent, node, reference) {
      place(parent, node);
      base.insertBefore(parent, node, reference);
    },
    insertText(parent, text) {
      const last = parent.childNodes[parent.childNodes.length - 1];
      if (last?.nodeName !== "#text") count();
      base.insertText(parent, text);
    },
    insertTextBefore(parent, text, reference) {
      count();
      base.insertTextBefore(parent, text, reference);
    },
  };
}

/** One output item: a jsdom node, and whether it holds visible text. */
interface Item {
  node: Node;
  text: boolean;
}

/**
 * Builds jsdom nodes from the parse5 tree with the policy's element rules:
 * kept elements are created, unwrapped ones spliced into their parent,
 * dropped ones and comments left out. Appends only, bottom-up.
 */
class Builder {
  removed = 0;
  #doc: Document;

  constructor(doc: Document) {
    this.#doc = doc;
  }

  /** The built children of `parent`, whose tag is `parentTag`. */
  children(parent: Parent5, parentTag: string): Node[] {
    return this.#items(parent, parentTag).map((item) => item.node);
  }

  #items(parent: Parent5, parentTag: string): Item[] {
    const out: Item[] = [];
    const raw = parent.childNodes;
    for (let i = 0; i < raw.length; i++) {
      const child = raw[i];
      if (child.nodeName === "#text") {
        const value = (child as Map5["textNode"]).value;
        out.push({
          node: this.#doc.createTextNode(value),
          text: value.trim() !== "",
        });
        continue;
      }
      if (child.nodeName === "#comment") {
        this.removed++;
        continue;
      }
      const el = child as Element5;
      const rule = el.namespaceURI === HTML_NS
        ? elementRule(el.tagName)
        : "drop";
      if (rule === "drop") {
        this.removed++;
      } else if (rule === "keep") {
        out.push(this.#element(el));
      } else {
        this.removed++;
        this.#unwrap(el, parentTag, out, raw, i);
      }
    }
    return out;
  }

  #element(el: Element5): Item {
    const node = this.#doc.createElement(el.tagName);
    for (const attr of el.attrs) {
      if (attr.namespace) {
        this.removed++; // xlink:href and friends: never on HTML elements
        continue;
      }
      try {
        node.setAttribute(attr.name, attr.value);
      } catch {
        this.removed++; // a name the DOM refuses is no admitted attribute
      }
    }
    // A template's content lives elsewhere; templates are dropped anyway.
    let text = false;
    for (const item of this.#items(el, el.tagName)) {
      node.appendChild(item.node);
      text ||= item.text;
    }
    return { node, text };
  }

  #unwrap(
    el: Element5,
    parentTag: string,
    out: Item[],
    siblings: Node5[],
    index: number,
  ): void {
    const inner = this.#items(el, el.tagName);
    const content = inner.some((item) => item.text);
    let before = false;
    let after = false;
    if (isSeparated(el.tagName, parentTag)) {
      before = !this.#boundaryBefore(out);
      after = !boundaryAfter(siblings, index);
    }
    const br = (): Item => ({
      node: this.#doc.createElement("br"),
      text: false,
    });
    if (before && (content || after)) out.push(br());
    for (const item of inner) out.push(item);
    if (after && content) out.push(br());
  }

  #boundaryBefore(out: Item[]): boolean {
    for (let i = out.length - 1; i >= 0; i--) {
      const node = out[i].node;
      if (node.nodeType === 3) {
        if ((node as Text).data.trim() === "") continue;
        return false;
      }
      return isBoundaryTag((node as Element).localName);
    }
    return true;
  }
}

/** Whether the next significant raw sibling keeps words apart by itself. */
function boundaryAfter(siblings: Node5[], index: number): boolean {
  for (let i = index + 1; i < siblings.length; i++) {
    const node = siblings[i];
    if (node.nodeName === "#text") {
      if ((node as Map5["textNode"]).value.trim() === "") continue;
      return false;
    }
    if (node.nodeName === "#comment") continue;
    const el = node as Element5;
    if (el.namespaceURI !== HTML_NS || elementRule(el.tagName) === "drop") {
      continue;
    }
    return isBoundaryTag(el.tagName);
  }
  return true;
}
