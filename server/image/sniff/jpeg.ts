/**
 * JPEG: the size from the first frame header (SOFn), and where the file
 * ends (EOI after the entropy-coded data).
 *
 * @module
 */
import type { Found } from "./_bytes.ts";

/**
 * JPEG: walks the marker segments up to the first SOFn frame header.
 *
 * @example
 * ```ts
 * import { jpeg } from "./jpeg.ts";
 * const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
 * jpeg(bytes, new DataView(bytes.buffer)); // null (no frame header)
 * ```
 */
export function jpeg(bytes: Uint8Array, dv: DataView): Found {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return null;
  let i = 2;
  while (i + 1 < bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1];
    if (marker === 0xff) { // fill byte
      i++;
      continue;
    }
    i += 2;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (marker === 0xd9 || marker === 0xda || i + 2 > bytes.length) return null;
    const length = dv.getUint16(i);
    if (length < 2) return null;
    const sof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 &&
      marker !== 0xc8 && marker !== 0xcc;
    if (sof) {
      if (length < 8 || i + 7 > bytes.length) return null;
      return ["jpeg", dv.getUint16(i + 5), dv.getUint16(i + 3)];
    }
    i += length;
  }
  return null;
}

/**
 * JPEG: marker segments, and after each SOS the entropy-coded data up to the
 * next marker (`FF00` stuffing and `RSTn` belong to the data), until EOI.
 * The offset after EOI, or `null` when the walk runs off the end.
 *
 * @example
 * ```ts
 * import { jpegEnd } from "./jpeg.ts";
 * const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xd9, 0]);
 * jpegEnd(bytes, new DataView(bytes.buffer)); // 4
 * ```
 */
export function jpegEnd(bytes: Uint8Array, dv: DataView): number | null {
  let i = 2;
  while (i + 1 < bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    i += 2;
    if (marker === 0xd9) return i;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (i + 2 > bytes.length) return null;
    const length = dv.getUint16(i);
    if (length < 2 || i + length > bytes.length) return null;
    i += length;
    if (marker !== 0xda) continue;
    for (;; i++) { // entropy-coded data
      i = bytes.indexOf(0xff, i);
      if (i < 0 || i + 1 >= bytes.length) return null;
      const next = bytes[i + 1];
      if (next !== 0 && !(next >= 0xd0 && next <= 0xd7)) break;
    }
  }
  return null;
}
