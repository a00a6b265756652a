/**
 * The limits on rich HTML, counted inside the real HTML parser: parse5, the
 * parser jsdom itself uses. The sanitizer counts inside jsdom's own parse
 * (`_parse_hook.ts`); {@linkcode scanLimits} runs parse5 over its light tree
 * of plain objects, with the same options as jsdom's `DOMParser` (scripting
 * off), where that hook can't run. Two hooks count what the parser does:
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
  type html,
  Parser,
  type ParserOptions,
  type Token,
  Tokenizer,
  type TokenizerOptions,
  type TreeAdapter,
  type TreeAdapterTypeMap,
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

/** Any tree's node, as a tree adapter hands it around. */
type AnyNode = object;
/** A tree adapter over any tree: parse5's light one, or jsdom's DOM. */
type Adapter = TreeAdapter<ObjectTree>;
/** Every node type of a tree, as objects. */
type ObjectTree = TreeAdapterTypeMap<
  AnyNode,
  AnyNode,
  AnyNode,
  AnyNode,
  AnyNode,
  AnyNode,
  AnyNode,
  AnyNode,
  AnyNode,
  AnyNode
>;

type NS = html.NS;
const HTML_NS = "http://www.w3.org/1999/xhtml" as NS;
/** The elements every document has; the limits do not charge them. */
const IMPLIED = new Set(["html", "head", "body"]);

/** The running counts of one value, and the refusals past its limits. */
export class LimitCount {
  nodes = 0;
  attributes = 0;
  /** Attribute names read in the tag being tokenized. */
  tagAttributes = 0;
  /** Whether the tree builder moved a node after inserting it. */
  moved = false;
  /** Whether a parse counted into this (see `countedParse`). */
  engaged = false;
  /** The first limit passed, once one is. */
  refusal: HttpError | null = null;
  /**
   * Elements named `body` the parser created, in any namespace (one `<body>`
   * but in a frameset document).
   */
  bodies = 0;
  /**
   * The attributes of the start tag being handled, which the tokenizer has
   * charged: the first element made from them is free; an element made
   * from an earlier tag's attributes is a reopened clone, charged again.
   */
  charged: unknown = null;
  /** Template contents, to walk up from them to their template. */
  readonly hosts = new Map<AnyNode, AnyNode>();
  /**
   * While nothing moved: the element inserted last and the nodes above it
   * (template contents lead to their template), from the top; and the
   * depth of each (elements among it and above it).
   */
  private chain: AnyNode[] = [];
  private chainDepths: number[] = [];

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

  /** The node above `node`: its parent, or a template content's template. */
  above(tree: Adapter, node: AnyNode): AnyNode | null {
    return tree.getParentNode(node) ?? this.hosts.get(node) ?? null;
  }

  /**
   * Elements from `element`, just inserted into `parent`, up to the
   * document (template contents count). Until the parser first moves a
   * node, the chain of the element inserted last gives its parent's depth
   * (no lookup per element); after a move, the path is walked.
   */
  depthOf(tree: Adapter, element: AnyNode, parent: AnyNode): number {
    if (!this.moved) {
      // The parser inserts into the element it inserted last or one above
      // it, which is found on the chain; else the chain is walked anew.
      const chain = this.chain;
      let i = chain.length - 1;
      while (i >= 0 && chain[i] !== parent) i--;
      if (i < 0) i = this.rechain(tree, parent);
      const depth = this.chainDepths[i] + 1;
      chain.length = this.chainDepths.length = i + 1;
      chain.push(element);
      this.chainDepths.push(depth);
      return depth;
    }
    let depth = 0;
    for (let n: AnyNode | null = element; n; n = this.above(tree, n)) {
      if (tree.isElementNode(n)) depth++;
    }
    return depth;
  }

  /** Sets the chain to `node` and the nodes above it; `node`'s index. */
  private rechain(tree: Adapter, node: AnyNode): number {
    const chain: AnyNode[] = [];
    for (let n: AnyNode | null = node; n; n = this.above(tree, n)) {
      chain.push(n);
    }
    chain.reverse();
    let depth = 0;
    this.chainDepths = chain.map((n) => depth += tree.isElementNode(n) ? 1 : 0);
    this.chain = chain;
    return chain.length - 1;
  }

  /** Checks the depth of the finished tree (after the parser moved nodes). */
  treeDepth(tree: Adapter, root: AnyNode): void {
    const stack: [AnyNode, number][] = [[root, 0]];
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!;
      for (const child of tree.getChildNodes(node)) {
        if (!tree.isElementNode(child)) continue;
        this.depth(depth + 1);
        stack.push([child, depth + 1]);
        if (tree.getTagName(child) === "template") {
          stack.push([tree.getTemplateContent(child), depth + 1]);
        }
      }
    }
  }
}

