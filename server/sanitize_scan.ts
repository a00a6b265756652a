/**
 * The limits on rich HTML, checked by one linear scan of the string before
 * any parser sees it (`server/sanitize_dom.ts` then lets jsdom parse once).
 *
 * The scan follows the HTML tokenizer where it matters for counting (tags,
 * quoted and unquoted attribute values, comments, raw-text elements such as
 * `<script>` and `<textarea>`, foreign content) and keeps a stack of open
 * tags that knows void elements and the common implied end tags (`<p>`,
 * `<li>`, `<dt>`/`<dd>`, table cells and rows, `<option>`). Every count is
 * an upper bound of what the parser builds: formatting elements that the
 * parser may reopen (`<p><b>x</p><p>y`) are charged to every later node
 * and to the depth, so its amplification is refused too.
 *
 * Past a limit it throws an `HttpError`: 413 for the amount of markup
 * (nodes, attributes), 400 for its shape (depth, attributes on one
 * element).
 *
 * @example
 * ```ts ignore
 * import { HTML_LIMITS, scanLimits } from "./sanitize_scan.ts";
 * scanLimits("<p>ok</p>", HTML_LIMITS); // no error
 * scanLimits("<b>".repeat(300), HTML_LIMITS); // throws HttpError 400
 * ```
 *
 * @module
 */

import { HttpError } from "./http.ts";

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

const VOID = new Set([
  "area",
  "base",
  "basefont",
  "bgsound",
  "br",
  "col",
  "embed",
  "frame",
  "hr",
  "img",
  "image",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
/** Elements whose content the tokenizer reads as text up to their end tag. */
const RAW_TEXT = new Set([
  "iframe",
  "noembed",
  "noframes",
  "script",
  "style",
  "textarea",
  "title",
  "xmp",
]);
/** Formatting elements the parser may reopen after an implied end. */
const FORMATTING = new Set([
  "a",
  "b",
  "big",
  "code",
  "em",
  "font",
  "i",
  "nobr",
  "s",
  "small",
  "strike",
  "strong",
  "tt",
  "u",
]);
/** Start tags that close an open `<p>` (quirks mode: not `<table>`). */
const CLOSES_P = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
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
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "li",
  "listing",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "search",
  "section",
  "summary",
  "ul",
  "xmp",
]);
/** Elements that may stand between an implied end and its element. */
const PASSABLE = new Set([
  ...FORMATTING,
  "abbr",
  "address",
  "cite",
  "div",
  "label",
  "mark",
  "p",
  "q",
  "span",
  "sub",
  "sup",
]);
/** HTML start tags that end foreign (SVG, MathML) content. */
const BREAKOUT = new Set([
  "b",
  "big",
  "blockquote",
  "body",
  "br",
  "center",
  "code",
  "dd",
  "div",
  "dl",
  "dt",
  "em",
  "embed",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "head",
  "hr",
  "i",
  "img",
  "li",
  "listing",
  "menu",
  "meta",
  "nobr",
  "ol",
  "p",
  "pre",
  "ruby",
  "s",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "table",
  "tt",
  "u",
  "ul",
  "var",
]);
/** Foreign elements whose content is parsed as HTML again. */
const INTEGRATION = new Set([
  "annotation-xml",
  "desc",
  "foreignobject",
  "mi",
  "mn",
  "mo",
  "ms",
  "mtext",
  "title",
]);

interface Open {
  name: string;
  foreign: boolean;
}

const isSpace = (c: number) =>
  c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
