/**
 * The DOM as the sanitizer policy reads it: the few members of a browser's
 * or jsdom's nodes that the policy and both engines use. Types only, so the
 * policy and the DOM helpers can share them without importing each other.
 *
 * @module
 */

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
