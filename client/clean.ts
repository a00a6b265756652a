/**
 * The shared sanitizer policy with DOMPurify, in the browser (a lazy chunk):
 * the rich editor loads it only when HTML must be cleaned (a paste or drop
 * of HTML, a value set from outside such as a restored draft), so editing
 * typed text never loads DOMPurify.
 *
 * @module
 */

import DOMPurify from "dompurify";
import { createSanitizer, type Sanitize } from "../core/sanitizer.ts";

let purify: ReturnType<typeof DOMPurify> | undefined;
const made = new Map<string, Sanitize>();

/**
 * The policy's sanitizer for this window; `srcset` is kept under
 * `mediaBase` only (none: never). One per base.
 *
 * @example
 * ```ts ignore
 * const clean = (await import("./clean.ts")).sanitizerFor("/media/");
 * el.innerHTML = clean(html);
 * ```
 */
export function sanitizerFor(mediaBase = ""): Sanitize {
  let clean = made.get(mediaBase);
  if (!clean) {
    purify ??= DOMPurify(window);
    clean = createSanitizer(purify, { mediaBase: mediaBase || undefined });
    made.set(mediaBase, clean);
  }
  return clean;
}
