/**
 * The content checks in the editor without a browser (jsdom): which
 * elements a finding marks (`located`, from the checker's offsets in the
 * region's HTML), and the fake-list fix (`makeList`).
 */
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { checkContent } from "../../core/checks.ts";

const { window } = new JSDOM("<!DOCTYPE html><body></body>");
Object.assign(globalThis, {
  document: window.document,
  getComputedStyle: window.getComputedStyle.bind(window),
});
const { located, tagsBefore } = await import("../../client/checks.ts");
const { makeList } = await import("../../client/checks_panel.ts");

/** A region with `html`, and what each finding of the checker marks. */
function marks(html: string): [string, string[]][] {
  const el = window.document.createElement("div");
  el.innerHTML = html;
  window.document.body.replaceChildren(el);
  const inner = el.innerHTML;
  const all = el.querySelectorAll("*");
  return checkContent(inner).map((f) => [
    f.rule,
    located(el as unknown as HTMLElement, inner, all as never, f).map((e) =>
      e === el ? "region" : e.outerHTML
    ),
  ]);
}

Deno.test("checks: start tags before an offset index the element there", () => {
  const html = "<p>a</p><p><em>b</em> c c</p>";
  assert.equal(tagsBefore(html, 0), 0);
  assert.equal(tagsBefore(html, 8), 1);
  assert.equal(tagsBefore(html, html.indexOf("c c")), 3);
  // Text never holds a raw "<"; an escaped one is no tag.
  assert.equal(tagsBefore("<p>1 &lt; 2</p><p>x</p>", 15), 1);
});

Deno.test("checks: an image, a heading, a link mark themselves", () => {
  assert.deepEqual(marks('<p>A <img src="/a.png"> b</p>'), [
    ["img-alt-missing", ['<img src="/a.png">']],
  ]);
  assert.deepEqual(marks("<h3>Skip</h3><p>x</p>"), [
    ["heading-skip", ["<h3>Skip</h3>"]],
  ]);
  assert.deepEqual(marks('<p>See <a href="/x"><em>here</em></a>.</p>'), [
    ["link-vague", ['<a href="/x"><em>here</em></a>']],
  ]);
});

Deno.test("checks: a run marks each of its paragraphs, not what follows", () => {
  assert.deepEqual(
    marks("<p>Intro</p><p>• one</p><p>• <em>two</em></p><p>After</p>"),
    [["list-fake", ["<p>• one</p>", "<p>• <em>two</em></p>"]]],
  );
  assert.deepEqual(marks("<p>a</p><p></p><p></p><p>b</p>"), [
    ["empty-paragraphs", ["<p></p>", "<p></p>"]],
  ]);
});

Deno.test("checks: a word marks its block, past an inline element", () => {
  assert.deepEqual(marks("<p>x</p><p><em>Note</em> the the end</p>"), [
    ["text-repeated-word", ["<p><em>Note</em> the the end</p>"]],
  ]);
  assert.deepEqual(marks("<ul><li>One one</li></ul>"), [
    ["text-repeated-word", ["<li>One one</li>"]],
  ]);
  // Text at the very start of the region: the region.
  assert.deepEqual(marks("so so"), [["text-repeated-word", ["region"]]]);
});

Deno.test("checks: the fake-list fix makes one list, marks removed", () => {
  const el = window.document.createElement("div");
  el.innerHTML = "<p>Intro</p><p>• one</p><p>- <em>two</em></p><p>End</p>";
  makeList([...el.querySelectorAll("p")].slice(1, 3) as never);
  assert.equal(
    el.innerHTML,
    "<p>Intro</p><ul><li>one</li><li><em>two</em></li></ul><p>End</p>",
  );
  el.innerHTML = "<p>1. Mix</p><p>2) Bake</p>";
  makeList([...el.querySelectorAll("p")] as never);
  assert.equal(el.innerHTML, "<ol><li>Mix</li><li>Bake</li></ol>");
});