const isAlpha = (c: number) =>
  (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/**
 * Throws an `HttpError` (413 or 400) when parsing `html` could build more
 * than `limits` allow. Linear in the length of `html`.
 *
 * @example
 * ```ts ignore
 * import { HTML_LIMITS, scanLimits } from "./sanitize_scan.ts";
 * scanLimits('<p a=1 b="2">x</p>', HTML_LIMITS); // fine
 * ```
 */
export function scanLimits(html: string, limits: HtmlLimits): void {
  const n = html.length;
  const stack: Open[] = [];
  let nodes = 0;
  let attributes = 0;
  // Formatting elements closed implicitly, which the parser may reopen.
  let lingering = 0;

  const node = () => {
    nodes += 1 + lingering;
    if (nodes > limits.nodes) {
      throw new HttpError(
        413,
        `rich HTML too complex: over ${limits.nodes} nodes`,
      );
    }
  };
  const checkDepth = () => {
    // html and body sit above the value's elements.
    if (stack.length + 2 + lingering > limits.depth) {
      throw new HttpError(
        400,
        `rich HTML too complex: nested over ${limits.depth} deep`,
      );
    }
  };
  const popTo = (index: number) => {
    for (let k = stack.length - 1; k > index; k--) {
      if (!stack[k].foreign && FORMATTING.has(stack[k].name)) lingering++;
    }
    stack.length = index;
  };
  const htmlMode = () => {
    const top = stack[stack.length - 1];
    return top === undefined || !top.foreign || INTEGRATION.has(top.name);
  };
  // Index of the last open `name` with only `passable` elements above it.
  const findOpen = (names: Set<string>, passable: Set<string>) => {
    for (let k = stack.length - 1; k >= 0; k--) {
      const open = stack[k];
      if (!open.foreign && names.has(open.name)) return k;
      if (open.foreign || !passable.has(open.name)) return -1;
    }
    return -1;
  };
  const P = new Set(["p"]);
  const LI = new Set(["li"]);
  const DTDD = new Set(["dt", "dd"]);
  const CELL = new Set(["td", "th"]);
  const ROW = new Set(["tr"]);

  const startTag = (
    name: string,
    selfClosing: boolean,
    fontBreaks: boolean,
  ) => {
    node();
    if (!htmlMode()) {
      if (BREAKOUT.has(name) || (name === "font" && fontBreaks)) {
        while (stack.length > 0 && !htmlMode()) stack.pop();
      } else {
        if (!selfClosing) {
          stack.push({ name, foreign: true });
          checkDepth();
        }
        return;
      }
    }
    if (CLOSES_P.has(name)) {
      const p = findOpen(P, PASSABLE);
      if (p >= 0) popTo(p);
    }
    const implied = name === "li"
      ? findOpen(LI, PASSABLE)
      : name === "dt" || name === "dd"
      ? findOpen(DTDD, PASSABLE)
      : name === "td" || name === "th"
      ? findOpen(CELL, PASSABLE)
      : name === "tr"
      ? findOpen(ROW, CELL)
      : name === "option" && stack[stack.length - 1]?.name === "option"
      ? stack.length - 1
      : -1;
    if (implied >= 0) popTo(implied);
    if (VOID.has(name)) return;
    stack.push({ name, foreign: name === "svg" || name === "math" });
    checkDepth();
    if (selfClosing && stack[stack.length - 1].foreign) stack.pop();
  };
  const endTag = (name: string) => {
    if (name === "br") return startTag("br", false, false);
    for (let k = stack.length - 1; k >= 0; k--) {
      if (stack[k].name === name) return popTo(k);
    }
    if (name === "p") node(); // the parser makes an empty <p>
    else if (FORMATTING.has(name) && lingering > 0) lingering--;
  };

  let bangClose = 0; // where the next "--!>" starts, or -1 for none
  let i = 0;
  while (i < n) {
    const lt = html.indexOf("<", i);
    if (lt === -1) {
      node();
      break;
    }
    if (lt > i) node();
    const c = html.charCodeAt(lt + 1);
    if (isAlpha(c) || (c === 0x2f && isAlpha(html.charCodeAt(lt + 2)))) {
      i = tag(lt);
    } else if (c === 0x2f && html.charCodeAt(lt + 2) === 0x3e) {
      i = lt + 3; // "</>" is ignored
    } else if (html.startsWith("<!--", lt)) {
      node();
      if (html.startsWith(">", lt + 4)) i = lt + 5;
      else if (html.startsWith("->", lt + 4)) i = lt + 6;
      else {
        const a = html.indexOf("-->", lt + 4);
        // Searched again only when passed: a missing "--!>" costs one scan.
        if (bangClose !== -1 && bangClose < lt + 4) {
          bangClose = html.indexOf("--!>", lt + 4);
        }
        const b = bangClose;
        if (a === -1 && b === -1) break;
        i = a === -1 || (b !== -1 && b < a) ? b + 4 : a + 3;
      }
    } else if (!htmlMode() && html.startsWith("<![CDATA[", lt)) {
      node();
      const end = html.indexOf("]]>", lt + 9);
      if (end === -1) break;
      i = end + 3;
    } else if (c === 0x21 || c === 0x3f || c === 0x2f) {
      node(); // a bogus comment, up to the next ">"
      const end = html.indexOf(">", lt + 2);
      if (end === -1) break;
      i = end + 1;
    } else {
      node(); // a "<" that starts no tag is text
      i = lt + 1;
    }
  }

  /** Scans the tag at `lt`; returns the index after it (`n` at the end). */
  function tag(lt: number): number {
    const end = html.charCodeAt(lt + 1) === 0x2f;
    let j = end ? lt + 2 : lt + 1;
    const nameStart = j;
    while (j < n) {
      const ch = html.charCodeAt(j);
      if (isSpace(ch) || ch === 0x2f || ch === 0x3e) break;
      j++;
    }
    const name = html.slice(nameStart, j).toLowerCase();
    let count = 0;
    let selfClosing = false;
    let fontBreaks = false;
    for (;;) {
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      if (j >= n) return n; // the parser drops a tag cut off by the end
      const ch = html.charCodeAt(j);
      if (ch === 0x3e) {
        j++;
        break;
      }
      if (ch === 0x2f) {
        j++;
        if (html.charCodeAt(j) === 0x3e) {
          selfClosing = true;
          j++;
          break;
        }
        continue;
      }
      // An attribute name (its first character may be "=").
      if (++attributes > limits.attributes) {
        throw new HttpError(
          413,
          `rich HTML too complex: over ${limits.attributes} attributes`,
        );
      }
      if (++count > limits.attributesPerElement) {
        throw new HttpError(
          400,
          `rich HTML too complex: over ${limits.attributesPerElement} attributes on one element`,
        );
      }
      const attrStart = j++;
      while (j < n) {
        const c = html.charCodeAt(j);
        if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
        j++;
      }
      if (name === "font") {
        const attr = html.slice(attrStart, j).toLowerCase();
        fontBreaks ||= attr === "color" || attr === "face" || attr === "size";
      }
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      if (html.charCodeAt(j) !== 0x3d) continue;
      j++;
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      const q = html.charCodeAt(j);
      if (q === 0x22 || q === 0x27) {
        const close = html.indexOf(html[j], j + 1);
        if (close === -1) return n;
        j = close + 1;
      } else {
        while (j < n) {
          const c = html.charCodeAt(j);
          if (isSpace(c) || c === 0x3e) break;
          j++;
        }
      }
    }
    if (end) {
      endTag(name);
      return j;
    }
    const wasHtml = htmlMode();
    startTag(name, selfClosing, fontBreaks);
    if (!wasHtml && !htmlMode()) return j;
    if (name === "plaintext") {
      if (j < n) node();
      return n;
    }
    if (!RAW_TEXT.has(name)) return j;
    // Raw text up to "</name" followed by a space, "/" or ">".
    const closer = new RegExp(`</${name}[\\t\\n\\f\\r />]`, "ig");
    closer.lastIndex = j;
    const found = closer.exec(html);
    if (found === null) {
      if (j < n) node();
      return n;
    }
    if (found.index > j) node();
    return found.index; // the end tag is scanned as a tag
  }
}
