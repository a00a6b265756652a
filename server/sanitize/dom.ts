/**
 * The server's sanitize pipeline, run inside the sanitizer worker
 * (`server/sanitize/_worker.ts`): limits first, then jsdom's parse, then the
 * shared policy from `core/sanitizer.ts` by DOMPurify on jsdom.
 *
 * 1. **Limits counted by the parser, before jsdom parses.**
 *    `server/sanitize/limits.ts` runs parse5 (the parser inside jsdom) over
 *    a light tree and counts, as it builds, attributes per element and in
 *    total, nodes and nesting depth. Going past a limit stops that parse at
 *    once and refuses the value with an `HttpError` (413 for the amount of
 *    markup, 400 for its shape) before jsdom builds its much heavier DOM.
 * 2. **One parse, the policy as in the browser.** DOMPurify parses the
 *    string with jsdom's `DOMParser`, exactly as bare DOMPurify does, and
 *    applies the policy's hooks; unwrapping is linear (each node moves at
 *    most once, see `core/sanitizer.ts`). What the parser puts outside the
 *    body (a leading `<style>`, comments before `<html>`) is counted as
 *    removed by the policy's hooks; a `<frameset>` that replaces the body
 *    yields an empty value and one removal.
 *
 * @example
 * ```ts ignore
 * import { createDomSanitizer } from "./dom.ts";
 * const sanitize = await createDomSanitizer();
 * sanitize("<div>Name</div><div>Role</div>"); // { html: "Name<br>Role", removed: 2 }
 * ```
 *
 * @module
 */

import type { WindowLike } from "dompurify";
import {
  createSanitizer,
  type SanitizeResult,
  type SanitizerOptions,
} from "../../core/sanitizer.ts";
import { HTML_LIMITS, type HtmlLimits, scanLimits } from "./limits.ts";

export { HTML_LIMITS, type HtmlLimits };

/** Sanitizes one value: clean HTML and the count of removals. */
export type DomSanitize = (
  html: string,
  options?: SanitizerOptions,
  limits?: HtmlLimits,
) => SanitizeResult;

const FRAMESET = /<frameset[\t\n\f\r />]/i;

/**
 * Loads jsdom and DOMPurify and returns the synchronous pipeline. It throws
 * an `HttpError` (413 or 400) past the limits and `TypeError` for a
 * non-string.
 */
export async function createDomSanitizer(): Promise<DomSanitize> {
  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([
    import("jsdom"),
    import("dompurify"),
  ]);
  const { window } = new JSDOM("<!DOCTYPE html>");
  const purify = createDOMPurify(window as unknown as WindowLike);
  const sanitizers = new Map<
    string | undefined,
    ReturnType<typeof createSanitizer>
  >();
  const sanitizerFor = (options: SanitizerOptions) => {
    let s = sanitizers.get(options.mediaBase);
    if (!s) {
      s = createSanitizer(purify, options);
      sanitizers.set(options.mediaBase, s);
    }
    return s;
  };
  return (html, options = {}, limits = HTML_LIMITS) => {
    if (typeof html !== "string") {
      throw new TypeError("sanitizeHtml expects a string of HTML");
    }
    // Without markup there is nothing to parse; DOMPurify returns it as is.
    if (!html.includes("<")) return { html, removed: 0 };
    scanLimits(html, limits);
    const result = sanitizerFor(options).counted(html);
    // A <frameset> early in the value replaces the body (and what preceded
    // it): an empty result, the frameset counted as removed.
    if (result.html === "" && result.removed === 0 && FRAMESET.test(html)) {
      return { html: "", removed: 1 };
    }
    return result;
  };
}
