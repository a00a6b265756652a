/**
 * The limits on rich HTML, counted inside the real HTML parser before jsdom
 * parses the value (`server/sanitize/dom.ts`).
 *
 * {@linkcode scanLimits} runs parse5, the parser jsdom itself uses, at the
 * same version and with the same options as jsdom's `DOMParser` (scripting
 * off), over a light tree of plain objects. Two hooks count what it does:
 *
 * - **The tokenizer** counts every attribute name it reads, on start and
 *   end tags, duplicates included, and refuses the moment one tag or the
 *   whole value has too many. It stops attribute floods before the tag is
 *   finished, so no tree is built for them.
 * - **The tree adapter** counts every node the tree builder creates
 *   (elements, comments, text runs; not the implied `<html>`, `<head>` and
 *   `<body>`), including the clones it makes of formatting elements that it
 *   reopens (`<p><b>x</p><p>y`) and their attributes, the attributes that
 *   repeated `<html>`/`<body>` tags merge onto one element, and the depth
 *   of every element it inserts.
 *
 * So every count is what the parser builds (nodes exactly; depth as deep
 * as it ever nests an element, which the adoption agency may later move up)
 * or what its tokenizer reads (attributes), and a refusal comes as soon as
 * a limit is passed: a formatting bomb stops at the node limit, a nesting
 * bomb at the depth limit, an attribute flood at the 101st name.
 *
 * Past a limit it throws an `HttpError`: 413 for the amount of markup
 * (nodes, attributes), 400 for its shape (depth, attributes on one
 * element).
 *
 * @example
 * ```ts ignore
 * import { HTML_LIMITS, scanLimits } from "./limits.ts";
 * scanLimits("<p>ok</p>", HTML_LIMITS); // no error
 * scanLimits("<b>".repeat(300), HTML_LIMITS); // throws HttpError 400
 * ```
 *
 * @module
 */

import {
  defaultTreeAdapter,
  type DefaultTreeAdapterMap,
  type DefaultTreeAdapterTypes,
  Parser,
  type Token,
  Tokenizer,
  type TokenizerOptions,
  type TreeAdapter,
} from "parse5";
import { HttpError } from "../http/mod.ts";

/** Limits on the shape of rich HTML; past one, the save is refused. */
export interface HtmlLimits {
  /** Attributes on one element (start or end tag). Default 100. */
  readonly attributesPerElement: number;
  /** Attributes in the whole value. Default 20,000. */
  readonly attributes: number;
  /**
   * Elements, comments and text runs the parser creates. Default 9,000:
   * the worst accepted value (a wide unwrap) then sanitizes in about 230 ms.
   */
  readonly nodes: number;
  /** Nesting depth of elements. Default 256 (browsers flatten past 512). */
  readonly depth: number;
}

/** The default {@linkcode HtmlLimits}. */
export const HTML_LIMITS: HtmlLimits = Object.freeze({
  attributesPerElement: 100,
  attributes: 20_000,
  nodes: 9_000,
  depth: 256,
});

type Node = DefaultTreeAdapterTypes.Node;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type Element = DefaultTreeAdapterTypes.Element;
/** An element with its depth when it was inserted. */
type Counted = Element & { depth?: number };

const HTML_NS = "http://www.w3.org/1999/xhtml";
/** The elements every document has; the limits do not charge them. */
const IMPLIED = new Set(["html", "head", "body"]);

/** The running counts of one value, and the refusals past its limits. */
class Counter {
  nodes = 0;
  attributes = 0;
  /** Attribute names read in the tag being tokenized. */
  tagAttributes = 0;
  /** Whether the tree builder moved a node after inserting it. */
  moved = false;
  /**
   * The attributes of the start tag being handled, which the tokenizer has
   * charged: the first element made from them is free; an element made
   * from an earlier tag's attributes is a reopened clone, charged again.
   */
  charged: unknown = null;
  /** Template contents, to walk up from them to their template. */
  readonly hosts = new WeakMap<Node, Element>();

  constructor(readonly limits: HtmlLimits) {}

  node(): void {
    if (++this.nodes > this.limits.nodes) {
      throw new HttpError(
        413,
        `rich HTML too complex: over ${this.limits.nodes} nodes`,
      );
    }
  }

  addAttributes(count: number): void {
    this.attributes += count;
    if (this.attributes > this.limits.attributes) {
      throw new HttpError(
        413,
        `rich HTML too complex: over ${this.limits.attributes} attributes`,
      );
    }
  }

  onElement(count: number): void {
    if (count > this.limits.attributesPerElement) {
      throw new HttpError(
        400,
        `rich HTML too complex: over ${this.limits.attributesPerElement} attributes on one element`,
      );
    }
  }

  /** Refuses a depth past the limit. */
  depth(depth: number): void {
    if (depth > this.limits.depth) {
      throw new HttpError(
        400,
        `rich HTML too complex: nested over ${this.limits.depth} deep`,
      );
    }
  }

