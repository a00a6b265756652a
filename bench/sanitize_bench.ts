/**
 * Sanitize of 10 KB and 100 KB realistic rich HTML. The baseline is bare
 * DOMPurify on jsdom (default configuration, no hooks), measured in the same
 * run; the goal is the server pipeline at ≤ 1.1× it. The rows:
 * the server pipeline in this thread (`createDomSanitizer`: the limits
 * counted by a parse5 parse, then the policy on DOMPurify's own jsdom
 * parse), the same through the worker
 * pool (`sanitizeHtml`, with messaging), and the policy on jsdom's own
 * parser (the browser's path, no limits). Run with
 * `deno bench -A bench/sanitize_bench.ts`.
 *
 * @module
 */

import { JSDOM } from "jsdom";
import createDOMPurify, { type WindowLike } from "dompurify";
import { createDomSanitizer, sanitizeHtml } from "../server/sanitize/mod.ts";
import { createSanitizer } from "../core/sanitizer.ts";
import { richHtml } from "./sanitize_ratio.ts";

const bare = createDOMPurify(new JSDOM("").window as unknown as WindowLike);
const policyOnly = createSanitizer(
  createDOMPurify(new JSDOM("").window as unknown as WindowLike),
);
const pipeline = await createDomSanitizer();
await sanitizeHtml("<p>warm up the worker</p>");

for (
  const [label, bytes] of [["10 KB", 10_000], ["100 KB", 100_000]] as const
) {
  const html = richHtml(bytes);
  Deno.bench({
    name: `bare DOMPurify on jsdom ${label}`,
    group: `sanitize ${label}`,
    baseline: true,
    fn: () => {
      bare.sanitize(html);
    },
  });
  Deno.bench({
    name: `server pipeline in thread ${label}`,
    group: `sanitize ${label}`,
    fn: () => {
      pipeline(html);
    },
  });
  Deno.bench({
    name: `sanitizeHtml via worker ${label}`,
    group: `sanitize ${label}`,
    fn: async () => {
      await sanitizeHtml(html);
    },
  });
  Deno.bench({
    name: `policy on jsdom's parser ${label}`,
    group: `sanitize ${label}`,
    fn: () => {
      policyOnly(html);
    },
  });
}
