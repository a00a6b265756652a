/**
 * The server's sanitize pipeline, run inside the sanitizer worker
 * (`server/sanitize/_worker.ts`): one jsdom parse that counts the limits as
 * it builds, then the shared policy from `core/sanitizer.ts` by DOMPurify.
 *
 * 1. **Limits counted inside the one parse.** DOMPurify parses the string
 *    with jsdom's `DOMParser`, exactly as bare DOMPurify does; jsdom's
 *    parser (parse5) counts as it builds (`_parse_hook.ts`, `limits.ts`):
 *    attributes per element and in total, nodes and nesting depth. Past a
 *    limit the parse stops, the partial tree is dropped, and the value is
 *    refused with an `HttpError` (413 for the amount of markup, 400 for its
 *    shape). Where the hook cannot reach jsdom's parser (checked once, at
 *    start), `scanLimits` counts with a parse of its own first.
 * 2. **The policy as in the browser.** DOMPurify applies the policy's
 *    hooks; unwrapping is linear (each node moves at most once, see
 *    `core/sanitizer.ts`). DOMPurify runs on a view of the jsdom window
 *    (`_window.ts`) that answers its reads of each parsed document without
 *    the two walks of the whole document jsdom would make; at start it is
 *    checked to sanitize sample values as on jsdom's own window, else the
 *    window itself is used. What the parser puts outside the
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

import type { DOMPurify, WindowLike } from "dompurify";
import {
  createSanitizer,
  SANITIZER_POLICY,
  type SanitizeResult,
  type SanitizerOptions,
} from "../../core/sanitizer.ts";
import { HTML_LIMITS, type HtmlLimits, scanLimits } from "./limits.ts";
import { countingNextParse, parseIsCounted } from "./_parse_hook.ts";
import { purifyWindow } from "./_window.ts";

export { HTML_LIMITS, type HtmlLimits };

/** Sanitizes one value: clean HTML and the count of removals. */
export type DomSanitize = (
  html: string,
  options?: SanitizerOptions,
  limits?: HtmlLimits,
) => SanitizeResult;

const FRAMESET = /<frameset[\t\n\f\r />]/i;

/**
 * Loads jsdom and DOMPurify and returns the synchronous pipeline, on
 * `window` when one is given (a jsdom window; benchmarks compare on one),
 * else on a jsdom window of its own. It throws an `HttpError` (413 or 400)
 * past the limits and `TypeError` for a non-string.
 */
export async function createDomSanitizer(window?: unknown): Promise<
  DomSanitize & {
    readonly countsInParse: boolean;
    readonly viewsDocuments: boolean;
  }
> {
  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([
    import("jsdom"),
    import("dompurify"),
  ]);
  const win = window ?? new JSDOM("<!DOCTYPE html>").window;
  const plain = createDOMPurify(win as WindowLike);
  const inParse = parseIsCounted(() => plain.sanitize("<p>x</p>"));
  // DOMPurify on a view of the window that spares it two walks of each
  // parsed document (`_window.ts`), once it is seen to answer the same.
  let purify = plain;
  if (inParse) {
    const viewed = createDOMPurify(purifyWindow(win) as WindowLike);
    if (answersAlike(viewed, plain)) purify = viewed;
  }
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
  const sanitize: DomSanitize = (html, options = {}, limits = HTML_LIMITS) => {
    if (typeof html !== "string") {
      throw new TypeError("sanitizeHtml expects a string of HTML");
    }
    // Without markup there is nothing to parse; DOMPurify returns it as is.
    if (!html.includes("<")) return { html, removed: 0 };
    const run = () => sanitizerFor(options).counted(html);
    let result: SanitizeResult;
    if (inParse) result = countingNextParse(limits, run);
    else {
      scanLimits(html, limits);
      result = run();
    }
    // A <frameset> early in the value replaces the body (and what preceded
    // it): an empty result, the frameset counted as removed.
    if (result.html === "" && result.removed === 0 && FRAMESET.test(html)) {
      return { html: "", removed: 1 };
    }
    return result;
  };
  return Object.assign(sanitize, {
    countsInParse: inParse,
    viewsDocuments: purify !== plain,
  });
}

/** Values whose parse DOMPurify reads in each way `_window.ts` answers. */
const SAMPLES = [
  '<p class="a">x<b>y</b></p><img src="/a.png" width="1" height="1"><div>z</div>',
  "  \n<p>leading space</p>",
  "<title>t</title><!--c--><p>x</p>",
  "<p>x</p><frameset><frame></frameset>",
  "<frameset></frameset>",
  '<body a="1"><p>x</p></body><body b="2">y',
  "<svg><body><p>x</p></svg><template><body>y</template>",
  "",
];

/**
 * Whether `viewed` (DOMPurify on `purifyWindow`) sanitizes the samples as
 * `plain` does, each parse counted; false where it throws.
 */
function answersAlike(viewed: DOMPurify, plain: DOMPurify): boolean {
  try {
    return SAMPLES.every((html) => {
      const [a, b] = [viewed, plain].map((purify) =>
        countingNextParse(
          HTML_LIMITS,
          () => purify.sanitize(html, SANITIZER_POLICY) as string,
        )
      );
      return a === b;
    });
  } catch {
    return false;
  }
}
