/**
 * Server-side sanitizing of rich field values with the shared policy from
 * `core/sanitizer.ts`, run by DOMPurify on jsdom. jsdom, DOMPurify and
 * parse5 are imported lazily, on the first call, so hosts that never save a
 * rich field never load them.
 *
 * Before jsdom sees the HTML, a counting parse5 pass enforces
 * {@linkcode HTML_LIMITS}. Without it, 10 KB of misnested formatting tags
 * make the HTML parser build hundreds of thousands of elements (about a
 * minute of CPU), thousands of stripped siblings cost seconds (jsdom's
 * child removal is linear), and deep nesting overflows jsdom's serializer.
 *
 * @example
 * ```ts
 * import { sanitizeHtml } from "./sanitize.ts";
 *
 * const clean = await sanitizeHtml('<p onclick="x()">Hi<script>x()</script></p>');
 * // clean === "<p>Hi</p>"
 * ```
 *
 * @module
 */

import type { WindowLike } from "dompurify";
import type { DefaultTreeAdapterMap, TreeAdapter } from "parse5";
import {
  createSanitizer,
  type Sanitize,
  SANITIZER_POLICY,
} from "../core/sanitizer.ts";

/** Limits on the parsed shape of rich HTML; see {@linkcode HtmlTooComplexError}. */
export const HTML_LIMITS: Readonly<{
  /** Elements the parser may create, implied ones included. */
  elements: number;
  /** Elements and comments the policy would have to remove one by one. */
  removals: number;
  /** Nesting depth of elements. */
  depth: number;
}> = Object.freeze({ elements: 20_000, removals: 1_000, depth: 512 });

/**
 * Thrown by {@linkcode sanitizeHtml} when the HTML exceeds
 * {@linkcode HTML_LIMITS}. A save handler answers it with a 4xx.
 */
export class HtmlTooComplexError extends RangeError {
  /** HTTP status for this error: 400 (the save handler answers with it). */
  readonly status = 400;
  /**
   * Creates the error.
   *
   * @param detail Which limit was exceeded.
   */
  constructor(detail: string) {
    super(`rich HTML too complex: ${detail}`);
    this.name = "HtmlTooComplexError";
  }
}

type Guard = (html: string) => void;

let loading: Promise<[Guard, Sanitize]> | undefined;

function load(): Promise<[Guard, Sanitize]> {
  loading ??= (async () => {
    const [{ JSDOM }, { default: createDOMPurify }, parse5] = await Promise
      .all([import("jsdom"), import("dompurify"), import("parse5")]);
    const { window } = new JSDOM("<!DOCTYPE html>");
    // jsdom's window satisfies DOMPurify's WindowLike at run time.
    const purify = createDOMPurify(window as unknown as WindowLike);
    const guard: Guard = (html) =>
      void parse5.parse(html, {
        treeAdapter: countingAdapter(parse5.defaultTreeAdapter),
        scriptingEnabled: false, // as jsdom's DOMParser
      });
    return [guard, createSanitizer(purify)] as [Guard, Sanitize];
  })().catch((error) => {
    loading = undefined; // let a later call retry
    throw error;
  });
  return loading;
}

type Adapter = TreeAdapter<DefaultTreeAdapterMap>;

/** parse5's default tree adapter, counting what it builds against the limits. */
function countingAdapter(base: Adapter): Adapter {
  const allowed = new Set(SANITIZER_POLICY.ALLOWED_TAGS);
  const depths = new WeakMap<object, number>();
  let elements = 0;
  let removals = 0;
  const removal = () => {
    if (++removals > HTML_LIMITS.removals) {
      throw new HtmlTooComplexError(`over ${HTML_LIMITS.removals} removals`);
    }
  };
  const place = (parent: object, node: object) => {
    const depth = (depths.get(parent) ?? 0) + 1;
    if (depth > HTML_LIMITS.depth) {
      throw new HtmlTooComplexError(`nested over ${HTML_LIMITS.depth} deep`);
    }
    depths.set(node, depth);
  };
  return {
    ...base,
    createElement(tagName, namespaceURI, attrs) {
      if (++elements > HTML_LIMITS.elements) {
        throw new HtmlTooComplexError(`over ${HTML_LIMITS.elements} elements`);
      }
      // img counts: an invalid one is removed.
      if (!allowed.has(tagName) || tagName === "img") removal();
      return base.createElement(tagName, namespaceURI, attrs);
    },
    createCommentNode(data) {
      removal();
      return base.createCommentNode(data);
    },
    appendChild(parent, node) {
      place(parent, node);
      base.appendChild(parent, node);
    },
    insertBefore(parent, node, reference) {
      place(parent, node);
      base.insertBefore(parent, node, reference);
    },
  };
}

/**
 * Sanitizes rich HTML with the shared policy. The first call loads jsdom,
 * DOMPurify and parse5 (about half a second); later calls are synchronous
 * work.
 *
 * Throws a `TypeError` for a non-string, and an
 * {@linkcode HtmlTooComplexError} when the HTML exceeds
 * {@linkcode HTML_LIMITS}; a save handler answers both with 400.
 *
 * @example
 * ```ts
 * import { sanitizeHtml } from "./sanitize.ts";
 *
 * await sanitizeHtml('<img src="data:image/png;base64,AA" width="1" height="1">');
 * // ""
 * await sanitizeHtml('<a href="https://example.com" target="_blank">x</a>');
 * // '<a href="https://example.com" rel="noopener noreferrer nofollow">x</a>'
 * ```
 */
export async function sanitizeHtml(html: string): Promise<string> {
  if (typeof html !== "string") {
    throw new TypeError("sanitizeHtml expects a string of HTML");
  }
  const [guard, sanitize] = await load();
  if (html.includes("<")) guard(html); // DOMPurify returns the rest as is
  return sanitize(html);
}
