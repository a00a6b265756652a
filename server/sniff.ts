/**
 * The cheap first gate for uploads: image type from magic bytes, never from
 * `Content-Type`, plus the pixel dimensions and frame count from the headers.
 * Only the browser raster formats are recognised: JPEG, PNG, GIF, WebP and
 * AVIF. Anything else (SVG, HTML, truncated or inconsistent headers, zero
 * dimensions) is `null`. {@linkcode imageEnd} walks the whole container, so
 * truncated files and data appended after the image (polyglots) are found
 * without decoding a pixel.
 *
 * @module
 */

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
}

/**
 * Detects the image type of `bytes` and reads its pixel dimensions.
 * Returns `null` for anything that is not a readable JPEG, PNG, GIF, WebP or
 * AVIF header.
 *
 * @example
 * ```ts
 * import { sniffImage } from "./sniff.ts";
 * const gif = new TextEncoder().encode("GIF89a\x02\x00\x03\x00\x00\x00\x00;");
 * sniffImage(gif); // { type: "image/gif", ext: "gif", width: 2, height: 3, frames: 1 }
 * ```
 */
export function sniffImage(bytes: Uint8Array): ImageInfo | null {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found = png(bytes, dv) ?? jpeg(bytes, dv) ?? gif(bytes, dv) ??
    webp(bytes, dv) ?? avif(bytes, dv);
  if (!found) return null;
  const [type, width, height, frames = 1] = found;
  if (!(width > 0 && height > 0)) return null;
  return {
    type: `image/${type}`,
    ext: type === "jpeg" ? "jpg" : type,
    width,
    height,
    frames,
  };
}

type Found =
  | [type: string, width: number, height: number, frames?: number]
  | null;

/** Whether `bytes` holds the ASCII `text` at `at`. */
function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  if (at + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i++) {
    if (bytes[at + i] !== text.charCodeAt(i)) return false;
  }
  return true;
}

/** PNG: signature, then the IHDR chunk (length 13) with width and height. */
function png(bytes: Uint8Array, dv: DataView): Found {
  if (!ascii(bytes, 0, "\x89PNG\r\n\x1a\n") || bytes.length < 33) return null;
  if (dv.getUint32(8) !== 13 || !ascii(bytes, 12, "IHDR")) return null;
  const width = dv.getUint32(16), height = dv.getUint32(20);
  if (width > 0x7fffffff || height > 0x7fffffff) return null;
  return ["png", width, height];
}

/**
 * GIF: `GIF87a`/`GIF89a`, the logical screen size (little-endian), then the
 * first block after the global colour table must be an extension, an image
 * or the trailer. Every image descriptor is read: the size is the union of
 * the logical screen and every frame's rectangle, so a 1×1 screen holding a
 * 20000×20000 frame counts as 20000×20000.
 */
function gif(bytes: Uint8Array, dv: DataView): Found {
  if (!ascii(bytes, 0, "GIF87a") && !ascii(bytes, 0, "GIF89a")) return null;
  if (bytes.length < 13) return null;
  const walk = gifWalk(bytes, dv);
  if (!walk) return null;
  return ["gif", walk.width, walk.height, walk.frames];
}

/** The result of walking a GIF's blocks; `end` is `null` when truncated. */
interface GifWalk {
  width: number;
  height: number;
  frames: number;
  end: number | null;
}

function gifWalk(bytes: Uint8Array, dv: DataView): GifWalk | null {
  const table = (flags: number) => flags & 0x80 ? 3 << ((flags & 7) + 1) : 0;
  let width = dv.getUint16(6, true), height = dv.getUint16(8, true);
  let frames = 0;
  let at = 13 + table(bytes[10]);
  if (![0x21, 0x2c, 0x3b].includes(bytes[at])) return null;
  /** Skips data sub-blocks from `i`; the index after the terminator. */
  const subBlocks = (i: number) => {
    while (i < bytes.length && bytes[i] !== 0) i += bytes[i] + 1;
    return i < bytes.length ? i + 1 : -1;
  };
  while (at < bytes.length) {
    const block = bytes[at];
    if (block === 0x3b) return { width, height, frames, end: at + 1 };
    if (block === 0x21) {
      at = at + 2 > bytes.length ? -1 : subBlocks(at + 2);
    } else if (block === 0x2c) {
      if (at + 10 > bytes.length) break;
      const right = dv.getUint16(at + 1, true) + dv.getUint16(at + 5, true);
      const bottom = dv.getUint16(at + 3, true) + dv.getUint16(at + 7, true);
      width = Math.max(width, right);
      height = Math.max(height, bottom);
      frames++;
      at += 10 + table(bytes[at + 9]) + 1; // + LZW minimum code size
      at = at > bytes.length ? -1 : subBlocks(at);
    } else return { width, height, frames, end: null };
    if (at < 0) break;
  }
  return { width, height, frames, end: null };
}

