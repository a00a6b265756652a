/**
 * PNG: the signature and `IHDR` size, and where the file ends (`IEND`).
 *
 * @module
 */
import { ascii, type Found } from "./_bytes.ts";

/**
 * PNG: signature, then the IHDR chunk (length 13) with width and height.
 *
 * @example
 * ```ts
 * import { png } from "./png.ts";
 * const bytes = new Uint8Array(8);
 * png(bytes, new DataView(bytes.buffer)); // null
 * ```
 */
export function png(bytes: Uint8Array, dv: DataView): Found {
  if (!ascii(bytes, 0, "\x89PNG\r\n\x1a\n") || bytes.length < 33) return null;
  if (dv.getUint32(8) !== 13 || !ascii(bytes, 12, "IHDR")) return null;
  const width = dv.getUint32(16), height = dv.getUint32(20);
  if (width > 0x7fffffff || height > 0x7fffffff) return null;
  return ["png", width, height];
}

/**
 * PNG: chunk by chunk up to and including `IEND`; the offset after it, or
 * `null` when a chunk runs past the end.
 *
 * @example
 * ```ts
 * import { pngEnd } from "./png.ts";
 * const bytes = new Uint8Array(8);
 * pngEnd(bytes, new DataView(bytes.buffer)); // null
 * ```
 */
export function pngEnd(bytes: Uint8Array, dv: DataView): number | null {
  let at = 8;
  while (at + 12 <= bytes.length) {
    const length = dv.getUint32(at);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) return null;
    if (ascii(bytes, at + 4, "IEND")) return end;
    at = end;
  }
  return null;
}
