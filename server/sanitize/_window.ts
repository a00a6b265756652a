/**
 * The window the server's DOMPurify instance is created on: jsdom's own,
 * but for what DOMPurify reads of each document it parses.
 *
 * A jsdom `Document` answers every read of a named property (`doc.body`,
 * `doc.documentElement`, `doc.createElement`) by first looking the name up
 * among the document's named elements, which walks the whole document once
 * per change to its images, forms and embedded objects; and
 * `getElementsByTagName("body")[0]` collects every element of the
 * document. DOMPurify does both for each value it parses, before its own
 * walk: two walks over the whole value that decide nothing.
 *
 * Here DOMPurify's `DOMParser` returns a view of the parsed document that
 * holds its document element and body, read with the `Document`
 * prototype's own getters (no named lookup); and its
 * `getElementsByTagName("body")` answers from what the counted parse saw:
 * the one `<body>` the parser created, found among the root's children.
 * Whenever that is not certain (no counted parse, more than one `<body>`,
 * a body moved elsewhere), jsdom answers as before. Everything else is
 * jsdom's, so DOMPurify builds, walks and serializes the same nodes.
 *
 * @module
 */

import { takeParsed } from "./_parse_hook.ts";

const HTML_NS = "http://www.w3.org/1999/xhtml";

/** The part of a jsdom window this reads. */
interface JsdomWindow {
  readonly document: DocumentLike;
  readonly Document: { readonly prototype: object };
  readonly DOMParser: new () => {
    parseFromString(markup: string, type: string): object;
  };
}

/** The part of a jsdom document this reads. */
interface DocumentLike {
  readonly implementation: unknown;
  createElement(tag: string): {
    readonly content?: { readonly ownerDocument: DocumentLike };
  };
  createTextNode(data: string): unknown;
  readonly createNodeIterator: unknown;
  readonly createDocumentFragment: unknown;
  getElementsByTagName(name: string): ArrayLike<unknown>;
}

/** A node, as this reads it. */
interface NodeLike {
  readonly firstChild: NodeLike | null;
  readonly nextSibling: NodeLike | null;
  readonly localName?: string;
  readonly namespaceURI?: string | null;
}

/** What DOMPurify's `DOMParser` returns: the parsed document, viewed. */
class ParsedView {
  constructor(
    /** The jsdom document. */
    readonly document: object,
    /** Its document element, as `document.documentElement` gives it. */
    readonly documentElement: NodeLike | null,
    /** Its body, as `document.body` gives it. */
    readonly body: unknown,
    /**
     * Its only `<body>` element, `null` for none, `undefined` when that is
     * not known for certain.
     */
    readonly onlyBody: NodeLike | null | undefined,
  ) {}
}

/** The getter `name` of `proto` (or of a prototype it inherits from). */
function getter(proto: object | null, name: string): (this: object) => unknown {
  for (let o = proto; o !== null; o = Object.getPrototypeOf(o)) {
    const get = Object.getOwnPropertyDescriptor(o, name)?.get;
    if (get) return get;
  }
  throw new Error(`jsdom's Document has no ${name}`);
}

/**
 * The only `<body>` element of `root`'s document: from the count of the
 * parse that built it (how many `<body>` elements the parser created) and
 * the root's children. `undefined` when that does not settle it.
 */
function onlyBody(
  root: NodeLike | null,
  bodies: number | undefined,
): NodeLike | null | undefined {
  if (bodies === 0) return null;
  if (bodies !== 1 || root === null) return undefined;
  for (let n = root.firstChild; n !== null; n = n.nextSibling) {
    if (n.localName === "body" && n.namespaceURI === HTML_NS) return n;
  }
  return undefined;
}

/**
 * `window` as DOMPurify should see it in the sanitizer worker: the same
 * jsdom window but for its `DOMParser` and the document DOMPurify takes
 * its methods from (see the module doc). Give the result to
 * `createDOMPurify`.
 */
export function purifyWindow(window: unknown): object {
  const win = window as JsdomWindow;
  const proto = win.Document.prototype;
  const documentElementOf = getter(proto, "documentElement");
  const bodyOf = getter(proto, "body");
  const RealParser = win.DOMParser;
  // DOMPurify takes its methods from the inert document of a template.
  const inert = win.document.createElement("template").content!
    .ownerDocument;
  const realGetElementsByTagName = inert.getElementsByTagName;
  function getElementsByTagName(this: unknown, name: string) {
    if (!(this instanceof ParsedView)) {
      return realGetElementsByTagName.call(this, name);
    }
    if (name === "body" && this.onlyBody !== undefined) {
      return this.onlyBody === null ? [] : [this.onlyBody];
    }
    return realGetElementsByTagName.call(this.document, name);
  }
  class ViewingParser {
    parseFromString(markup: string, type: string): ParsedView {
      const document = new RealParser().parseFromString(markup, type);
      const count = takeParsed();
      const root = documentElementOf.call(document) as NodeLike | null;
      return new ParsedView(
        document,
        root,
        bodyOf.call(document),
        count === null ? undefined : onlyBody(root, count.bodies),
      );
    }
  }
  const methods: Record<string, unknown> = {
    implementation: inert.implementation,
    createNodeIterator: inert.createNodeIterator,
    createDocumentFragment: inert.createDocumentFragment,
    getElementsByTagName,
    createElement: (tag: string) => inert.createElement(tag),
    createTextNode: (data: string) => inert.createTextNode(data),
  };
  // `name in document` (DOMPurify's clobbering check) asks the real one.
  const inertView = new Proxy(methods, {
    has: (_, key) => key in (inert as object),
  });
  const documentView = {
    nodeType: 9,
    currentScript: null,
    createElement: (tag: string) =>
      tag === "template"
        ? { content: { ownerDocument: inertView } }
        : win.document.createElement(tag),
  };
  return Object.create(window as object, {
    document: { value: documentView },
    DOMParser: { value: ViewingParser },
  });
}
