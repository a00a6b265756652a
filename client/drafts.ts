/**
 * Local drafts of unsaved field values, kept in `localStorage` under
 * `cms-draft:<collection:key:field>:<version>`.
 *
 * @module
 */

/** The storage key of a field's draft. */
export function draftKey(id: string, version = ""): string {
  return `cms-draft:${id}:${version}`;
}

/** Whether any draft is stored at all (one pass over the storage keys). */
export function hasDrafts(): boolean {
  try {
    for (let i = 0; i < localStorage.length; i++) {
      if (localStorage.key(i)?.startsWith("cms-draft:")) return true;
    }
  } catch { /* storage unavailable */ }
  return false;
}

/**
 * Reads a draft. It only counts when it was made from the same stored
 * value (`base`), so an unversioned field never resurrects a stale draft.
 */
export function readDraft(
  id: string,
  version: string | undefined,
  base: string,
): string | undefined {
  try {
    const raw = localStorage.getItem(draftKey(id, version));
    if (!raw) return;
    const d = JSON.parse(raw);
    if (d?.base === base && typeof d.value === "string" && d.value !== base) {
      return d.value;
    }
  } catch { /* storage unavailable or corrupt: no draft */ }
}

/** Stores a draft of `value`, made from the stored value `base`. */
export function writeDraft(
  id: string,
  version: string | undefined,
  base: string,
  value: string,
): void {
  try {
    localStorage.setItem(
      draftKey(id, version),
      JSON.stringify({ base, value }),
    );
  } catch { /* quota or privacy mode: drafts are best effort */ }
}

/** Removes a field's draft. */
export function clearDraft(id: string, version: string | undefined): void {
  try {
    localStorage.removeItem(draftKey(id, version));
  } catch { /* ignore */ }
}
