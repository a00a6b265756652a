/**
 * Sanitize of 10 KB and 100 KB realistic rich HTML, against a baseline of
 * jsdom parsing and serializing the same HTML without DOMPurify. A third
 * entry runs the shared policy alone (no parse5 guard) to show the guard's
 * cost. Run with `deno bench -A bench/sanitize_bench.ts`.
 *
 * @module
 */

import { JSDOM } from "jsdom";
import createDOMPurify, { type WindowLike } from "dompurify";
import { sanitizeHtml } from "../server/sanitize.ts";
import { createSanitizer } from "../core/sanitizer.ts";

/** Deterministic rich HTML of about `bytes` length, with some junk to strip. */
function richHtml(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    let block = `<h2>Section ${i}</h2>` +
      `<p>Lorem ipsum <b>dolor</b> sit amet, <a href="/page/${i}">consectetur</a>` +
      ` adipiscing <em>elit</em>, sed do <span style="color:red" class="x">eiusmod</span>` +
      ` tempor incididunt ut <strong>labore</strong> et dolore magna aliqua.</p>` +
      `<ul><li>First point ${i}</li><li>Second <code>code()</code></li>` +
      `<li><a href="https://example.com/${i}" target="_blank" onclick="track()">link</a></li></ul>`;
    if (i % 3 === 0) {
      block +=
        `<p><img src="/media/${i}.jpg" width="640" height="480" alt="Photo ${i}"></p>`;
    }
    if (i % 10 === 0) {
      block += `<!-- pasted --><script>alert(${i})</script>` +
        `<div><img src="data:image/png;base64,AAAA" width="1" height="1"></div>`;
    }
    parts.push(block);
    size += block.length;
  }
  return parts.join("");
}

const window = new JSDOM("").window;
const parser = new window.DOMParser();
const policyOnly = createSanitizer(
  createDOMPurify(window as unknown as WindowLike),
);
await sanitizeHtml("<p>warm up the lazy imports</p>");

for (
  const [label, bytes] of [["10 KB", 10_000], ["100 KB", 100_000]] as const
) {
  const html = richHtml(bytes);
  Deno.bench({
    name: `jsdom parse + serialize ${label}`,
    group: `sanitize ${label}`,
    baseline: true,
    fn: () => {
      parser.parseFromString(html, "text/html").body.innerHTML;
    },
  });
  Deno.bench({
    name: `sanitizeHtml ${label}`,
    group: `sanitize ${label}`,
    fn: async () => {
      await sanitizeHtml(html);
    },
  });
  Deno.bench({
    name: `shared policy without guard ${label}`,
    group: `sanitize ${label}`,
    fn: () => {
      policyOnly(html);
    },
  });
}
