/**
 * The history endpoint: an address's revisions, one revision's value, and
 * restore (written as a new save).
 *
 * @module
 */
export { createHistoryHandler, type HistoryHandlerOptions } from "./handler.ts";
