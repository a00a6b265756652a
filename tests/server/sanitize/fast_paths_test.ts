/**
 * The sanitizer's fast paths give the same results as the slow ones: the
 * base URL filled in before the counted parse, an image `src` already in
 * canonical form, the removal count without hook removals.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createRequire } from "node:module";
import { JSDOM } from "jsdom";
import createDOMPurify, { type WindowLike } from "dompurify";
import { createDomSanitizer } from "../../../server/sanitize/dom.ts";
import { countingNextParse } from "../../../server/sanitize/_parse_hook.ts";
import { purifyWindow } from "../../../server/sanitize/_window.ts";
import {
  countedParse,
  HTML_LIMITS,
  LimitCount,
} from "../../../server/sanitize/limits.ts";
import {
  defaultTreeAdapter,
  type DefaultTreeAdapterMap,
  parse as parse5Parse,
  Parser,
  serializeOuter,
} from "parse5";
import { canonicalUrl } from "../../../core/url.ts";
import { createSanitizer, type Purifier } from "../../../core/sanitizer.ts";

const { window } = new JSDOM("<!DOCTYPE html>");

// jsdom's own wrapper-to-implementation lookup, to read its base URL cache.
const require = createRequire(import.meta.url);
const jsdomUtils = require(
  require.resolve("jsdom").replace(
    /api\.js$/,
    "generated/idl/utils.js",
  ),
) as { implForWrapper(wrapper: unknown): { _baseURLCache: unknown } };

const parse = (html: string) =>
  countingNextParse(
    HTML_LIMITS,
    () => new window.DOMParser().parseFromString(html, "text/html"),
  );

Deno.test("the counted parse fills in the document's base URL first", () => {
  // Without it, jsdom fills it in on the first style attribute, with a
  // selector query over the document; here nothing else would have.
  const doc = parse("<p>x</p>");
  assert.notEqual(jsdomUtils.implForWrapper(doc)._baseURLCache, null);
});

Deno.test("a <base href> in the value still sets the base URL", () => {
  const doc = parse(
    '<p style="color:red">x</p><base href="https://cdn.example/d/">' +
      '<a href="a.png">y</a>',
  );
  assert.equal(doc.querySelector("a")!.href, "https://cdn.example/d/a.png");
  const plain = parse('<p style="c">x</p><a href="https://a.example/b">y</a>');
  assert.equal(plain.querySelector("a")!.href, "https://a.example/b");
});

Deno.test("an image src comes out as canonicalUrl spells it, fast path or not", async () => {
  const sanitize = await createDomSanitizer(window);
  const path = fc.array(
    fc.constantFrom("/", "a", "B", "0", "_", "-", "~", ".", "%2e", "\\", "?"),
    { minLength: 1, maxLength: 12 },
  ).map((parts) => parts.join(""));
  const src = (html: string) =>
    new JSDOM(html).window.document.querySelector("img")?.getAttribute("src");
  fc.assert(
    fc.property(path, (value) => {
      const out = sanitize(`<img src="${value}" width="1" height="1">`).html;
      const kept = src(out);
      if (kept !== undefined && kept !== null) {
        assert.equal(kept, canonicalUrl(value) ?? value, value);
      }
    }),
    { seed: 7, numRuns: 400 },
  );
  for (const value of ["/media/a.png", "/a/./b.png", "/a/../b", "/x//y"]) {
    const out = sanitize(`<img src="${value}" width="1" height="1">`).html;
    assert.equal(src(out), canonicalUrl(value) ?? value, value);
  }
});

Deno.test("the removal count is the same call after call, hooks removing or not", () => {
  const sanitize = createSanitizer(
    createDOMPurify(window as unknown as WindowLike) as unknown as Purifier,
  );
  const bad =
    '<img src="data:x" width="1" height="1" alt="a"><p onclick="x">y</p>';
  // The bad <img> is removed by a hook (its alt is not counted again).
  assert.deepEqual(sanitize.counted(bad), { html: "<p>y</p>", removed: 2 });
  assert.deepEqual(sanitize.counted(bad), { html: "<p>y</p>", removed: 2 });
  assert.deepEqual(sanitize.counted('<p onclick="x">y</p>'), {
    html: "<p>y</p>",
    removed: 1,
  });
});

Deno.test("the counted parse hands a text run to the tree once, as the same nodes", () => {
  const calls: string[] = [];
  const spy = {
    ...defaultTreeAdapter,
    insertText(parent: DefaultTreeAdapterMap["parentNode"], text: string) {
      calls.push(text);
      defaultTreeAdapter.insertText(parent, text);
    },
  };
  const html = "<p>one two  three<b>four five</b> six</p>x<!--c-->y z";
  const count = new LimitCount(HTML_LIMITS);
  const doc = countedParse(
    Parser,
    html,
    { treeAdapter: spy } as Parameters<typeof countedParse>[2],
    count,
  ) as DefaultTreeAdapterMap["document"];
  // parse5 calls once per word and per space; the tree sees one per run.
  assert.deepEqual(calls, ["one two  three", "four five", " six", "x", "y z"]);
  assert.equal(serializeOuter(doc), serializeOuter(parse5Parse(html)));
  assert.equal(count.nodes, 8); // p, b, a comment and 5 text runs
});

// jsdom's node implementation, to count whole-document walks.
const nodeImpl = (() => {
  let proto = Object.getPrototypeOf(
    jsdomUtils.implForWrapper(window.document),
  ) as object | null;
  while (proto && !Object.hasOwn(proto, "_descendantsToArray")) {
    proto = Object.getPrototypeOf(proto);
  }
  return proto as { _descendantsToArray(this: { nodeType: number }): unknown };
})();

/** Runs `fn`, counting walks that collect every node of a document. */
function documentWalks(fn: () => void): number {
  const original = nodeImpl._descendantsToArray;
  let walks = 0;
  nodeImpl._descendantsToArray = function (
    this: { nodeType: number },
    ...args: unknown[]
  ) {
    if (this.nodeType === 9) walks++;
    return original.apply(this, args as []);
  };
  try {
    fn();
  } finally {
    nodeImpl._descendantsToArray = original;
  }
  return walks;
}

