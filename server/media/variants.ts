/**
 * Stores a prepared image, original and variants, all or nothing.
 *
 * @module
 */
import type { MediaAnswer } from "../../core/protocol/mod.ts";
import type { MediaStorage } from "./types.ts";
import type { PreparedImage } from "../image/mod.ts";

/**
 * The key of a variant: the original's key without its extension, then
 * `-<width>w.<ext>`, e.g. `3f2a.jpg` → `3f2a-480w.webp`.
 *
 * @example
 * ```ts
 * import { variantKey } from "./variants.ts";
 * variantKey("3f2a.jpg", 480, "webp"); // "3f2a-480w.webp"
 * ```
 */
export function variantKey(key: string, width: number, ext: string): string {
  const dot = key.lastIndexOf(".");
  const stem = dot > key.lastIndexOf("/") ? key.slice(0, dot) : key;
  return `${stem}-${width}w.${ext}`;
}

/**
 * Puts the original under `key` and each variant under
 * {@linkcode variantKey}, and returns the media endpoint's answer. If any put fails, every object of this upload that
 * was stored is deleted again and the first error is thrown, so nothing
 * partial stays behind.
 *
 * @example
 * ```ts
 * import { storeImage } from "./variants.ts";
 * import { MemoryMediaStorage } from "./memory.ts";
 * const storage = new MemoryMediaStorage();
 * const bytes = new Uint8Array([1]);
 * const stored = await storeImage(storage, "a.png", {
 *   original: { bytes, type: "image/png", ext: "png", width: 1, height: 1 },
 *   variants: [],
 *   processed: true,
 * });
 * stored.url; // "/media/a.png"
 * ```
 */
export async function storeImage(
  storage: MediaStorage,
  key: string,
  image: PreparedImage,
): Promise<MediaAnswer> {
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
