/**
 * The save endpoint's writes, each one atomic read-modify-write of the
 * record with the field's new revision: {@linkcode saveValue} picks
 * between a plain write (a field, a list item, a whole list; published or
 * draft) and the first edit of a list item in a locale that reads its list
 * from a fallback (the locale's own list is made from it).
 *
 * @module
 */
import { type FieldAddress, fieldPath } from "../../core/address.ts";
import { fallbackNames } from "../../core/locale.ts";
import type { Allowlist, ResolvedField } from "../http/mod.ts";
import type {
  ContentRecord,
  ContentStore,
  ContentValue,
  DraftStore,
  RevisionInput,
} from "../store/mod.ts";
import { contentVersion } from "../../core/version.ts";

/** One save to store: where, what, and against which version. */
export interface SaveWrite {
  /** The store written to (a draft store in publish mode `draft`). */
  store: ContentStore;
  /** Whether the write is the field's draft (publish mode `draft`). */
  draft: boolean;
  /** The allowlist (for the field's locale fallbacks). */
  allowlist: Allowlist;
  /** The field, resolved against the allowlist. */
  target: ResolvedField;
  /** The checked value (a list for a whole-list write). */
  value: ContentValue;
  /** The version the editor saw, if sent. */
  version: string | undefined;
  /** The editor's name, for the revision. */
  editor: string;
}

/**
 * Stores one save: for an item of a list in a locale without a list of its
 * own yet, the locale's whole list made from its fallback's
 * (`translateList`); else the field, item or whole list (`write`).
 */
export async function saveValue(w: SaveWrite): Promise<Outcome> {
  const { store, draft, target, value, version, editor } = w;
  const base = await untranslatedList(store, draft, w.allowlist, target);
  if (base === undefined) {
    const { address } = target;
    return await write(store, draft, address, target, value, version, {
      field: fieldPath(address),
      editor,
    });
  }
  return await translateList(
    store,
    draft,
    target,
    base,
    value as string,
    version,
    editor,
  );
}

/** What a write decided: written, a conflict, or a missing list item. */
export type Outcome = "written" | "missing" | { current: ContentValue };

/**
 * One atomic read-modify-write of the record, with the field's new revision
 * in the same operation (a history store); nothing partial is stored.
 */
async function write(
  store: ContentStore,
  draft: boolean,
  address: FieldAddress,
  target: ResolvedField,
  value: ContentValue,
  version: string | undefined,
  revision: RevisionInput,
): Promise<Outcome> {
  let outcome: Outcome = "missing";
  const mutate = (current: ContentRecord | null) => {
    const result = apply(current, target, value, version);
    outcome = result.outcome;
    return result.record;
  };
  // A draft store given here means draft mode: the save is the field's
  // draft, checked against the value the editor sees (the draft, if any).
  if (draft) {
    await (store as DraftStore).updateDraft(
      address.collection,
      address.key,
      mutate,
      revision,
    );
  } else await store.update(address.collection, address.key, mutate, revision);
  return outcome;
}

/**
 * For an item of a list in a locale that has no list of its own yet: the
 * list it reads now (its first fallback's), from which the edit makes the
 * locale's list. `undefined` for every other write.
 */
async function untranslatedList(
  store: ContentStore,
  draft: boolean,
  allowlist: Allowlist,
  target: ResolvedField,
): Promise<string[] | undefined> {
  if (target.index === undefined) return undefined;
  const names = fallbackNames(allowlist, target.address);
  if (names.length === 0) return undefined;
  const { collection, key } = target.address;
  const record = draft
    ? await (store as DraftStore).getDrafted(collection, key)
    : await store.get(collection, key);
  if (!record || Object.hasOwn(record, target.name)) return undefined;
  const from = names.find((name) => Array.isArray(record[name]));
  return from === undefined ? undefined : [...record[from] as string[]];
}

/**
 * Writes item `target.index` of a list the locale reads from a fallback
 * (`base`) as the locale's own whole list, with the item changed: one
 * atomic write of the list (its revision and draft are the whole list's).
 * `version` is checked against the item the editor saw; when another save
 * made the locale's list in between, the item is written into that list
 * as any item save is (a conflict when that item is not what the editor
 * saw), so item saves sent side by side never conflict with each other.
 */
async function translateList(
  store: ContentStore,
  draft: boolean,
  target: ResolvedField,
  base: string[],
  value: string,
  version: string | undefined,
  editor: string,
): Promise<Outcome> {
  const index = target.index!;
  if (index >= base.length) return "missing";
  if (version !== undefined && contentVersion(base[index]) !== version) {
    return { current: base[index] };
  }
  const whole: ResolvedField = { ...target, index: undefined };
  const list = base.with(index, value);
  let outcome: Outcome = "written";
  const mutate = (current: ContentRecord | null) => {
    if (current && Object.hasOwn(current, target.name)) {
      // Another save made the locale's list in between (e.g. this
      // editor's save of another item): the item is written into it, if
      // it is still the one the editor saw.
      const result = apply(current, target, value, version);
      outcome = result.outcome;
      return result.record;
    }
    return apply(current, whole, list, undefined).record;
  };
  const { collection, key } = target.address;
  const revision = { field: target.name, editor };
  if (draft) {
    await (store as DraftStore).updateDraft(collection, key, mutate, revision);
  } else await store.update(collection, key, mutate, revision);
  return outcome;
}

/** The pure read-modify-write step run inside `store.update`. */
function apply(
  current: ContentRecord | null,
  target: ResolvedField,
  value: ContentValue,
  version: string | undefined,
): { outcome: Outcome; record: ContentRecord | null } {
  const stored: ContentValue | undefined =
    current && Object.hasOwn(current, target.name)
      ? current[target.name]
      : undefined;
  let previous: ContentValue | undefined = stored;
  let next: ContentValue = value;
  if (target.index !== undefined) {
    if (!Array.isArray(stored) || target.index >= stored.length) {
      return { outcome: "missing", record: null };
    }
    previous = stored[target.index];
    next = stored.with(target.index, value as string);
  }
  if (
    version !== undefined && previous !== undefined &&
    contentVersion(previous) !== version
  ) {
    return { outcome: { current: previous }, record: null };
  }
  return { outcome: "written", record: { ...current, [target.name]: next } };
}
