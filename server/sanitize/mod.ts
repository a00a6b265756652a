/**
 * The server's rich-text sanitizer: the policy of `core/sanitizer.ts` run
 * by DOMPurify on jsdom in a worker pool, with the size and structure
 * limits counted inside jsdom's one parse, which stops at the first limit
 * passed and refuses the value.
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
