/**
 * Stores a prepared image, original and variants, all or nothing.
 *
 * @module
 */
import type { MediaStorage } from "../types.ts";
import type { PreparedImage } from "./process.ts";

/** One stored variant, as the upload answer lists it. */
export interface StoredVariant {
  /** Public URL: the storage's public base, a slash, then the key. */
  url: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** MIME type, e.g. `image/webp`. */
  type: string;
}

/** The stored original and variants, as the upload answer lists them. */
export interface StoredImage {
  /** Storage key of the original. */
  key: string;
  /** Public URL of the original. */
  url: string;
  /** Displayed width of the original in pixels. */
  width: number;
  /** Displayed height of the original in pixels. */
  height: number;
  /** MIME type of the original. */
  type: string;
  /** Smaller copies, by ascending width; empty when none were made. */
  variants: StoredVariant[];
  /** `false` when only the headers were checked (sharp did not load). */
  processed: boolean;
}

/**
 * The key of a variant: the original's key without its extension, then
 * `-<width>w.<ext>`, e.g. `media/3f2a.jpg` → `media/3f2a-480w.webp`.
 *
 * @example
 * ```ts
 * import { variantKey } from "@inplace/cms";
 * variantKey("media/3f2a.jpg", 480, "webp"); // "media/3f2a-480w.webp"
 * ```
 */
export function variantKey(key: string, width: number, ext: string): string {
  const dot = key.lastIndexOf(".");
  const stem = dot > key.lastIndexOf("/") ? key.slice(0, dot) : key;
  return `${stem}-${width}w.${ext}`;
}

/**
 * Puts the original under `key` and each variant under
 * {@linkcode variantKey}. If any put fails, every object of this upload that
 * was stored is deleted again and the first error is thrown, so nothing
 * partial stays behind.
 *
 * @example
 * ```ts
 * import { MemoryMediaStorage, storeImage } from "@inplace/cms";
 * const storage = new MemoryMediaStorage();
 * const bytes = new Uint8Array([1]);
 * const stored = await storeImage(storage, "media/a.png", {
 *   original: { bytes, type: "image/png", ext: "png", width: 1, height: 1 },
 *   variants: [],
 *   processed: true,
 * });
 * stored.url; // "/media/media/a.png"
 * ```
 */
export async function storeImage(
  storage: MediaStorage,
  key: string,
  image: PreparedImage,
): Promise<StoredImage> {
  const files = [
    { key, file: image.original },
    ...image.variants.map((file) => ({
      key: variantKey(key, file.width, file.ext),
      file,
    })),
  ];
  const results = await Promise.allSettled(
    files.map(({ key, file }) => storage.put(key, file.bytes, file.type)),
  );
  const failed = results.find((r) => r.status === "rejected");
  if (failed) {
    // A put that failed may still have written: delete every key.
    await Promise.allSettled(files.map(({ key }) => storage.delete(key)));
    throw failed.reason;
  }
  const { width, height, type } = image.original;
  return {
    key,
    url: storage.url(key),
    width,
    height,
    type,
    variants: image.variants.map((v, i) => ({
      url: storage.url(files[i + 1].key),
      width: v.width,
      height: v.height,
      type: v.type,
    })),
    processed: image.processed,
  };
}