/** JPEG: walks the marker segments up to the first SOFn frame header. */
function jpeg(bytes: Uint8Array, dv: DataView): Found {
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

/** WebP: RIFF container with a VP8, VP8L or VP8X first chunk. */
function webp(bytes: Uint8Array, dv: DataView): Found {
  if (!ascii(bytes, 0, "RIFF") || !ascii(bytes, 8, "WEBP")) return null;
  if (ascii(bytes, 12, "VP8 ") && bytes.length >= 30) {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) {
      return null;
    }
    const w = dv.getUint16(26, true), h = dv.getUint16(28, true);
    return ["webp", w & 0x3fff, h & 0x3fff];
  }
  if (ascii(bytes, 12, "VP8L") && bytes.length >= 25) {
    if (bytes[20] !== 0x2f) return null;
    const bits = dv.getUint32(21, true);
    return ["webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
  }
  if (ascii(bytes, 12, "VP8X") && bytes.length >= 30) {
    const w = bytes[24] | bytes[25] << 8 | bytes[26] << 16;
    const h = bytes[27] | bytes[28] << 8 | bytes[29] << 16;
    let frames = 0;
    for (const chunk of riffChunks(bytes, dv).chunks) {
      if (chunk.type === "ANMF") frames++;
    }
    return ["webp", w + 1, h + 1, Math.max(frames, 1)];
  }
  return null;
}

/**
 * The chunks of a RIFF WebP, and where the walk ended: the RIFF size's end
 * when every chunk fits, else `null` (truncated or inconsistent).
 */
function riffChunks(bytes: Uint8Array, dv: DataView) {
  const chunks: Box[] = [];
  const declared = 8 + dv.getUint32(4, true);
  const to = Math.min(declared, bytes.length);
  let at = 12;
  while (at + 8 <= to) {
    const size = dv.getUint32(at + 4, true);
    const end = at + 8 + size + (size & 1);
    if (at + 8 + size > to) break;
    const type = String.fromCharCode(...bytes.subarray(at, at + 4));
    chunks.push({ type, start: at + 8, end: at + 8 + size });
    at = end;
  }
  const whole = declared <= bytes.length && at >= declared;
  return { chunks, end: whole ? declared : null };
}

/** An ISO BMFF box: its type and where its payload starts and ends. */
interface Box {
  type: string;
  start: number;
  end: number;
}

/**
 * The boxes directly inside `[from, to)`; stops at the first broken one.
 * Every box is at least 8 bytes, so the walk is bounded by the input size.
 */
function boxes(bytes: Uint8Array, dv: DataView, from: number, to: number) {
  const out: Box[] = [];
  let at = from;
  while (at + 8 <= to) {
    let size = dv.getUint32(at), header = 8;
    if (size === 1) {
      if (at + 16 > to || dv.getUint32(at + 8) !== 0) break;
      size = dv.getUint32(at + 12);
      header = 16;
    } else if (size === 0) size = to - at;
    if (size < header || at + size > to) break;
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    out.push({ type, start: at + header, end: at + size });
    at += size;
  }
  return out;
}

/**
 * AVIF: `ftyp` with brand `avif`/`avis`, then `meta` → `iprp` → `ipco` →
 * `ispe`. With several `ispe` boxes the largest image counts, so the pixel
 * cap is never underestimated.
 */
function avif(bytes: Uint8Array, dv: DataView): Found {
  const top = boxes(bytes, dv, 0, bytes.length);
  const ftyp = top[0];
  if (ftyp?.type !== "ftyp" || ftyp.end - ftyp.start < 8) return null;
  let branded = false;
  for (let at = ftyp.start; at + 4 <= ftyp.end; at += 4) {
    if (at === ftyp.start + 4) continue; // minor version
    branded ||= ascii(bytes, at, "avif") || ascii(bytes, at, "avis");
  }
  if (!branded) return null;
  const meta = top.find((b) => b.type === "meta");
  if (!meta) return null;
  const child = (parent: Box | undefined, type: string, skip = 0) =>
    parent &&
    boxes(bytes, dv, parent.start + skip, parent.end).find((b) =>
      b.type === type
    );
  const ipco = child(child(meta, "iprp", 4), "ipco");
  if (!ipco) return null;
  let best: Found = null;
  for (const b of boxes(bytes, dv, ipco.start, ipco.end)) {
    if (b.type !== "ispe" || b.end - b.start < 12) continue;
    const w = dv.getUint32(b.start + 4), h = dv.getUint32(b.start + 8);
    if (!best || w * h > best[1] * best[2]) best = ["avif", w, h];
  }
  return best;
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
 * import { imageEnd } from "./sniff.ts";
 * const gif = new TextEncoder().encode("GIF89a\x02\x00\x03\x00\x00\x00\x00;");
 * imageEnd(gif, "image/gif"); // 13
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
      return bytes.length < 13 ? null : gifWalk(bytes, dv)?.end ?? null;
    case "image/webp":
      return bytes.length < 12 ? null : riffChunks(bytes, dv).end;
    case "image/avif":
      return boxesEnd(bytes, dv);
  }
  return null;
}

/** PNG: chunk by chunk up to and including `IEND`. */
function pngEnd(bytes: Uint8Array, dv: DataView): number | null {
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

/**
 * JPEG: marker segments, and after each SOS the entropy-coded data up to the
 * next marker (`FF00` stuffing and `RSTn` belong to the data), until EOI.
 */
function jpegEnd(bytes: Uint8Array, dv: DataView): number | null {
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

/** ISO BMFF: top-level boxes; `null` when one runs past the end. */
function boxesEnd(bytes: Uint8Array, dv: DataView): number | null {
  let at = 0;
  while (at + 8 <= bytes.length) {
    let size = dv.getUint32(at);
    if (size === 1) {
      if (at + 16 > bytes.length || dv.getUint32(at + 8) !== 0) return null;
      size = dv.getUint32(at + 12);
    } else if (size === 0) size = bytes.length - at;
    if (size < 8) return at;
    if (at + size > bytes.length) return null;
    at += size;
  }
  return at;
}
