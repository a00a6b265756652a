/**
 * An in-memory {@linkcode MediaStorage}, for tests and demos.
 *
 * @module
 */
import type { MediaObjectInfo, MediaStorage } from "./types.ts";

/** A stored media object: its bytes and verified content type. */
export interface StoredMedia {
  /** The stored bytes. */
  bytes: Uint8Array;
  /** The verified content type stored with the bytes. */
  contentType: string;
  /** When it was stored, ISO 8601. */
  at?: string;
}

/** Options of {@linkcode MemoryMediaStorage}. */
export interface MemoryMediaStorageOptions {
  /** Public base address of the objects. Default `"/media"`. */
  publicUrl?: string;
}

/**
 * Keeps media objects in a `Map`. Nothing survives a restart.
 *
 * @example
 * ```ts
 * import { MemoryMediaStorage } from "@inplace/cms";
 * const media = new MemoryMediaStorage();
 * await media.put("img/a.png", new Uint8Array([137, 80]), "image/png");
 * media.url("img/a.png"); // "/media/img/a.png"
 * media.get("img/a.png")?.contentType; // "image/png"
 * ```
 */
export class MemoryMediaStorage implements MediaStorage {
  readonly #objects = new Map<string, StoredMedia>();
  readonly #publicUrl: string;

  /** Creates an empty storage. */
  constructor(options: MemoryMediaStorageOptions = {}) {
    this.#publicUrl = (options.publicUrl ?? "/media").replace(/\/+$/, "");
  }

  /** Stores a copy of `bytes` under `key` with `contentType`. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    this.#objects.set(key, {
      bytes: bytes.slice(),
      contentType,
      at: new Date().toISOString(),
    });
    return Promise.resolve();
  }

  /** Removes the object of `key`, if any. */
  delete(key: string): Promise<void> {
    this.#objects.delete(key);
    return Promise.resolve();
  }

  /** Every stored object with its size and time, sorted by key. */
  async *list(): AsyncIterable<MediaObjectInfo> {
    for (const key of this.keys()) {
      const o = this.#objects.get(key);
      if (o) yield { key, size: o.bytes.byteLength, modified: o.at ?? "" };
    }
  }

  /** The keys stored now, sorted. */
  keys(): string[] {
    return [...this.#objects.keys()].sort();
  }

  /** The stored object of `key` (a copy), or `null`. */
  get(key: string): StoredMedia | null {
    const object = this.#objects.get(key);
    return object
      ? { bytes: object.bytes.slice(), contentType: object.contentType }
      : null;
  }

  /** The public base address, a slash, then the key (URL-encoded per segment). */
  url(key: string): string {
    return `${this.#publicUrl}/${encodeKey(key)}`;
  }
}

function encodeKey(key: string): string {
  return key.split("/").map(encodeURIComponent).join("/");
}
