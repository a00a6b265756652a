/**
 * Pasted office HTML (`client/paste.ts`): Word, Google Docs and LibreOffice
 * fixtures keep their nested lists (ordered and unordered) and their table
 * header row through the normalizer and then the shared sanitizer policy
 * (the browser's rebuild, on jsdom's parser here).
 */
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { createRebuild } from "../../core/rebuild.ts";

const { window } = new JSDOM("<!DOCTYPE html><body></body>");
Object.assign(globalThis, { DOMParser: window.DOMParser });
const { tidy } = await import("../../client/paste.ts");
const { OFFICE } = await import("../../client/rich_uploads.ts");
const clean = createRebuild((html) =>
  new window.DOMParser().parseFromString(html, "text/html")
);

const fixture = (name: string) =>
  Deno.readTextFileSync(
    new URL(`../fixtures/paste/${name}.html`, import.meta.url),
  );

/** The cleaned paste, with whitespace between tags taken out. */
const pasted = (html: string) =>
  clean(tidy(html)).replace(/>\s+</g, "><").replace(/\s+/g, " ").trim();

const LISTS = "<ul><li>Write the copy<ul><li>Headlines</li>" +
  "<li>Body <em>text</em></li></ul></li><li>Take the photos</li></ul>";
const NUMBERED =
  "<ol><li>Draft<ol><li>Outline</li></ol></li><li>Review</li></ol>";
const TABLE = "<table><thead><tr><th>Task</th><th>Owner</th></tr></thead>" +
  "<tbody><tr><td>Copy</td><td>Ada</td></tr></tbody></table>";

for (const name of ["word", "google_docs", "libreoffice"]) {
  Deno.test(`paste: ${name} keeps nested lists and the header row`, () => {
    const html = fixture(name);
    assert.match(html, OFFICE, "the chunk loads for this paste");
    const out = pasted(html).replace(/<(\/?)i>/g, "<$1em>");
    assert.ok(out.includes(LISTS), out);
    assert.ok(out.includes(NUMBERED), out);
    assert.ok(out.includes(TABLE), out);
    assert.doesNotMatch(out, /·|<li>[^A-Z<]/, "no list markers left");
    assert.match(
      out,
      /^(<p>)?Our plan for the <(b|strong)>spring<\/(b|strong)>/,
    );
  });
}

Deno.test("paste: without the normalizer the policy alone flattens Word's lists", () => {
  const out = clean(fixture("word"));
  assert.doesNotMatch(out, /<li>/);
  assert.match(out, /·/);
});

Deno.test("paste: Word's repeated header row and LibreOffice's <th> row", () => {
  const header = "<thead><tr><th>City</th><th>Visitors</th></tr></thead>";
  assert.ok(pasted(fixture("word")).includes(header));
  assert.ok(pasted(fixture("libreoffice")).includes(header));
});

Deno.test("paste: Google Docs' wrapper is not bold; styled spans are", () => {
  const out = pasted(fixture("google_docs"));
  assert.doesNotMatch(out, /^<b>/);
  assert.match(out, /<strong>spring<\/strong>/);
  assert.match(out, /<em>text<\/em>/);
});

Deno.test("paste: flat levels nest however deep, a skipped level goes one down", () => {
  const li = (level: number, text: string) =>
    `<li aria-level="${level}">${text}</li>`;
  assert.equal(
    pasted(
      `<ul>${li(1, "A")}${li(3, "B")}${li(2, "C")}</ul><ul>${li(1, "D")}</ul>`,
    ),
    "<ul><li>A<ul><li>B</li><li>C</li></ul></li><li>D</li></ul>",
  );
  // A level-1 item of another list type starts a new list.
  assert.equal(
    pasted(
      `<ul>${li(1, "A")}</ul><ol>${li(1, "B")}</ol>`,
    ),
    "<ul><li>A</li></ul><ol><li>B</li></ol>",
  );
});

Deno.test("paste: a table without a bold first row keeps its rows", () => {
  const html = "<table><tr><td><b>Name</b> plain</td><td>x</td></tr>" +
    "<tr><td>a</td><td>b</td></tr></table>";
  assert.doesNotMatch(pasted(html), /<th|<thead/);
  // A one-row table is never made all header.
  assert.doesNotMatch(pasted("<table><tr><th>A</th></tr></table>"), /thead/);
});
