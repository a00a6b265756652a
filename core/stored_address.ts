/**
 * The address text of a stored field, as drafts, revisions, schedules,
 * events and the list editor write it. Its own module so that a browser
 * chunk that needs only this rule doesn't pull in the address grammar.
 *
 * @module
 */

/**
 * The address text of a stored field: `collection:key:path`, where `path`
 * is the field's path in the stored record (`title`, `title@de`,
 * `features@de.2`), as drafts, revisions, schedules and events carry it.
 * The one place that text is written for a stored field; a parsed address
 * goes through `formatAddress` (`core/address.ts`).
 *
 * @example
 * ```ts
 * import { storedAddress } from "./stored_address.ts";
 * storedAddress({ collection: "pages", key: "home", field: "title@de" });
 * // "pages:home:title@de"
 * ```
 */
export function storedAddress(
  ref: { collection: string; key: string; field: string },
): string {
  return `${ref.collection}:${ref.key}:${ref.field}`;
}
