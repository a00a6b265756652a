/**
 * Content checks on the server: the link check endpoint
 * (`links.ts`: which internal links of a field answer 404) and the check
 * a publish may wait for (`publish.ts`: error-level findings of the
 * drafts' content refuse the publish).
 *
 * @module
 */
export {
  createLinkCheckHandler,
  type LinkCheckHandlerOptions,
} from "./links.ts";
export { type PublishChecks, refuseFindings } from "./publish.ts";
