/**
 * The save endpoint: parse, check against the allowlist, sanitize rich
 * values and write, with optimistic versions.
 *
 * @module
 */
export {
  createSaveHandler,
  draftStore,
  type SaveEvent,
  type SaveHandlerOptions,
} from "./handler.ts";
