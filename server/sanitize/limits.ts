/**
 * The limits on rich HTML, checked by one linear scan of the string before
 * any parser sees it (`server/sanitize/dom.ts` then lets jsdom parse once).
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
 * import { HTML_LIMITS, scanLimits } from "./limits.ts";
 * scanLimits("<p>ok</p>", HTML_LIMITS); // no error
 * scanLimits("<b>".repeat(300), HTML_LIMITS); // throws HttpError 400
 * ```
 *
 * @module
 */

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
/** Start tags for which the parser may insert a missing table part. */
const TABLE_PARTS = new Set(["col", "tr", "td", "th"]);
/** Start tags that clear the stack back to a table context. */
const TABLE_STARTS = new Set([
  "caption",
  "col",
  "colgroup",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
]);
/** Table elements whose content is table structure. */
const TABLE_CONTEXT = new Set(["table", "tbody", "tfoot", "thead", "tr"]);
/** Elements inside which table start tags are content again (or stop). */
const CELL_CONTEXT = new Set(["caption", "html", "td", "template", "th"]);
/** Table sections, the parents of rows. */
const SECTIONS = new Set(["tbody", "thead", "tfoot"]);
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
/** SVG elements whose content is parsed as HTML again. */
const SVG_INTEGRATION = new Set(["desc", "foreignobject", "title"]);
/** MathML elements whose content (but `<mglyph>`, `<malignmark>`) is HTML. */
const MATH_TEXT = new Set(["mi", "mn", "mo", "ms", "mtext"]);
/** The parser's "special" HTML elements: unknown end tags stop at them. */
const SPECIAL = new Set([
  "address",
  "applet",
  "area",
  "article",
  "aside",
  "base",
  "basefont",
  "bgsound",
  "blockquote",
  "body",
  "br",
  "button",
  "caption",
  "center",
  "col",
  "colgroup",
  "dd",
  "details",
  "dir",
  "div",
  "dl",
  "dt",
  "embed",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "frame",
  "frameset",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "head",
  "header",
  "hgroup",
  "hr",
  "html",
  "iframe",
  "img",
  "input",
  "keygen",
  "li",
  "link",
  "listing",
  "main",
  "marquee",
  "menu",
  "meta",
  "nav",
  "noembed",
  "noframes",
  "noscript",
  "object",
  "ol",
  "p",
  "param",
  "plaintext",
  "pre",
  "script",
  "search",
  "section",
  "select",
  "source",
  "style",
  "summary",
  "table",
  "tbody",
  "td",
  "template",
  "textarea",
  "tfoot",
  "th",
  "thead",
  "title",
  "tr",
  "track",
  "ul",
  "wbr",
  "xmp",
]);
/** The parser's default scope: end tags do not look past these. */
const SCOPE = new Set([
  "applet",
  "caption",
  "html",
  "marquee",
  "object",
  "table",
  "td",
  "template",
  "th",
]);
const LIST_SCOPE = new Set([...SCOPE, "ol", "ul"]);
const BUTTON_SCOPE = new Set([...SCOPE, "button"]);
const TABLE_SCOPE = new Set(["html", "table", "template"]);
/** End tags looked up in table scope (past cells and rows). */
const TABLE_ENDS = new Set([
  "caption",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
]);
/** End tags the parser closes in default scope (or ignores). */
const BLOCK_ENDS = new Set([
  "address",
  "applet",
  "article",
  "aside",
  "blockquote",
  "button",
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
  "header",
  "hgroup",
  "listing",
  "main",
  "marquee",
  "menu",
  "nav",
  "object",
  "ol",
  "pre",
  "search",
  "section",
  "select",
  "summary",
  "template",
  "ul",
]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Elements that start a new list of formatting elements to reopen. */
const MARKERS = new Set([
  "applet",
  "caption",
  "marquee",
  "object",
  "td",
  "template",
  "th",
]);
/** Start tags the parser acts on inside a `<select>` (others: ignored). */
const IN_SELECT = new Set([
  "hr",
  "html",
  "input",
  "keygen",
  "optgroup",
  "option",
  "script",
  "select",
  "template",
  "textarea",
]);
/** Start tags that end an open `<select>` before they are handled. */
const ENDS_SELECT = new Set(["input", "keygen", "select", "textarea"]);

interface Open {
  name: string;
  /** Its namespace: "html", "svg" or "math". */
  ns: string;
  /** Whether its content is parsed as HTML (also true for HTML elements). */
  html: boolean;
  /** Attributes on its start tag (a reopened clone carries them too). */
  attributes: number;
}

/** Foreign elements that bound the parser's scopes. */
const isForeignSpecial = (open: Open) =>
  open.ns === "svg"
    ? SVG_INTEGRATION.has(open.name)
    : MATH_TEXT.has(open.name) || open.name === "annotation-xml";

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
 * import { HTML_LIMITS, scanLimits } from "./limits.ts";
 * scanLimits('<p a=1 b="2">x</p>', HTML_LIMITS); // fine
 * ```
 */
export function scanLimits(html: string, limits: HtmlLimits): void {
  // A <frameset> may replace the body (then nothing after it is raw text)
  // or be ignored: when one occurs, both readings are counted.
  if (!scan(html, limits, false)) scan(html, limits, true);
}

/**
 * One reading of `html`; returns whether no `<frameset>` start tag could
 * change it. With `framesetMode`, tags after a `<frameset>` read no raw
 * text (but `<noframes>`).
 */
function scan(
  html: string,
  limits: HtmlLimits,
  framesetMode: boolean,
): boolean {
  const n = html.length;
  let sawFrameset = false;
  let formOpen = false; // the parser's form element pointer
  // The first text may split in two: leading whitespace before the body
  // stays outside it (charged once, on the first node).
  let split = 1;
  let inFrameset = false;
  const stack: Open[] = [];
  let nodes = 0;
  let attributes = 0;
  // Formatting elements closed implicitly, which the parser may reopen
  // (at most `depth` of them), and the sum of their attribute counts.
  const reopened: Open[] = [];
  let reopenedAttributes = 0;
  // Attributes of <html> and <body> tags, which the parser merges onto one
  // element each.
  let htmlAttributes = 0;
  let bodyAttributes = 0;

  const countAttributes = (added: number) => {
    attributes += added;
    if (attributes > limits.attributes) {
      throw new HttpError(
        413,
        `rich HTML too complex: over ${limits.attributes} attributes`,
      );
    }
  };
  const perElement = (count: number) => {
    if (count > limits.attributesPerElement) {
      throw new HttpError(
        400,
        `rich HTML too complex: over ${limits.attributesPerElement} attributes on one element`,
      );
    }
  };
  // A node, and a clone of every formatting element that may be reopened
  // before it (charged with its attributes).
  const node = () => {
    nodes += 1 + reopened.length + split;
    split = 0;
    if (nodes > limits.nodes) {
      throw new HttpError(
        413,
        `rich HTML too complex: over ${limits.nodes} nodes`,
      );
    }
    if (reopenedAttributes > 0) countAttributes(reopenedAttributes);
  };
  // Checks the depth of the open elements plus `more` below them.
  const checkDepth = (more = 0) => {
    // html and body sit above the value's elements.
    if (stack.length + more + 2 + reopened.length > limits.depth) {
      throw new HttpError(
        400,
        `rich HTML too complex: nested over ${limits.depth} deep`,
      );
    }
  };
  // Closes the elements above `index`; formatting ones may be reopened.
  const popAbove = (index: number) => {
    for (let k = stack.length - 1; k > index; k--) {
      const open = stack[k];
      if (open.ns === "html" && FORMATTING.has(open.name)) {
        reopened.push(open);
        reopenedAttributes += open.attributes;
      }
    }
    stack.length = index + 1;
  };
  // Closes the element at `index` and those above it.
  const popTo = (index: number) => {
    popAbove(index);
    stack.length = index;
  };
  const htmlMode = () => {
    const top = stack[stack.length - 1];
    return top === undefined || top.html;
  };
  // Index of the last open HTML element named in `names` (one name or a
  // set), looking no further than an element of `scope` (or a foreign scope
  // boundary).
  const inScope = (names: string | Set<string>, scope: Set<string>) => {
    const one = typeof names === "string";
    for (let k = stack.length - 1; k >= 0; k--) {
      const open = stack[k];
      if (
        open.ns === "html" &&
        (one ? open.name === names : (names as Set<string>).has(open.name))
      ) return k;
      if (open.ns === "html" ? scope.has(open.name) : isForeignSpecial(open)) {
        return -1;
      }
    }
    return -1;
  };
  // Index of the last open HTML `names` for <li>, <dd>, <dt>: the search
  // stops at special elements but address, div and p.
  const listItem = (names: Set<string>) => {
    for (let k = stack.length - 1; k >= 0; k--) {
      const open = stack[k];
      if (open.ns === "html" && names.has(open.name)) return k;
      if (
        open.ns === "html"
          ? SPECIAL.has(open.name) && open.name !== "address" &&
            open.name !== "div" && open.name !== "p"
          : isForeignSpecial(open)
      ) return -1;
    }
    return -1;
  };
  // Whether a <select> is open, not hidden by a <template> inside it.
  const selectOpen = () => {
    for (let k = stack.length - 1; k >= 0; k--) {
      if (stack[k].ns !== "html") continue;
      if (stack[k].name === "select") return true;
      if (stack[k].name === "template") return false;
    }
    return false;
  };
  const LI = new Set(["li"]);
  const DTDD = new Set(["dt", "dd"]);
  const CELL = new Set(["td", "th"]);

  // The parser inserts <tbody> and <tr> (and <colgroup> for <col>) that
  // the markup leaves out: charged as nodes and depth.
  const implyOpen = (name: string) => {
    node();
    stack.push({ name, ns: "html", html: true, attributes: 0 });
    checkDepth();
  };
  // In a table (not in a cell), table start tags first close what was
  // foster-parented (its formatting elements reopen later); <table> closes
  // the open table.
  const clearToTable = (name: string) => {
    for (let k = stack.length - 1; k >= 0; k--) {
      const open = stack[k];
      if (open.ns !== "html" || CELL_CONTEXT.has(open.name)) return;
      if (TABLE_CONTEXT.has(open.name)) {
        if (name !== "table") return popAbove(k);
        if (open.name === "table") return popTo(k);
      }
    }
  };
  const impliedTableParts = (name: string) => {
    const top = stack[stack.length - 1];
    if (top === undefined || top.ns !== "html") return;
    if (name === "col") {
      if (top.name === "table") implyOpen("colgroup");
    } else if (name === "tr") {
      if (top.name === "table") implyOpen("tbody");
    } else if (top.name === "table") {
      implyOpen("tbody");
      implyOpen("tr");
    } else if (SECTIONS.has(top.name)) implyOpen("tr");
  };

  const startTag = (
    name: string,
    selfClosing: boolean,
    fontBreaks: boolean,
    attrs: number,
    htmlEncoding = false,
  ): boolean => {
    node();
    const top = stack[stack.length - 1];
    const foreignHere = top !== undefined && top.ns !== "html" &&
      (!top.html ||
        (top.ns === "math" && MATH_TEXT.has(top.name) &&
          (name === "mglyph" || name === "malignmark")) ||
        (top.name === "annotation-xml" && name === "svg"));
    if (foreignHere) {
      if (
        !top.html && (BREAKOUT.has(name) || (name === "font" && fontBreaks))
      ) {
        while (stack.length > 0 && !htmlMode()) stack.pop();
      } else {
        const ns = name === "svg" ? "svg" : name === "math" ? "math" : top.ns;
        const html = ns === "svg"
          ? SVG_INTEGRATION.has(name)
          : MATH_TEXT.has(name) || (name === "annotation-xml" && htmlEncoding);
        if (selfClosing) checkDepth(1);
        else {
          stack.push({ name, ns, html, attributes: attrs });
          checkDepth();
        }
        return false;
      }
    }
    // Their attributes merge onto the one <html> and <body>.
    if (name === "html" || name === "body") {
      perElement(
        name === "html" ? (htmlAttributes += attrs) : (bodyAttributes += attrs),
      );
      return true;
    }
    if (name === "frameset") {
      sawFrameset = true;
      inFrameset = framesetMode;
    }
    if (
      top?.ns === "html" && /^(select|option|optgroup)$/.test(top.name) &&
      selectOpen()
    ) {
      // Table tags end the select only when it is in a table.
      const ends = ENDS_SELECT.has(name) ||
        (TABLE_ENDS.has(name) &&
          stack.some((o) => o.ns === "html" && o.name === "table"));
      if (!IN_SELECT.has(name) && !ends) return false;
      if (!ends && name !== "script" && name !== "template") {
        // <option>, <optgroup> and <hr> end an open option (and optgroup).
        if (stack[stack.length - 1].name === "option") stack.pop();
        if (name !== "option" && stack[stack.length - 1].name === "optgroup") {
          stack.pop();
        }
        if (name === "hr") checkDepth(1);
        else {
          stack.push({ name, ns: "html", html: true, attributes: attrs });
          checkDepth();
        }
        return true;
      }
      if (ends) {
        const k = inScope("select", TABLE_SCOPE);
        if (k >= 0) popTo(k);
        if (name === "select") return false;
      }
    }
    if (name === "a" || name === "nobr") {
      // A second <a> or <nobr> ends the open one first (adoption).
      for (let k = stack.length - 1; k >= 0; k--) {
        if (stack[k].ns !== "html" || MARKERS.has(stack[k].name)) break;
        if (stack[k].name === name) {
          adopt(k);
          break;
        }
      }
    }
    // Table parts outside a table (or straight in a template) are ignored
    // by the parser.
    if (
      name !== "table" && TABLE_STARTS.has(name) &&
      top?.name !== "template" &&
      !stack.some((o) => o.ns === "html" && TABLE_CONTEXT.has(o.name))
    ) return true;
    // In a frameset only frames count; a second <form> is ignored.
    if (inFrameset && !/^(frameset|frame|noframes)$/.test(name)) return false;
    if (name === "form") {
      const inTemplate = stack.some((o) =>
        o.ns === "html" && o.name === "template"
      );
      if (formOpen && !inTemplate) return true;
      formOpen ||= !inTemplate;
    }
    const implied = name === "li"
      ? listItem(LI)
      : name === "dt" || name === "dd"
      ? listItem(DTDD)
      : name === "td" || name === "th"
      ? inScope(CELL, TABLE_SCOPE)
      : name === "tr"
      ? inScope("tr", TABLE_SCOPE)
      : name === "button"
      ? inScope("button", SCOPE)
      : -1;
    if (implied >= 0) popTo(implied);
    if (TABLE_STARTS.has(name) && name !== "table") {
      // Table parts end an open caption first.
      const caption = inScope("caption", TABLE_SCOPE);
      if (caption >= 0) popTo(caption);
    }
    if (CLOSES_P.has(name)) {
      const p = inScope("p", BUTTON_SCOPE);
      if (p >= 0) popTo(p);
    }
    const current = stack[stack.length - 1];
    if (
      current?.ns === "html" &&
      ((HEADINGS.has(name) && HEADINGS.has(current.name)) ||
        ((name === "option" || name === "optgroup") &&
          current.name === "option"))
    ) stack.pop();
    if (TABLE_STARTS.has(name)) clearToTable(name);
    if (TABLE_PARTS.has(name)) impliedTableParts(name);
    if (VOID.has(name)) {
      checkDepth(1);
      return true;
    }
    const ns = name === "svg" ? "svg" : name === "math" ? "math" : "html";
    stack.push({ name, ns, html: ns === "html", attributes: attrs });
    checkDepth();
    if (selfClosing && ns !== "html") stack.pop();
    return ns === "html";
  };
  // The adoption agency for the formatting element open at `k`: closed
  // when only formatting elements stand above it; otherwise the blocks
  // above it stay open and get clones of it and of the formatting
  // elements between (at most 8 rounds of 1 + 3 clones each, charged as
  // nodes; the stack keeps the element, which over-counts the depth).
  const adopt = (k: number) => {
    let blocks = 0;
    let between = 0;
    let betweenAttributes = 0;
    for (let m = stack.length - 1; m > k; m--) {
      if (stack[m].ns === "html" && FORMATTING.has(stack[m].name)) {
        between++;
        betweenAttributes += stack[m].attributes;
      } else blocks++;
    }
    if (blocks === 0) return popTo(k);
    const rounds = Math.min(8, blocks);
    const clones = rounds * (1 + Math.min(3, between));
    for (let c = 0; c < clones; c++) node();
    countAttributes(rounds * (stack[k].attributes + betweenAttributes));
  };
  const endTag = (name: string) => {
    if (name === "br") {
      startTag("br", false, false, 0);
      return;
    }
    // In foreign content an end tag closes the foreign element it names,
    // else it is handled as in HTML; </p> first leaves foreign content.
    for (let k = stack.length - 1; k >= 0 && stack[k].ns !== "html"; k--) {
      if (stack[k].name === name) return popTo(k);
    }
    if (name === "p") { while (stack.length > 0 && !htmlMode()) stack.pop(); }
    if (name === "html" || name === "body") return; // nothing closes
    if (name === "form") {
      formOpen = false;
      // The parser takes the form off the stack but leaves what is above
      // it open: the scan keeps it (more depth, never less).
      if (stack[stack.length - 1]?.name === "form") stack.pop();
      return;
    }
    if (FORMATTING.has(name)) {
      const k = inScope(name, SCOPE);
      if (k >= 0) return adopt(k);
      // Its end tag ends the latest such element the parser would reopen
      // (unless a marker, e.g. a <template>, hides it).
      const hidden = stack.some((o) => o.ns === "html" && MARKERS.has(o.name));
      for (let m = hidden ? -1 : reopened.length - 1; m >= 0; m--) {
        if (reopened[m].name === name) {
          reopenedAttributes -= reopened[m].attributes;
          reopened.splice(m, 1);
          break;
        }
      }
      return;
    }
    const names = HEADINGS.has(name) ? HEADINGS : name;
    if (
      name === "p" || name === "li" || HEADINGS.has(name) ||
      TABLE_ENDS.has(name) || BLOCK_ENDS.has(name)
    ) {
      const k = inScope(
        names,
        name === "p"
          ? BUTTON_SCOPE
          : name === "li"
          ? LIST_SCOPE
          : TABLE_ENDS.has(name)
          ? TABLE_SCOPE
          : SCOPE,
      );
      if (k >= 0) popTo(k);
      else if (name === "p") {
        node(); // the parser makes an empty <p>
        checkDepth(1);
      }
      return;
    }
    // Any other end tag closes its element unless a special one is nearer.
    for (let k = stack.length - 1; k >= 0; k--) {
      const open = stack[k];
      if (open.ns === "html" && open.name === name) return popTo(k);
      if (
        open.ns === "html" ? SPECIAL.has(open.name) : isForeignSpecial(open)
      ) {
        return;
      }
    }
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

  return !sawFrameset;

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
    let htmlEncoding = false;
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
      countAttributes(1);
      perElement(++count);
      const attrStart = j++;
      while (j < n) {
        const c = html.charCodeAt(j);
        if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
        j++;
      }
      const attrEnd = j;
      if (name === "font") {
        const attr = html.slice(attrStart, j).toLowerCase();
        fontBreaks ||= attr === "color" || attr === "face" || attr === "size";
      }
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      if (html.charCodeAt(j) !== 0x3d) continue;
      j++;
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      const q = html.charCodeAt(j);
      // The value is only read for <annotation-xml encoding>: no slice else.
      let valueStart = j;
      let valueEnd: number;
      if (q === 0x22 || q === 0x27) {
        valueEnd = html.indexOf(q === 0x22 ? '"' : "'", j + 1);
        if (valueEnd === -1) return n;
        valueStart = j + 1;
        j = valueEnd + 1;
      } else {
        while (j < n) {
          const c = html.charCodeAt(j);
          if (isSpace(c) || c === 0x3e) break;
          j++;
        }
        valueEnd = j;
      }
      if (
        name === "annotation-xml" &&
        html.slice(attrStart, attrEnd).toLowerCase() === "encoding"
      ) {
        const encoding = html.slice(valueStart, valueEnd).toLowerCase();
        htmlEncoding ||= encoding === "text/html" ||
          encoding === "application/xhtml+xml";
      }
    }
    if (end) {
      endTag(name);
      return j;
    }
    // A foreign element (e.g. <math><title>) holds no raw text.
    if (!startTag(name, selfClosing, fontBreaks, count, htmlEncoding)) return j;
    if (inFrameset && name !== "noframes") return j; // ignored there
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