  /**
   * Elements from `node` up to the document (template contents count).
   * Until the parser first moves a node, each element's depth is fixed when
   * it is inserted, and its parent's is known; after a move, the path is
   * walked.
   */
  depthOf(node: Counted): number {
    if (!this.moved) {
      const parent = node.parentNode as Node;
      const above = "tagName" in parent
        ? parent
        : parent.nodeName === "#document-fragment"
        ? this.hosts.get(parent)
        : undefined;
      return node.depth = ((above as Counted | undefined)?.depth ?? 0) + 1;
    }
    let depth = 0;
    for (let n: Node | null | undefined = node; n;) {
      if ("tagName" in n) depth++;
      n = "parentNode" in n
        ? n.parentNode
        : n.nodeName === "#document-fragment"
        ? this.hosts.get(n)
        : null;
    }
    return depth;
  }

  /** Checks the depth of the finished tree (after the parser moved nodes). */
  treeDepth(root: ParentNode): void {
    const stack: [Node, number][] = [[root, 0]];
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!;
      const children = "childNodes" in node ? node.childNodes : [];
      for (const child of children) {
        if (!("tagName" in child)) continue;
        this.depth(depth + 1);
        stack.push([child, depth + 1]);
        if (child.tagName === "template" && "content" in child) {
          stack.push([child.content, depth + 1]);
        }
      }
    }
  }
}

/** The tokenizer, counting the attribute names it reads. */
class CountingTokenizer extends Tokenizer {
  constructor(
    options: TokenizerOptions,
    handler: Parser<DefaultTreeAdapterMap>,
    private readonly counter: Counter,
  ) {
    super(options, handler);
  }

  protected override _createStartTagToken(): void {
    super._createStartTagToken();
    this.counter.tagAttributes = 0;
    this.counter.charged = (this.currentToken as Token.TagToken).attrs;
  }

  protected override _createEndTagToken(): void {
    super._createEndTagToken();
    this.counter.tagAttributes = 0;
  }

  protected override _createAttr(attrNameFirstCh: string): void {
    const counter = this.counter;
    counter.onElement(++counter.tagAttributes);
    counter.addAttributes(1);
    super._createAttr(attrNameFirstCh);
  }
}

/** parse5's default tree, with every creation and insertion counted. */
function countingAdapter(
  counter: Counter,
): TreeAdapter<DefaultTreeAdapterMap> {
  const base = defaultTreeAdapter;
  const inserted = (node: Node) => {
    if ("tagName" in node) counter.depth(counter.depthOf(node));
  };
  return {
    ...base,
    createElement(tagName, namespaceURI, attrs) {
      if (namespaceURI !== HTML_NS || !IMPLIED.has(tagName)) counter.node();
      // A reopened clone carries its attributes again.
      if (attrs === counter.charged) counter.charged = null;
      else counter.addAttributes(attrs.length);
      const element: Counted = base.createElement(tagName, namespaceURI, attrs);
      element.depth = 0;
      return element;
    },
    createCommentNode(data) {
      counter.node();
      return base.createCommentNode(data);
    },
    appendChild(parent, node) {
      base.appendChild(parent, node);
      inserted(node);
    },
    insertBefore(parent, node, reference) {
      base.insertBefore(parent, node, reference);
      inserted(node);
    },
    detachNode(node) {
      counter.moved = true;
      base.detachNode(node);
    },
    insertText(parent, text) {
      const before = parent.childNodes.length;
      base.insertText(parent, text);
      if (parent.childNodes.length > before) counter.node();
    },
    insertTextBefore(parent, text, reference) {
      const before = parent.childNodes.length;
      base.insertTextBefore(parent, text, reference);
      if (parent.childNodes.length > before) counter.node();
    },
    setTemplateContent(template, content) {
      counter.hosts.set(content, template);
      base.setTemplateContent(template, content);
    },
    adoptAttributes(recipient, attrs) {
      // Repeated <html> and <body> tags merge onto one element.
      base.adoptAttributes(recipient, attrs);
      counter.onElement(recipient.attrs.length);
    },
  };
}

/**
 * Throws an `HttpError` (413 or 400) when parsing `html` builds more than
 * `limits` allow. Parses `html` once with parse5 (what jsdom would build),
 * and stops at the first limit passed.
 *
 * @example
 * ```ts ignore
 * import { HTML_LIMITS, scanLimits } from "./limits.ts";
 * scanLimits('<p a=1 b="2">x</p>', HTML_LIMITS); // fine
 * ```
 */
export function scanLimits(html: string, limits: HtmlLimits): void {
  const counter = new Counter(limits);
  // As jsdom's DOMParser parses: a document without scripting.
  const parser = new Parser<DefaultTreeAdapterMap>({
    treeAdapter: countingAdapter(counter),
    scriptingEnabled: false,
  });
  parser.tokenizer = new CountingTokenizer(parser.options, parser, counter);
  parser.tokenizer.write(html, true);
  // Moves (the adoption agency, foster parenting) only shorten paths, but
  // the finished tree is checked once more all the same.
  if (counter.moved) counter.treeDepth(parser.document);
}
