/**
 * The server's rich-text sanitizer: the policy of `core/sanitizer.ts` run
 * by DOMPurify on jsdom in a worker pool, after a size and structure limit
 * check, counted inside the HTML parser, that refuses hostile input before
 * jsdom builds its DOM.
 *
 * @module
 */
export { createDomSanitizer, type DomSanitize } from "./dom.ts";
export { HTML_LIMITS, scanLimits } from "./limits.ts";
export {
  type HtmlLimits,
  sanitizeHtml,
  type SanitizeOptions,
  type SanitizeResult,
  sanitizeRich,
  type SanitizerOptions,
  warmSanitizer,
} from "./pool.ts";
