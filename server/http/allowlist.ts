/**
 * Field resolution against the save endpoint's allowlist: the one place that
 * decides whether a parsed field address may be written, and how.
 *
 * @module
 */
import { type FieldAddress, fieldPath } from "../../core/address.ts";
import { type FieldSpec, fieldSpec } from "../../core/content.ts";
import { localizeAddress } from "../../core/locale.ts";
import type { Allowlist, FieldKind } from "./auth.ts";

/** A field of a save request that the allowlist admits. */
export interface ResolvedField {
  /**
   * The record's field name (`features` for `features.2`; `title@de` for
   * a locale other than the default, see `core/locale.ts`).
   */
  name: string;
  /**
   * The address as stored: its locale checked, and dropped when it is the
   * default locale. Its `fieldPath` is the path in the record's history.
   */
  address: FieldAddress;
  /** How the field is stored. For a list item the item is a plain string. */
  kind: FieldKind;
  /** The list item's position; absent for a whole-list write. */
  index?: number;
  /**
   * How the value is checked: the field's spec (for a whole list: with its
   * `min`, `max` and `item`), or its item's for a list item.
   */
  spec: FieldSpec;
}

/**
 * Resolves a field address (already valid by the address grammar) against
 * `allowlist`, a hand-written one or a `defineContent` result. Returns the
 * field, or a short reason why it is not writable. Only own properties
 * count, so `toString`, `hasOwnProperty` and friends are never found.
 *
 * Whether the list item at `index` exists is checked later, against the
 * stored record.
 *
 * @example
 * ```ts
 * import { resolveField } from "./allowlist.ts";
 * const allowlist = { pages: { title: "plain", features: "list" } } as const;
 * resolveField(allowlist, { collection: "pages", key: "home", field: "features", index: 2 });
 * // { name: "features", address: { … }, kind: "list", index: 2, spec: { kind: "plain" } }
 * resolveField(allowlist, { collection: "pages", key: "home", field: "features" });
 * // the whole list: { name: "features", address: { … }, kind: "list", spec: { kind: "list", … } }
 * resolveField(allowlist, { collection: "pages", key: "home", field: "title", index: 0 });
 * // "Field is not a list"
 * ```
 */
export function resolveField(
  allowlist: Allowlist,
  address: FieldAddress,
): ResolvedField | string {
  const { collection, field: name, index } = address;
  if (!Object.hasOwn(allowlist, collection)) return "Unknown collection";
  const spec = fieldSpec(allowlist, collection, name);
  if (spec === undefined) return "Field not allowed";
  const { kind } = spec;
  const stored = localizeAddress(allowlist, address);
  if (typeof stored === "string") return stored;
  // `name@locale`, or the plain name for the default locale.
  const record = fieldPath({ ...stored, index: undefined });
  if (index === undefined) return { name: record, address: stored, kind, spec };
  if (kind !== "list" || spec.item === undefined) return "Field is not a list";
  return { name: record, address: stored, kind, index, spec: spec.item };
}
