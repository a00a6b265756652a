/**
 * Property test: the limit count (`server/sanitize/limits.ts`, parse5 with a
 * counting tokenizer and tree adapter) never counts less than what jsdom's
 * HTML parser actually builds from the same string, and counts nodes
 * exactly.
 *
 * fast-check generates markup as a sequence of tokens: nested and misnested
 * tags, formatting elements the parser reopens (`<p><b a>x</p><p>y`),
 * tables (foster parenting), attributes with quotes, `>` and `=` in values,
 * raw-text elements, comments (`<!-->`, `<!--->`, `--!>`), bogus comments,
 * CDATA, SVG and MathML with HTML islands, entities, `<template>`, and
 * `<html>`/`<body>` tags whose attributes the parser merges.
 *
 * For each dimension the limit is set just below what the parser built (the
 * others unlimited): the count must refuse. So it is at least the parser's,
 * for elements and other nodes, attributes on one element, attributes in
 * total, and depth. With the node limit set to what the parser built, the
 * count must accept (but after a `<frameset>`, which throws away the body
 * the parser built): nodes are counted as they are created, no more.
 * Attributes are counted as the tokenizer reads them (end tags and repeated
 * names too) and depth as deep as the parser ever nests an element (the
 * adoption agency can later move it up), so those two may count more.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { JSDOM } from "jsdom";
import {
  type HtmlLimits,
  scanLimits,
} from "../../../server/sanitize/limits.ts";
import { HttpError } from "../../../server/http/pipeline.ts";
import { createDomSanitizer } from "../../../server/sanitize/dom.ts";

const RUNS = Number(Deno.env.get("CMS_PROPERTY_RUNS") ?? 400);
const SEED = Number(Deno.env.get("CMS_PROPERTY_SEED") ?? 0x5ca4);

const { window } = new JSDOM("");
const parser = new window.DOMParser();

/** What the parser built, counted as the limits define it. */
interface Built {
  nodes: number;
  attributes: number;
  attributesPerElement: number;
  depth: number;
}

/** Counts the tree jsdom builds for `html` (DOMPurify parses it this way). */
function built(html: string): Built {
  const doc = parser.parseFromString(html, "text/html");
  const counts: Built = {
    nodes: 0,
    attributes: 0,
    attributesPerElement: 0,
    depth: 0,
  };
  // Bounded by the tree's size, which the generator bounds.
  const walk = (parent: Node, depth: number) => {
    for (let n = parent.firstChild; n !== null; n = n.nextSibling) {
      if (n.nodeType === 10) continue; // a doctype is no content
      counts.nodes++;
      if (n.nodeType !== 1) continue;
      const el = n as Element;
      const attrs = el.attributes.length;
      counts.attributes += attrs;
      counts.attributesPerElement = Math.max(
        counts.attributesPerElement,
        attrs,
      );
      counts.depth = Math.max(counts.depth, depth + 1);
      walk(el, depth + 1);
      const content = (el as HTMLTemplateElement).content;
      if (el.localName === "template" && content) walk(content, depth + 1);
    }
  };
  walk(doc, 0);
  // The implied html, head and body the limits do not charge.
  for (const el of [doc.documentElement, doc.head, doc.body]) {
    if (el) counts.nodes--;
  }
  return counts;
}

const UNLIMITED: HtmlLimits = {
  attributesPerElement: Infinity,
  attributes: Infinity,
  nodes: Infinity,
  depth: Infinity,
};

/** Whether the scan refuses `html` under `limits`. */
function refuses(html: string, limits: HtmlLimits): boolean {
  try {
    scanLimits(html, limits);
    return false;
  } catch (error) {
    if (error instanceof HttpError) return true;
    throw error;
  }
}

// ------------------------------------------------------------- generator --

