/**
 * Regression classes for the sanitizer's cost and its silent content loss:
 * attribute floods, wide unwraps, deep nesting, parser amplification, the
 * deadline, and the four content-loss findings.
 */
import assert from "node:assert/strict";
import {
  HTML_LIMITS,
  sanitizeHtml,
  sanitizeRich,
} from "../../../server/sanitize/pool.ts";
import { HttpError } from "../../../server/http/pipeline.ts";
import { scanLimits } from "../../../server/sanitize/limits.ts";

const rejectsWith = (status: number, pattern: RegExp) => (error: unknown) =>
  error instanceof HttpError && error.status === status &&
  pattern.test(error.message);

Deno.test("attribute floods are refused before the parser's quadratic scan", async () => {
  const per = HTML_LIMITS.attributesPerElement;
  // One element: the 170,000-attribute finding, scaled up and down.
  for (const n of [per + 1, 10_000, 170_000]) {
    const html = "<p " + Array.from({ length: n }, (_, i) => `a${i}=x`).join(
      " ",
    ) + ">t</p>";
    // (The time per size is in bench/sanitize_adversarial.ts.)
    await assert.rejects(sanitizeHtml(html), rejectsWith(400, /one element/));
  }
  // Many elements, each within the per-element limit: the total counts.
  const many = `<b ${
    Array.from({ length: 50 }, (_, i) => `a${i}`).join(" ")
  }>x</b>`
    .repeat(Math.ceil(HTML_LIMITS.attributes / 50) + 1);
  await assert.rejects(sanitizeHtml(many), rejectsWith(413, /attributes/));
  // Attributes on end tags count too (the tokenizer scans them as well).
  const end = "<p>x</p " +
    Array.from({ length: per + 1 }, (_, i) => `a${i}`).join(" ") + ">";
  await assert.rejects(sanitizeHtml(end), rejectsWith(400, /one element/));
  // Just inside: kept element, attributes removed, counted.
  const ok = await sanitizeRich(
    `<p ${Array.from({ length: per }, (_, i) => `a${i}=x`).join(" ")}>t</p>`,
  );
  assert.deepEqual(ok, { html: "<p>t</p>", removed: per });
});

Deno.test("wide and nested unwraps: 250 wrappers around 2,800 elements in time, 18,000 refused", async () => {
  const inner = "<i>w</i> ".repeat(2_800);
  const html = "<div>".repeat(250) + inner + "</div>".repeat(250);
  const { html: out, removed } = await sanitizeRich(html);
  assert.equal(out, inner);
  assert.equal(removed, 250);
  // The finding itself (18,000 elements, 147 KB) is past the node limit.
  const big = "<div>".repeat(250) + "<i>w</i> ".repeat(18_000);
  await assert.rejects(sanitizeHtml(big), rejectsWith(413, /nodes/));
});

Deno.test("parser amplification and depth are refused while parsing", async () => {
  const formatting = Array.from({ length: 200 }, (_, i) => `<b id=${i}>`).join(
    "",
  );
  // 10 KB that the HTML parser would turn into 400,000 <b> clones.
  await assert.rejects(
    sanitizeHtml("<p>" + formatting + "x" + "<p>y".repeat(2000)),
    rejectsWith(413, /nodes/),
  );
  for (const n of [HTML_LIMITS.depth + 1, 100_000]) {
    await assert.rejects(
      sanitizeHtml("<b>".repeat(n)),
      rejectsWith(400, /deep/),
    );
  }
  await assert.rejects(
    sanitizeHtml("<!---->".repeat(HTML_LIMITS.nodes + 1)),
    rejectsWith(413, /nodes/),
  );
  const d = HTML_LIMITS.depth - 10;
  assert.equal(
    await sanitizeHtml("<b>".repeat(d) + "x"),
    "<b>".repeat(d) + "x" + "</b>".repeat(d),
  );
});

Deno.test("a value past the deadline is refused and does not stall others", async () => {
  const slow = sanitizeRich("<p>x</p>".repeat(30_000), { deadlineMs: 1 });
  const others = Array.from(
    { length: 5 },
    (_, i) => sanitizeHtml(`<p>${i}</p>`),
  );
  await assert.rejects(slow, rejectsWith(400, /within 1 ms/));
  assert.deepEqual(
    await Promise.all(others),
    [0, 1, 2, 3, 4].map((i) => `<p>${i}</p>`),
  );
  // The replaced worker serves the next value.
  assert.equal(await sanitizeHtml("<p>after</p>"), "<p>after</p>");
});