/** The tokenizer, counting the attribute names it reads. */
class CountingTokenizer extends Tokenizer {
  constructor(
    options: TokenizerOptions,
    handler: Parser<ObjectTree>,
    private readonly count: LimitCount,
  ) {
    super(options, handler);
  }

  protected override _createStartTagToken(): void {
    super._createStartTagToken();
    this.count.tagAttributes = 0;
    this.count.charged = (this.currentToken as Token.TagToken).attrs;
  }

  protected override _createEndTagToken(): void {
    super._createEndTagToken();
    this.count.tagAttributes = 0;
  }

  protected override _createAttr(attrNameFirstCh: string): void {
    const count = this.count;
    count.onElement(++count.tagAttributes);
    count.addAttributes(1);
    super._createAttr(attrNameFirstCh);
  }
}

/** The last child of `parent` (jsdom's nodes know it; parse5's list them). */
function lastChild(parent: AnyNode): AnyNode | null {
  const last = (parent as { lastChild?: AnyNode | null }).lastChild;
  if (last !== undefined) return last;
  const children = (parent as { childNodes: AnyNode[] }).childNodes;
  return children[children.length - 1] ?? null;
}

/** The node before `node` among its siblings. */
function previous(tree: Adapter, node: AnyNode): AnyNode | null {
  const before = (node as { previousSibling?: AnyNode | null })
    .previousSibling;
  if (before !== undefined) return before;
  const siblings = tree.getChildNodes(tree.getParentNode(node)!);
  return siblings[siblings.indexOf(node) - 1] ?? null;
}

/** `tree`'s methods, each bound to `tree`, as a plain object. */
function bound(tree: Adapter): Adapter {
  const methods: Record<string, unknown> = {};
  for (
    let o: object | null = tree;
    o && o !== Object.prototype;
    o = Object.getPrototypeOf(o)
  ) {
    for (const name of Object.getOwnPropertyNames(o)) {
      const value = (tree as unknown as Record<string, unknown>)[name];
      if (name in methods || typeof value !== "function") continue;
      if (name !== "constructor") methods[name] = value.bind(tree);
    }
  }
  return methods as unknown as Adapter;
}

// Adapter methods that only read an element's own tag, namespace or
// attributes, which parse5 calls most: they see nothing of a text run.
const TEXT_BLIND = new Set(["getTagName", "getNamespaceURI", "getAttrList"]);

/** The text held for one parent until the tree builder's next call. */
class TextRun {
  parent: AnyNode | null = null;
  text = "";
  constructor(private readonly tree: Adapter) {}

  /** Inserts the held text, if any. */
  flush(): void {
    if (this.parent === null) return;
    const parent = this.parent;
    this.parent = null;
    this.tree.insertText(parent, this.text);
  }
}

/** `adapter` with each method (but `TEXT_BLIND`) ending `run` first. */
function flushingFirst(adapter: Adapter, run: TextRun): Adapter {
  const methods = adapter as unknown as Record<
    string,
    (a: unknown, b: unknown, c: unknown, d: unknown) => unknown
  >;
  for (const name of Object.keys(methods)) {
    if (TEXT_BLIND.has(name)) continue;
    const method = methods[name];
    // Four parameters, the most any adapter method takes: no array of
    // arguments per call.
    methods[name] = (a, b, c, d) => {
      if (run.parent !== null) run.flush();
      return method(a, b, c, d);
    };
  }
  return adapter;
}

/** A counting tree adapter, and what ends its last text run. */
interface CountingAdapter {
  readonly adapter: Adapter;
  /** Inserts the text run still held, if any. */
  flush(): void;
}

/**
 * `tree` with every creation and insertion counted into `count`. Each of
 * its methods runs on `tree` itself (jsdom's adapter keeps private state).
 *
 * Text is handed on once per run: parse5 calls `insertText` once per
 * character token (a word, then the space after it), and jsdom appends each
 * to the text node with a mutation record and a new string. The run is held
 * until any other adapter call (but the reads in `TEXT_BLIND`), so the tree
 * builder never sees the tree without it, and jsdom builds the same nodes.
 */
