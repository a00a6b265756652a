/**
 * The contract of a media storage: where uploaded files are kept and how the
 * public reaches them. Local files, memory and S3 implement it.
 *
 * @module
 */
/** Where uploaded images are kept and how the public reaches them. */
export interface MediaStorage {
  /** Stores the bytes under `key` with the verified `contentType`. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Removes the object of `key`; resolves when it is gone, also when it
   * never existed. Used to undo a half-stored upload.
   */
  delete(key: string): Promise<void>;
  /** Public URL of a key: the public base address, a slash, then the key. */
  url(key: string): string;
  /**
   * Optional readiness probe: resolves when the storage can be reached,
   * rejects otherwise. Cheap and read-only (used by `/readyz`).
   */
  check?(): Promise<void>;
}

/** One stored media object, as a listing gives it. */
export interface MediaObjectInfo {
  /** Its storage key. */
  key: string;
  /** Its size in bytes. */
  size: number;
  /** When it was last written, ISO 8601. */
  modified: string;
}

/**
 * A {@linkcode MediaStorage} that can list what it holds: the local, S3
 * and memory storages. The media library and media gc need it.
 */
export interface ListableMediaStorage extends MediaStorage {
  /** Every stored object, in no fixed order. */
  list(): AsyncIterable<MediaObjectInfo>;
}
