/**
 * Field resolution against the save endpoint's allowlist: the one place that
 * decides whether a `field` of a save request may be written, and how.
 *
 * @module
 */
import type { Allowlist, FieldKind } from "./types.ts";

/** A field of a save request that the allowlist admits. */
export interface ResolvedField {
  /** The record's field name (`features` for `features.2`). */
  name: string;
  /** How the field is stored. For a list item the item is a plain string. */
  kind: FieldKind;
  /** The list item's position, for `list` fields only. */
  index?: number;
}

/** Field names that are never writable, whatever the allowlist says. */
const RESERVED = new Set(["__proto__", "constructor", "prototype"]);
const KINDS = new Set<unknown>(["plain", "rich", "list"]);
/** A canonical non-negative integer: no sign, no leading zero, < 1e9. */
const INDEX = /^(?:0|[1-9][0-9]{0,8})$/;

/**
 * Resolves `collection` and `field` (`title`, or `features.2` for a list
 * item) against `allowlist`. Returns the field, or a short reason why it is
 * not writable. Only own properties count, so `__proto__`, `constructor`,
 * `hasOwnProperty` and friends are never found.
 *
 * Whether the list item at `index` exists is checked later, against the
 * stored record.
 *
 * @example
 * ```ts
 * import { resolveField } from "./allowlist.ts";
 * const allowlist = { pages: { title: "plain", features: "list" } } as const;
 * resolveField(allowlist, "pages", "features.2");
 * // { name: "features", kind: "list", index: 2 }
 * resolveField(allowlist, "pages", "features"); // "list field needs an index"
 * ```
 */
export function resolveField(
  allowlist: Allowlist,
  collection: string,
  field: string,
): ResolvedField | string {
  if (RESERVED.has(collection) || !Object.hasOwn(allowlist, collection)) {
    return "Unknown collection";
  }
  const fields = allowlist[collection];
  const dot = field.indexOf(".");
  const name = dot < 0 ? field : field.slice(0, dot);
  if (
    typeof fields !== "object" || fields === null || RESERVED.has(name) ||
    !Object.hasOwn(fields, name) || !KINDS.has(fields[name])
  ) {
    return "Field not allowed";
  }
  const kind = fields[name];
  if (dot < 0) {
    return kind === "list" ? "List field needs an item index" : { name, kind };
  }
  if (kind !== "list") return "Field is not a list";
  const index = field.slice(dot + 1);
  if (!INDEX.test(index)) return "Invalid list index";
  return { name, kind, index: Number(index) };
}
