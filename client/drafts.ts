/**
 * Local drafts of unsaved field values, kept in `localStorage` under
 * `cms-draft:<collection:key:field>:<version>` as `{base, value}`. Storage
 * errors (quota, privacy mode) are ignored: drafts are best effort.
 *
 * @module
 */

const PREFIX = "cms-draft:";

/** A field as far as drafts are concerned. */
export interface DraftField {
  id: string;
  version?: string;
  /** The stored value the draft was made from. */
  base: string;
  value: string;
}

function storage<T>(fn: (s: Storage) => T): T | undefined {
  try {
    return fn(localStorage);
  } catch { /* storage unavailable or corrupt */ }
}

const keyOf = (f: { id: string; version?: string }) =>
  `${PREFIX}${f.id}:${f.version ?? ""}`;

/**
 * Returns the lookup of a field's draft, or `undefined` when no draft is
 * stored at all (one pass over the storage keys). A draft only counts when
 * it was made from the same stored value (`base`), so an unversioned field
 * never resurrects a stale draft.
 */
export function readDrafts():
  | ((f: DraftField) => string | undefined)
  | undefined {
  if (storage((s) => Object.keys(s).some((k) => k.startsWith(PREFIX)))) {
    return (f) =>
      storage((s) => {
        const d = JSON.parse(s.getItem(keyOf(f))!);
        const ok = d?.base === f.base && typeof d.value === "string";
        if (ok && d.value !== f.base) return d.value;
      });
  }
}

/** Stores the field's value as a draft, or removes the draft when clean. */
export function writeDraft(f: DraftField): void {
  storage((s) =>
    f.value === f.base
      ? s.removeItem(keyOf(f))
      : s.setItem(keyOf(f), JSON.stringify({ base: f.base, value: f.value }))
  );
}

/** Removes the field's draft. */
export function clearDraft(f: { id: string; version?: string }): void {
  storage((s) => s.removeItem(keyOf(f)));
}