const TAGS = [
  "p",
  "b",
  "i",
  "a",
  "em",
  "strong",
  "code",
  "font",
  "nobr",
  "u",
  "s",
  "span",
  "div",
  "li",
  "ul",
  "ol",
  "dl",
  "dt",
  "dd",
  "table",
  "caption",
  "colgroup",
  "col",
  "thead",
  "tbody",
  "tr",
  "td",
  "th",
  "select",
  "option",
  "optgroup",
  "h1",
  "h2",
  "pre",
  "listing",
  "form",
  "button",
  "br",
  "img",
  "hr",
  "input",
  "svg",
  "math",
  "mi",
  "mtext",
  "annotation-xml",
  "foreignObject",
  "desc",
  "title",
  "path",
  "template",
  "script",
  "style",
  "textarea",
  "xmp",
  "iframe",
  "noscript",
  "plaintext",
  "frameset",
  "html",
  "body",
  "head",
  "ruby",
  "rt",
  "rp",
  "marquee",
  "object",
  "applet",
  "image",
  "frame",
  "keygen",
];

const attrName = fc.constantFrom(
  "a",
  "b",
  "href",
  "class",
  "color",
  "face",
  "size",
  "x:y",
  "=",
  '"q',
  "'",
  "encoding",
);
const attrValue = fc.constantFrom(
  "",
  "=x",
  '="a b"',
  "='a>b'",
  '="x\'y"',
  "=a>b",
  "= 'c'",
  '="text/html"',
  '="</p>"',
);
const attribute = fc.tuple(attrName, attrValue).map(([n, v]) => ` ${n}${v}`);
const attributes = fc.array(attribute, { maxLength: 4 }).map((a) => a.join(""));

const startTag = fc.tuple(
  fc.constantFrom(...TAGS),
  attributes,
  fc.constantFrom("", "", "/", " /"),
  fc.boolean(),
).map(([t, a, close, upper]) => `<${upper ? t.toUpperCase() : t}${a}${close}>`);
const endTag = fc.tuple(fc.constantFrom(...TAGS), attributes).map(
  ([t, a]) => `</${t}${a}>`,
);
const text = fc.constantFrom(
  "x",
  " ",
  "a b",
  "&amp;",
  "&lt;b&gt;",
  "&notin;",
  "&#x3c;",
  "<",
  "< p",
  "a<3",
  ">",
  "\n",
  "</",
  "</>",
  "<-",
  "\u0000",
);
const comment = fc.constantFrom(
  "<!--c-->",
  "<!---->",
  "<!-->",
  "<!--->",
  "<!--a--!>",
  "<!--a--!-->",
  "<!-- <b> -->",
  "<!--",
  "<!x>",
  "<?xml:namespace prefix = o ?>",
  "<![CDATA[x]]>",
  "<![CDATA[<b>",
  "</ x>",
  "</3>",
);
const rawText = fc.tuple(
  fc.constantFrom("script", "style", "textarea", "title", "xmp", "iframe"),
  fc.constantFrom("x", "<b>", "</scrip", "<!--", "</p>", ""),
  fc.constantFrom("", ">", " >", "/>", "x>"),
).map(([t, body, end]) => `<${t}>${body}</${t}${end}`);

const token = fc.oneof(
  { arbitrary: startTag, weight: 6 },
  { arbitrary: endTag, weight: 3 },
  { arbitrary: text, weight: 3 },
  { arbitrary: comment, weight: 1 },
  { arbitrary: rawText, weight: 1 },
);
// Repeats make reopened formatting elements pile up, as attacks do.
const markup = fc.array(
  fc.tuple(fc.array(token, { minLength: 1, maxLength: 6 }), fc.nat(3)).map((
    [run, times],
  ) => run.join("").repeat(times + 1)),
  { minLength: 1, maxLength: 12 },
).map((runs) => runs.join(""));

const DIMENSIONS = [
  "nodes",
  "attributes",
  "attributesPerElement",
  "depth",
] as const;

