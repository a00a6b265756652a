/**
 * Property tests of comment anchors. fast-check makes a field's text (from
 * a small alphabet, so quotes repeat, with emoji and line feeds), comments
 * on random selections of it, and random edits (insert, delete, replace;
 * one or several). After the edits:
 *
 * - no comment is dropped: each resolves to a range or is detached;
 * - a comment whose quoted text survives somewhere is on it (the resolved
 *   range's text is the quote), and one whose quote is gone is detached;
 * - an edit away from a comment (outside its quote and context) leaves it
 *   on its own words: the range moved by the edit, or one whose
 *   surroundings match the anchor just as well (an identical passage).
 *
 * And `textOf` of serialized HTML (as a sanitizer writes it) is the DOM's
 * `textContent`, so the server's offsets are the browser's.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { JSDOM } from "jsdom";
import {
  anchorAt,
  resolveAnchor,
  type TextAnchor,
  textOf,
} from "../../../core/review/anchor.ts";

const RUNS = Number(Deno.env.get("CMS_PROPERTY_RUNS") ?? 400);
const SEED = Number(Deno.env.get("CMS_PROPERTY_SEED") ?? 0x3636);
const params = { numRuns: RUNS, seed: SEED };

const char = fc.constantFrom("a", "b", "c", " ", ".", "\n", "ä", "😀");
const text = (maxLength: number) =>
  fc.array(char, { minLength: 1, maxLength }).map((c) => c.join(""));

/** One edit: delete `del` code units at `at` and insert `ins` there. */
interface Edit {
  at: number;
  del: number;
  ins: string;
}

const edit = fc.record({
  at: fc.nat(),
  del: fc.nat({ max: 12 }),
  ins: fc.array(char, { maxLength: 8 }).map((c) => c.join("")),
});

/** The edit applied (its place clamped to the text). */
function apply(s: string, e: Edit): string {
  const at = e.at % (s.length + 1);
  return s.slice(0, at) + e.ins + s.slice(at + e.del);
}

/** Whether offset `i` of `s` falls inside a surrogate pair. */
const inPair = (s: string, i: number) =>
  /[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(s.slice(i - 1, i + 1)) && i > 0;

/** A selection of `s`: start and end offsets, not empty. */
const selection = (s: string) =>
  fc.tuple(fc.nat({ max: s.length - 1 }), fc.nat({ max: s.length - 1 }))
    .map(([a, b]) => [Math.min(a, b), Math.max(a, b) + 1] as const);

const fieldWith = (maxLength: number, comments: number) =>
  text(maxLength).chain((s) =>
    fc.tuple(
      fc.constant(s),
      fc.array(selection(s), { minLength: 1, maxLength: comments }),
    )
  );

/** Every comment resolves to its quote, or is detached when it is gone. */
function holds(after: string, anchors: TextAnchor[]): void {
  const results = anchors.map((a) => resolveAnchor(after, a));
  assert.equal(results.length, anchors.length);
  results.forEach((range, i) => {
    const { quote } = anchors[i];
    if (after.includes(quote)) {
      assert.ok(range, `"${quote}" survives in "${after}" but is detached`);
      assert.equal(after.slice(range.start, range.end), quote);
    } else assert.equal(range, null, `"${quote}" is gone from "${after}"`);
  });
}

Deno.test("anchors: random edits keep every comment on its text, or detached", () => {
  fc.assert(
    fc.property(
      fieldWith(120, 6),
      fc.array(edit, { minLength: 1, maxLength: 6 }),
      ([before, selections], edits) => {
        const anchors = selections.map(([s, e]) =>
          anchorAt(before, s, e, "pages:home:body@de")
        );
        let after = before;
        for (const e of edits) {
          after = apply(after, e);
          holds(after, anchors);
        }
      },
    ),
    params,
  );
});

Deno.test("anchors: an edit away from a comment leaves it on its words", () => {
  fc.assert(
    fc.property(
      text(200).chain((s) => fc.tuple(fc.constant(s), selection(s))),
      edit,
      ([before, [selStart, selEnd]], e) => {
        const anchor = anchorAt(before, selStart, selEnd, "f");
        // The anchor widens a selection that splits an emoji to whole ones.
        const start = selStart - (inPair(before, selStart) ? 1 : 0);
        const end = selEnd + (inPair(before, selEnd) ? 1 : 0);
        assert.equal(before.slice(start, end), anchor.quote);
        const from = start - anchor.prefix.length;
        const to = end + anchor.suffix.length;
        const at = e.at % (before.length + 1);
        // Only edits wholly before the context or wholly after it.
        fc.pre(at + e.del <= from || at >= to);
        const after = apply(before, e);
        const shift = at + e.del <= from ? e.ins.length - e.del : 0;
        const range = resolveAnchor(after, anchor);
        assert.ok(range, "the quote is still there");
        assert.equal(after.slice(range.start, range.end), anchor.quote);
        if (range.start !== start + shift) {
          // Another passage, as well matched: the same context around it.
          assert.equal(
            after.slice(range.start - anchor.prefix.length, range.start),
            anchor.prefix,
          );
          assert.equal(
            after.slice(range.end, range.end + anchor.suffix.length),
            anchor.suffix,
          );
        }
      },
    ),
    params,
  );
});

Deno.test("anchors: the quote deleted outright is detached, never misplaced", () => {
  fc.assert(
    fc.property(fieldWith(80, 1), ([before, [[start, end]]]) => {
      const anchor = anchorAt(before, start, end, "f");
      const after = before.slice(0, start) + before.slice(end);
      const range = resolveAnchor(after, anchor);
      if (after.includes(anchor.quote)) {
        assert.equal(after.slice(range!.start, range!.end), anchor.quote);
      } else assert.equal(range, null);
    }),
    params,
  );
});

// ------------------------------------------------------------- textOf ---

const { window } = new JSDOM("");
const doc = window.document;
const TAGS = ["p", "strong", "em", "a", "ul", "li", "h2", "pre", "br", "span"];
const words = fc.array(
  fc.constantFrom(
    "a",
    "b",
    " ",
    "&",
    "<",
    ">",
    '"',
    "'",
    "\u00a0",
    "\n",
    "😀",
    "&amp;",
  ),
  { maxLength: 6 },
).map((c) => c.join(""));

type Tree = string | { tag: string; title: string; children: Tree[] };
const { tree } = fc.letrec<{ tree: Tree; node: Tree }>((tie) => ({
  tree: fc.oneof({ depthSize: "small" }, words, tie("node")),
  node: fc.record({
    tag: fc.constantFrom(...TAGS),
    title: words,
    children: fc.array(tie("tree"), { maxLength: 4 }),
  }),
}));

function build(parent: { append(n: unknown): void }, t: Tree): void {
  if (typeof t === "string") return parent.append(doc.createTextNode(t));
  const el = doc.createElement(t.tag);
  if (t.tag === "a") el.setAttribute("href", `/x?a=1&b=${t.title}`);
  if (t.title) el.setAttribute("title", t.title);
  if (t.tag !== "br") { for (const c of t.children) build(el, c); }
  parent.append(el);
}

Deno.test("textOf: serialized HTML's text is the DOM's textContent", () => {
  fc.assert(
    fc.property(fc.array(tree, { maxLength: 5 }), (trees) => {
      const body = doc.createElement("div");
      for (const t of trees) build(body, t);
      const html = body.innerHTML;
      // What the browser has when it renders that HTML in the region.
      const region = doc.createElement("div");
      region.innerHTML = html;
      assert.equal(textOf(html), region.textContent, html);
    }),
    params,
  );
});