// Values that reach each way the window view answers, and the hook's own
// reads of the document: images (they reset jsdom's named-element lookup),
// unwrapped blocks (a <br> is created), leading white space, what the
// parser puts outside the body, repeated and missing bodies.
const VIEWED = [
  '<p class="a">x<b>y</b></p><img src="/a.png" width="1" height="1">' +
  '<div>z</div><div>w</div><img src="data:x" width="1" height="1">',
  '  \n<p>leading space</p><a href="/x">l</a>',
  "<title>t</title><style>s</style><!--c--><p>x</p><!--d-->",
  "<!--a--><html><!--b--><head><meta></head><!--c--><body>x</body></html><!--d-->",
  "<p>x</p><frameset><frame></frameset>",
  "<frameset></frameset>",
  '<body a="1"><p>x</p></body><body b="2">y',
  "<svg><body><p>x</p></svg><template><body>y</template><math><mi><body>",
  "<table><body><tr><td><body>x</table>",
  "",
];

Deno.test("DOMPurify walks no parsed document whole: no named-element lookup, no getElementsByTagName", async () => {
  const sanitize = await createDomSanitizer(window);
  assert.ok(sanitize.viewsDocuments);
  for (const html of VIEWED) {
    assert.equal(documentWalks(() => sanitize(html)), 0, html);
  }
  // Bare DOMPurify on jsdom walks each parsed document twice.
  const bare = createDOMPurify(window as unknown as WindowLike);
  assert.equal(documentWalks(() => bare.sanitize(VIEWED[0])), 2);
});

Deno.test("DOMPurify on the window view sanitizes as on jsdom's own window", async () => {
  const viewed = createSanitizer(
    createDOMPurify(purifyWindow(window) as WindowLike) as unknown as Purifier,
  );
  const plain = createSanitizer(
    createDOMPurify(window as unknown as WindowLike) as unknown as Purifier,
  );
  const { VECTORS } = await import("./_vectors.ts");
  for (const html of [...VIEWED, ...VECTORS.map((v) => v.input)]) {
    // Counted, as the sanitizer parses: the view answers from the count.
    // (Without markup, DOMPurify parses nothing.)
    const counted = html.includes("<")
      ? countingNextParse(HTML_LIMITS, () => viewed.counted(html))
      : viewed.counted(html);
    assert.deepEqual(counted, plain.counted(html), html);
    // Uncounted, it leaves it all to jsdom.
    assert.deepEqual(viewed.counted(html), plain.counted(html), html);
  }
});