/** Asserts the scan refuses `html` with each limit just below the parse. */
function assertUpperBound(html: string): void {
  const counts = built(html);
  for (const dimension of DIMENSIONS) {
    // The implied <html> and <body> are always 2 deep: depth limits start
    // at the value's own elements.
    if (counts[dimension] <= (dimension === "depth" ? 2 : 0)) continue;
    const limits = { ...UNLIMITED, [dimension]: counts[dimension] - 1 };
    assert.ok(
      refuses(html, limits),
      `the scan counts fewer ${dimension} than the parser builds ` +
        `(${counts[dimension]}) for ${JSON.stringify(html)}`,
    );
  }
}

/** Asserts the count accepts `html` with the node limit at the parse's. */
function assertExactNodes(html: string): void {
  if (/<frameset/i.test(html)) return;
  const { nodes } = built(html);
  assert.ok(
    !refuses(html, { ...UNLIMITED, nodes }),
    `the scan counts more nodes than the parser builds (${nodes}) for ` +
      JSON.stringify(html),
  );
}

Deno.test("the limit count never counts less than jsdom's parser builds, and nodes exactly", () => {
  fc.assert(
    fc.property(markup, (html) => {
      assertUpperBound(html);
      assertExactNodes(html);
    }),
    {
      seed: SEED,
      numRuns: RUNS,
    },
  );
});

const pipeline = await createDomSanitizer();

/** The refusal `run` throws, as status and text; "" when it passes. */
function verdict(run: () => unknown): string {
  try {
    run();
    return "";
  } catch (error) {
    if (error instanceof HttpError) return `${error.status} ${error.message}`;
    throw error;
  }
}

Deno.test("the sanitizer counts inside jsdom's own parse, with the scan's verdicts", () => {
  assert.ok(pipeline.countsInParse, "jsdom's parse is counted");
  fc.assert(
    fc.property(markup, (html) => {
      // Without markup the sanitizer parses nothing (the value is text).
      if (!html.includes("<")) return;
      const counts = built(html);
      const limitSets = [
        UNLIMITED,
        ...DIMENSIONS.map((dimension) => ({
          ...UNLIMITED,
          [dimension]: Math.max(0, counts[dimension] - 1),
        })),
      ];
      for (const limits of limitSets) {
        assert.equal(
          verdict(() => pipeline(html, {}, limits)),
          verdict(() => scanLimits(html, limits)),
          JSON.stringify(html),
        );
      }
    }),
    { seed: SEED, numRuns: Math.ceil(RUNS / 2) },
  );
});

Deno.test("the scan's known hard cases are upper bounds", () => {
  const cases = [
    // Reopened formatting elements carry their attributes along.
    "<p><b a b c>x</p>" + "<p>y".repeat(20),
    "<b><i><u>x<p>y</b>z</p>",
    // Attributes of repeated <html>/<body> tags merge onto one element.
    "<body a>x<body b><body c>",
    '<html a><html b="1"><p>x',
    // Foster parenting and implied table structure.
    "<table>a<tr>b<td>c</table>",
    "<table><td>x<td>y<tr><th>z",
    // Foreign content with HTML islands.
    "<svg><foreignObject><p>x<b>y</svg>z",
    "<math><mi><b>x</b></mi><mtext><i>y",
    '<svg><font color="r">x</font></svg>',
    // Comments and raw text.
    "<!--a--!><p>b<!--->c<script>x</script d><p>",
    "<template><p>x<td>y</template>z",
    "<select><option>a<option>b<optgroup><option>c</select>",
    // As jsdom's DOMParser: scripting off, so <noscript> holds elements.
    "<noscript><p>x<b>y</noscript>z",
    // Repeated names and end-tag attributes are read by the tokenizer.
    '<p a a="1" a>x</p b c>',
    "<p>x</p><b z",
  ];
  for (const html of cases) {
    assertUpperBound(html);
    assertExactNodes(html);
  }
});
