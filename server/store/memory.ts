/**
 * An in-memory {@linkcode ContentStore}, for tests and demos. Nothing
 * survives a restart.
 *
 * @module
 */
import type { ContentRecord, ContentStore } from "../types.ts";

/**
 * A `Map`-backed content store. Records go in and come out as structured
 * clones, so callers can never change stored state by mutating what they got.
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "@inplace/cms";
 * const store = new MemoryContentStore({
 *   "pages:home": { title: "Hello", features: ["Fast", "Small"] },
 * });
 * await store.update("pages", "home", (r) => ({ ...r, title: "Hi" }));
 * (await store.get("pages", "home"))?.title; // "Hi"
 * ```
 */
export class MemoryContentStore implements ContentStore {
  #records = new Map<string, ContentRecord>();

  /**
   * Creates a store, optionally seeded.
   *
   * @param seed Initial records keyed by `"<collection>:<key>"` (split at the
   * first colon).
   */
  constructor(seed: Record<string, ContentRecord> = {}) {
    for (const [id, record] of Object.entries(seed)) {
      const at = id.indexOf(":");
      if (at < 0) {
        throw new TypeError(`seed key "${id}" needs "collection:key"`);
      }
      this.#records.set(
        mapKey(id.slice(0, at), id.slice(at + 1)),
        structuredClone(record),
      );
    }
  }

  /** Reads a copy of one record, or `null` when it does not exist. */
  get(collection: string, key: string): Promise<ContentRecord | null> {
    const record = this.#records.get(mapKey(collection, key));
    return Promise.resolve(record ? structuredClone(record) : null);
  }

  /**
   * Replaces one record with what `mutate` returns (`null`: write nothing).
   * Runs synchronously between awaits, so it is atomic in one process.
   */
  update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
  ): Promise<ContentRecord | null> {
    try {
      const id = mapKey(collection, key);
      const current = this.#records.get(id);
      const next = mutate(current ? structuredClone(current) : null);
      if (next === null) return Promise.resolve(null);
      // The stored copy is never handed out; `next` is already the caller's.
      this.#records.set(id, structuredClone(next));
      return Promise.resolve(next);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

function mapKey(collection: string, key: string): string {
  return JSON.stringify([collection, key]);
}
