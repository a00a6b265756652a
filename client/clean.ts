/**
 * The shared sanitizer policy in the browser (a lazy chunk): the rich editor
 * loads it only when HTML must be cleaned (a paste or drop of HTML, a value
 * set from outside such as a restored draft). It is the policy's own small
 * rebuild (`core/rebuild.ts`), not DOMPurify: the dirty HTML is parsed by
 * `DOMParser` into an inert document and a clean tree is built from the
 * policy's data. Its output and removed count equal the server's.
 *
 * @module
 */

import { createRebuild, type Rebuild } from "../core/rebuild.ts";

const made = new Map<string, Rebuild>();
const parse = (html: string) =>
  new DOMParser().parseFromString(html, "text/html");

/**
 * The policy's sanitizer for this window; `srcset` is kept under
 * `mediaBase` only (none: never). One per base.
 *
 * @example
 * ```ts ignore
 * const clean = (await import("./clean.ts")).sanitizerFor("/media/");
 * el.innerHTML = clean(html);
 * clean.counted("<div>a</div>"); // { html: "a", removed: 1 }
 * ```
 */
export function sanitizerFor(mediaBase = ""): Rebuild {
  let clean = made.get(mediaBase);
  if (!clean) {
    clean = createRebuild(parse, { mediaBase: mediaBase || undefined });
    made.set(mediaBase, clean);
  }
  return clean;
}
