/**
 * The cheap first gate for uploads: image type from magic bytes, never from
 * `Content-Type`, plus the pixel dimensions and frame count from the headers.
 * Only the browser raster formats are recognised: JPEG, PNG, GIF, WebP and
 * AVIF. Anything else (SVG, HTML, truncated or inconsistent headers, zero
 * dimensions) is `null`. Sizes come from the coded data as well as the
 * container (the AV1 sequence header of each AVIF item, a WebP's bitstream
 * and frames): the larger counts, and a disagreement is reported in
 * `conflict`. {@linkcode imageEnd} walks the whole container, so truncated
 * files and data appended after the image (polyglots) are found without
 * decoding a pixel.
 *
 * One file per format: `png.ts`, `jpeg.ts`, `gif.ts`, `webp.ts` and
 * `avif.ts` (over the ISO BMFF walker in `_isobmff.ts` and the AV1 sequence
 * header reader in `_av1.ts`); this module is their front.
 *
 * @module
 */
import { avif, avifMetadataRanges } from "./avif.ts";
import { gif, gifEnd } from "./gif.ts";
import { jpeg, jpegEnd } from "./jpeg.ts";
import { png, pngEnd } from "./png.ts";
import { webp, webpEnd } from "./webp.ts";
import { boxesEnd } from "./_isobmff.ts";

export { avifMetadataRanges };

/** What {@linkcode sniffImage} found in the bytes. */
export interface ImageInfo {
  /** The verified MIME type, e.g. `image/png`. */
  type: string;
  /** A file extension without the dot, e.g. `png`. */
  ext: string;
  /** Width in pixels (> 0). */
  width: number;
  /** Height in pixels (> 0). */
  height: number;
  /**
   * Frames the headers announce: GIF image descriptors (0 when none is
   * found) and WebP `ANMF` chunks; 1 for every other image.
   */
  frames: number;
  /**
   * Set when the container and the coded data disagree, e.g. an AVIF whose
   * `ispe` box says 100×100 while its AV1 sequence header says 16000×16000,
   * or when the coded size cannot be read. Such an image must be refused
   * before any decode; `width` and `height` already hold the larger size.
   */
  conflict?: string;
}

/**
 * Detects the image type of `bytes` and reads its pixel dimensions.
 * Returns `null` for anything that is not a readable JPEG, PNG, GIF, WebP or
 * AVIF header.
 *
 * @example
 * ```ts
 * import { sniffImage } from "./mod.ts";
 * const gif = new TextEncoder().encode("GIF89a\x02\x00\x03\x00\x00\x00\x00;");
 * sniffImage(gif); // { type: "image/gif", ext: "gif", width: 2, height: 3, frames: 0 }
 * ```
 */
export function sniffImage(bytes: Uint8Array): ImageInfo | null {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found = png(bytes, dv) ?? jpeg(bytes, dv) ?? gif(bytes, dv) ??
    webp(bytes, dv) ?? avif(bytes, dv);
  if (!found) return null;
  const [type, width, height, frames = 1, conflict] = found;
  if (!(width > 0 && height > 0)) return null;
  const info: ImageInfo = {
    type: `image/${type}`,
    ext: type === "jpeg" ? "jpg" : type,
    width,
    height,
    frames,
  };
  if (conflict) info.conflict = conflict;
  return info;
}

/**
 * Walks the container of an image that {@linkcode sniffImage} recognised and
 * returns the offset just past its last byte: after PNG's `IEND`, JPEG's EOI
 * (entropy-coded data included), GIF's trailer, the RIFF size of a WebP, or
 * the last top-level box of an AVIF. `null` when the walk runs off the end
 * (a truncated file) or the structure is broken. Bytes after the returned
 * offset are not part of the image.
 *
 * @example
 * ```ts
 * import { imageEnd } from "./mod.ts";
 * const gif = new TextEncoder().encode("GIF89a\x02\x00\x03\x00\x00\x00\x00;");
 * imageEnd(gif, "image/gif"); // 14
 * imageEnd(gif.subarray(0, 12), "image/gif"); // null
 * ```
 */
export function imageEnd(bytes: Uint8Array, type: string): number | null {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (type) {
    case "image/png":
      return pngEnd(bytes, dv);
    case "image/jpeg":
      return jpegEnd(bytes, dv);
    case "image/gif":
      return gifEnd(bytes, dv);
    case "image/webp":
      return webpEnd(bytes, dv);
    case "image/avif":
      return boxesEnd(bytes, dv);
  }
  return null;
}
