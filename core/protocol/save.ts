/**
 * The save endpoint: one field of one record, or a whole list at once.
 *
 * `PATCH` (or `POST`) a JSON {@linkcode SaveBody} (or a
 * {@linkcode ListSaveBody} for a whole list); success is `204` with the
 * stored value's version in {@linkcode VERSION_HEADER} (and, for a rich
 * field, what the sanitizer removed in {@linkcode REMOVED_HEADER}); a stale
 * `version` is `409` with a {@linkcode ConflictBody} (a
 * {@linkcode ListConflictBody} for a list).
 *
 * @module
 */

/**
 * The JSON body of a save request: one field of one record, in one locale.
 *
 * @example
 * ```ts
 * import type { SaveBody } from "./save.ts";
 * const body: SaveBody = {
 *   collection: "pages",
 *   key: "home",
 *   field: "features.2",
 *   value: "Small",
 *   version: "1x2y3z",
 * };
 * ```
 */
export interface SaveBody {
  /** The record's collection (an address part). */
  collection: string;
  /** The record's key (an address part). */
  key: string;
  /** The field name, or `name.N` for item N of a list field. */
  field: string;
  /**
   * The new value: text for plain fields and list items (numbers and
   * booleans are stored as text), HTML for rich fields, a URL for image
   * fields.
   */
  value: string | number | boolean;
  /** The version the editor started from; a mismatch is a 409. */
  version?: string;
  /**
   * The locale whose value is saved (a declared locale). Absent: the
   * default locale's, or the one value of a shared field. A locale on a
   * shared field, or an undeclared one, is 400.
   */
  locale?: string;
}

/**
 * The response header of a 204 save answer with the stored value's version
 * (`contentVersion` of it), to send back as the next save's `version`.
 *
 * @example
 * ```ts
 * import { VERSION_HEADER } from "./save.ts";
 * const res = new Response(null, { status: 204, headers: { [VERSION_HEADER]: "abc" } });
 * res.headers.get(VERSION_HEADER); // "abc"
 * ```
 */
export const VERSION_HEADER = "CMS-Version";

/**
 * Header on a `204` save answer for a rich field: how many elements,
 * comments and attributes the sanitizer removed or unwrapped from the value
 * sent (absent when nothing was removed), so the editor can be told.
 *
 * @example
 * ```ts
 * import { REMOVED_HEADER } from "./save.ts";
 * const res = new Response(null, { status: 204, headers: { [REMOVED_HEADER]: "2" } });
 * Number(res.headers.get(REMOVED_HEADER) ?? 0); // 2
 * ```
 */
export const REMOVED_HEADER = "CMS-Removed";

/**
 * The body of a 409 save answer: the value stored now and its version.
 *
 * @example
 * ```ts
 * import type { ConflictBody } from "./save.ts";
 * const body: ConflictBody = { error: "conflict", value: "Theirs", version: "9k2" };
 * ```
 */
export interface ConflictBody {
  /** Always `"conflict"`. */
  error: "conflict";
  /** The value stored now. */
  value: string;
  /** Its version. */
  version: string;
}

/**
 * The JSON body of a whole-list write: the save endpoint's body with the
 * bare address of a list field (`field: "features"`, no index) and every
 * item, in order. It adds, removes and reorders items in one write; the
 * length must be within the field's `min` and `max` (else 400, nothing
 * stored). `version` is the whole list's (`contentVersion(list)`); a
 * mismatch is a 409 {@linkcode ListConflictBody}. Per-item saves
 * (`features.2`, {@linkcode SaveBody}) keep working beside it.
 *
 * @example
 * ```ts
 * import type { ListSaveBody } from "./save.ts";
 * const body: ListSaveBody = {
 *   collection: "pages",
 *   key: "home",
 *   field: "features",
 *   value: ["Small", "Fast", "Safe"],
 *   version: "2k9x",
 * };
 * ```
 */
export interface ListSaveBody extends Omit<SaveBody, "value"> {
  /** Every item of the list, in order (plain texts). */
  value: string[];
}

/**
 * The body of a 409 answer to a whole-list write: the list stored now and
 * its version.
 *
 * @example
 * ```ts
 * import type { ListConflictBody } from "./save.ts";
 * const body: ListConflictBody = { error: "conflict", value: ["A"], version: "7q" };
 * ```
 */
export interface ListConflictBody extends Omit<ConflictBody, "value"> {
  /** The list stored now. */
  value: string[];
}
