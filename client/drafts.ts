/**
 * Local drafts of unsaved field values, kept in `localStorage` under
 * `cms-draft:<collection:key:field>:<version>` as `{base, value}`. Storage
 * errors (quota, privacy mode) are ignored: drafts are best effort.
 *
 * @module
 */

import type { DraftStore } from "./model.ts";

const PREFIX = "cms-draft:";

/** The part of the Web Storage API that drafts use. */
export type DraftStorage = Pick<
  Storage,
  "getItem" | "setItem" | "removeItem" | "key" | "length"
>;

/** Where drafts live: a function returning the storage (`localStorage`). */
export type DraftSource = () => DraftStorage;

function use<T>(
  source: DraftSource,
  fn: (s: DraftStorage) => T,
): T | undefined {
  try {
    return fn(source());
  } catch { /* storage unavailable or corrupt */ }
}

const keyOf = (f: { id: string; version?: string }) =>
  `${PREFIX}${f.id}:${f.version ?? ""}`;

/** The keys of every draft in `s`. */
function draftKeys(s: DraftStorage): string[] {
  const keys: string[] = [];
  for (let i = 0; i < s.length; i++) {
    const k = s.key(i);
    if (k?.startsWith(PREFIX)) keys.push(k);
  }
  return keys;
}

/**
 * The draft store of the editing session, on `localStorage` (or the storage
 * `source` returns). A draft only counts when it was made from the same
 * stored value (`base`), so an unversioned field never resurrects a stale
 * draft. `clear` only marks a draft for removal; `flush` (the model calls it
 * once its save queue is drained) and `read` remove the marked ones in one
 * batch, and a `write` of the same draft first unmarks it.
 *
 * @example
 * ```ts ignore
 * const drafts = localDrafts();
 * const lookup = drafts.read(); // undefined when no draft is stored
 * ```
 */
export function localDrafts(
  source: DraftSource = () => localStorage,
): DraftStore {
  // Keys whose removal `clear` deferred to the next `flush`.
  const stale = new Set<string>();
  const flush = () => {
    if (!stale.size) return;
    for (const key of stale) use(source, (s) => s.removeItem(key));
    stale.clear();
  };
  return {
    read() {
      flush();
      if (!use(source, (s) => draftKeys(s).length)) return;
      return (f) =>
        use(source, (s) => {
          const d = JSON.parse(s.getItem(keyOf(f))!);
          const ok = d?.base === f.base && typeof d.value === "string";
          if (ok && d.value !== f.base) return d.value as string;
        });
    },
    write(f) {
      const key = keyOf(f);
      stale.delete(key);
      use(
        source,
        (s) =>
          f.value === f.base ? s.removeItem(key) : s.setItem(
            key,
            JSON.stringify({ base: f.base, value: f.value }),
          ),
      );
    },
    clear: (f) => void stale.add(keyOf(f)),
    flush,
  };
}

/**
 * Removes every local draft of this browser (all fields, all pages of the
 * origin). Call it when the editor logs out, so unsaved text does not come
 * back at the next sign-in on this browser.
 *
 * @example
 * ```ts ignore
 * import { clearDrafts } from "@inplace/cms/client";
 * logoutForm.addEventListener("submit", () => clearDrafts());
 * ```
 */
export function clearDrafts(source: DraftSource = () => localStorage): void {
  use(source, (s) => draftKeys(s).forEach((k) => s.removeItem(k)));
}
