/**
 * Field versions for conflict detection: `contentVersion`, whose rule lives
 * in `core/version.ts` (shared with the browser client).
 *
 * @module
 */
export { contentVersion } from "../core/version.ts";