Deno.test("content-loss classes: tag-like text beside comments, thead, pre, glued words", async (t) => {
  const tagLike = [
    "a&lt;b",
    "I &lt;3",
    "Vec&lt;u8&gt;",
    "Press &lt;Enter&gt;",
    "&lt;/x&gt;",
  ];
  const comments = [
    "<!--c-->",
    "<?xml:namespace prefix = o ns = 'urn:x' />",
    "<!--more-->",
  ];
  await t.step("text that looks like a tag, next to a comment", async () => {
    for (const text of tagLike) {
      for (const comment of comments) {
        for (const tag of ["p", "li", "td", "code", "h2"]) {
          const html = tag === "li"
            ? `<ul><li>${text}${comment}</li></ul>`
            : tag === "td"
            ? `<table><tbody><tr><td>${comment}${text}</td></tr></tbody></table>`
            : `<${tag}>${text}${comment}</${tag}>`;
          const out = await sanitizeHtml(html);
          assert.ok(out.includes(text), `${html} -> ${out}`);
        }
      }
    }
  });
  await t.step("a pasted table keeps its header row", async () => {
    for (const head of ["<th>Name</th><th>Role</th>", "<td>A</td>"]) {
      const html =
        `<table><thead><tr>${head}</tr></thead><tbody><tr><td>1</td></tr></tbody></table>`;
      assert.equal(await sanitizeHtml(html), html);
    }
  });
  await t.step(
    "pre keeps leading blank lines over repeated saves",
    async () => {
      for (const lines of [1, 2, 5]) {
        const html = `<pre>${"\n".repeat(lines + 1)}code</pre>`;
        let out = html;
        for (let i = 0; i < 3; i++) out = await sanitizeHtml(out);
        assert.equal(out, html);
      }
      // Unwrapping inside pre brings text first: still protected.
      assert.equal(
        await sanitizeHtml("<pre><span>\nx</span></pre>"),
        "<pre>\n\nx</pre>",
      );
    },
  );
  await t.step("unwrapping keeps words apart", async () => {
    const cases: [string, string][] = [
      ["<div>Name</div><div>Role</div>", "Name<br>Role"],
      ["<dl><dt>Term</dt><dd>Meaning</dd></dl>", "Term<br>Meaning"],
      ["a<hr>b", "a<br>b"],
      ["<h1>Title</h1>text", "Title<br>text"],
      ["<p>x</p><div>y</div>", "<p>x</p>y"],
      ["<span>a</span><span>b</span>", "ab"], // inline: no boundary to keep
    ];
    for (const [html, expected] of cases) {
      assert.equal(await sanitizeHtml(html), expected, html);
    }
  });
});

Deno.test("srcset is admitted only under the media base", async () => {
  const img = (extra: string) =>
    `<img src="/media/a.jpg" width="2" height="1"${extra ? " " + extra : ""}>`;
  const base = { mediaBase: "/media/" };
  const good = img(
    'srcset="/media/a-1.webp 640w, /media/a-2.webp 1280w" sizes="(max-width: 600px) 100vw, 50vw" loading="lazy" decoding="async"',
  );
  assert.equal(await sanitizeHtml(good, base), good);
  assert.equal(
    await sanitizeHtml(good),
    img('loading="lazy" decoding="async"'),
  );
  for (
    const srcset of [
      "/media/a.jpg 1x, https://evil.example/a.jpg 2x",
      "/media/../admin/a.jpg 1x",
      "/media/%2e%2e/a.jpg 1x",
      "//evil.example/media/a.jpg",
      "javascript:alert(1) 1x",
      "/media/a.jpg 1x,",
    ]
  ) {
    assert.equal(
      await sanitizeHtml(img(`srcset="${srcset}" sizes="100vw"`), base),
      img(""),
      srcset,
    );
  }
  assert.equal(
    await sanitizeHtml(img('srcset="/media/b.jpg 2x" sizes="url(x)"'), base),
    img('srcset="/media/b.jpg 2x"'),
  );
});

Deno.test("depth is counted exactly where the parser moves nothing: templates, siblings, tables, foreign content", () => {
  const unlimited = {
    nodes: 1e9,
    attributes: 1e9,
    attributesPerElement: 1e9,
  };
  // [value, its depth: <html> and <body> are 1 and 2]
  const cases: [string, number][] = [
    ["<p>x</p>", 3],
    ["<ul><li><b>a</b></li></ul><p>b</p>", 5],
    ["<template><p><i>x</i></p></template>", 5], // html, head, template, p, i
    ["<div><template><ul><li>x</li></ul></template></div>", 6],
    ["<table><tbody><tr><td><b>x</b></td></tr></tbody></table>", 7],
    ["<svg><g><rect></rect></g></svg><p>y</p>", 5],
    ["<b>".repeat(40) + "x", 42],
    // Back up the tree and down again, into and out of template contents,
    // and beside a table while its content is built (foster parenting).
    ["<div><div><div>a</div></div></div><p><b><i>x</i></b></p><p>y</p>", 5],
    ["<template><div><div>x</div></div></template><p>y</p><template>z", 5],
    ["<table><b>x</b><tr><td><i><u>y</u></i></td></tr></table>", 8],
    ["<table><tr><td>a</td></tr><s>b</s><tr><td><i>c</i></td></tr></table>", 7],
  ];
  for (const [html, depth] of cases) {
    scanLimits(html, { ...unlimited, depth }); // accepted at its depth
    assert.throws(
      () => scanLimits(html, { ...unlimited, depth: depth - 1 }),
      rejectsWith(400, /deep/),
      html,
    );
  }
});