function countingAdapter(count: LimitCount, tree: Adapter): CountingAdapter {
  const run = new TextRun(tree);
  const flush = () => run.flush();
  const wrapped = flushingFirst(bound(tree), run);
  const inserted = (parent: AnyNode, node: AnyNode) => {
    if (tree.isElementNode(node)) {
      count.depth(count.depthOf(tree, node, parent));
    }
  };
  const adapter = Object.assign(wrapped, {
    createElement(tagName: string, namespaceURI: NS, attrs: Token.Attribute[]) {
      flush();
      if (tagName === "body") count.bodies++;
      if (namespaceURI !== HTML_NS || !IMPLIED.has(tagName)) count.node();
      // A reopened clone carries its attributes again.
      if (attrs === count.charged) count.charged = null;
      else count.addAttributes(attrs.length);
      return tree.createElement(tagName, namespaceURI, attrs);
    },
    createCommentNode(data: string) {
      flush();
      count.node();
      return tree.createCommentNode(data);
    },
    appendChild(parent: AnyNode, node: AnyNode) {
      flush();
      tree.appendChild(parent, node);
      inserted(parent, node);
    },
    insertBefore(parent: AnyNode, node: AnyNode, reference: AnyNode) {
      flush();
      tree.insertBefore(parent, node, reference);
      inserted(parent, node);
    },
    detachNode(node: AnyNode) {
      flush();
      count.moved = true;
      tree.detachNode(node);
    },
    // Both adapters append text to a text node it follows, else create
    // one: the run is counted as one node unless the parent ends in text.
    insertText(parent: AnyNode, text: string) {
      if (run.parent === parent) {
        run.text += text;
        return;
      }
      flush();
      const last = lastChild(parent);
      if (last === null || !tree.isTextNode(last)) count.node();
      run.parent = parent;
      run.text = text;
    },
    insertTextBefore(parent: AnyNode, text: string, reference: AnyNode) {
      flush();
      const before = previous(tree, reference);
      if (before === null || !tree.isTextNode(before)) count.node();
      tree.insertTextBefore(parent, text, reference);
    },
    setTemplateContent(template: AnyNode, content: AnyNode) {
      flush();
      count.hosts.set(content, template);
      tree.setTemplateContent(template, content);
    },
    adoptAttributes(recipient: AnyNode, attrs: Token.Attribute[]) {
      flush();
      // Repeated <html> and <body> tags merge onto one element.
      tree.adoptAttributes(recipient, attrs);
      count.onElement(tree.getAttrList(recipient).length);
    },
  });
  return { adapter, flush };
}

/**
 * Runs parse5's document parse of `html` as `Parser.parse` does, with the
 * counting tokenizer and tree adapter over `options.treeAdapter` (parse5's
 * light tree when none is given), and records the first limit passed in
 * `count.refusal` instead of throwing: the parse stops there and the
 * document is left empty but for its root element (so a caller such as
 * DOMPurify has nothing to work on and does not try another parser).
 */
export function countedParse(
  ParserClass: typeof Parser,
  html: string,
  options: Partial<ParserOptions<ObjectTree>> | undefined,
  count: LimitCount,
): unknown {
  count.engaged = true;
  const tree = (options?.treeAdapter ?? defaultTreeAdapter) as Adapter;
  const counting = countingAdapter(count, tree);
  const parser = new ParserClass<ObjectTree>({
    ...options,
    treeAdapter: counting.adapter,
  });
  parser.tokenizer = new CountingTokenizer(parser.options, parser, count);
  try {
    parser.tokenizer.write(html, true);
    counting.flush();
    // Moves (the adoption agency, foster parenting) only shorten paths, but
    // the finished tree is checked once more all the same.
    if (count.moved) count.treeDepth(tree, parser.document);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    count.refusal = error;
    // What was built is dropped, so whoever parsed has nothing to work on.
    const document = parser.document;
    for (const node of tree.getChildNodes(document)) tree.detachNode(node);
    tree.appendChild(document, tree.createElement("html", HTML_NS, []));
  }
  return parser.document;
}

/**
 * Throws an `HttpError` (413 or 400) when parsing `html` builds more than
 * `limits` allow. Parses `html` once with parse5 over its light tree (what
 * jsdom would build), and stops at the first limit passed. The sanitizer
 * counts inside jsdom's own parse instead (`server/sanitize/_parse_hook.ts`);
 * this stands alone, for tests and benchmarks and where the hook can't run.
 *
 * @example
 * ```ts ignore
 * import { HTML_LIMITS, scanLimits } from "./limits.ts";
 * scanLimits('<p a=1 b="2">x</p>', HTML_LIMITS); // fine
 * ```
 */
export function scanLimits(html: string, limits: HtmlLimits): void {
  const count = new LimitCount(limits);
  // As jsdom's DOMParser parses: a document without scripting.
  countedParse(Parser, html, { scriptingEnabled: false }, count);
  if (count.refusal) throw count.refusal;
}
