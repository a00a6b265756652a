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
 * sniffImage(gif); // { type: "image/gif", ext: "gif", width: 2, height: 3, frames: 1 }
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

type Found =
  | [
    type: string,
    width: number,
    height: number,
    frames?: number,
    conflict?: string,
  ]
  | null;

/** Of two sizes, the one with more pixels (the first on a tie). */
function larger(a: [number, number], b: [number, number]): [number, number] {
  return b[0] * b[1] > a[0] * a[1] ? b : a;
}

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

/**
 * WebP: RIFF container with a VP8, VP8L or VP8X first chunk. An extended
 * (VP8X) file's canvas is compared with its bitstream: the VP8/VP8L chunk of
 * a still image and each `ANMF` frame's rectangle; the larger size counts,
 * and a still image whose bitstream differs from its canvas is a conflict.
 */
function webp(bytes: Uint8Array, dv: DataView): Found {
  if (!ascii(bytes, 0, "RIFF") || !ascii(bytes, 8, "WEBP")) return null;
  const first = ascii(bytes, 12, "VP8X") ? null : vp8Size(bytes, dv, 12);
  if (first) return ["webp", ...first];
  if (ascii(bytes, 12, "VP8X") && bytes.length >= 30) {
    const canvas: [number, number] = [
      (bytes[24] | bytes[25] << 8 | bytes[26] << 16) + 1,
      (bytes[27] | bytes[28] << 8 | bytes[29] << 16) + 1,
    ];
    let size = canvas, frames = 0, conflict: string | undefined;
    for (const chunk of riffChunks(bytes, dv).chunks) {
      if (chunk.type === "ANMF" && chunk.end - chunk.start >= 16) {
        frames++;
        const at = chunk.start;
        const u24 = (i: number) =>
          bytes[at + i] | bytes[at + i + 1] << 8 | bytes[at + i + 2] << 16;
        const right = 2 * u24(0) + u24(6) + 1;
        const bottom = 2 * u24(3) + u24(9) + 1;
        if (right > size[0] || bottom > size[1]) {
          size = [Math.max(size[0], right), Math.max(size[1], bottom)];
        }
      } else if (chunk.type === "VP8 " || chunk.type === "VP8L") {
        const coded = vp8Size(bytes, dv, chunk.start - 8);
        if (!coded) return null;
        if (coded[0] !== canvas[0] || coded[1] !== canvas[1]) {
          conflict = `WebP bitstream is ${coded[0]}x${coded[1]} but its ` +
            `canvas says ${canvas[0]}x${canvas[1]}`;
        }
        size = larger(size, coded);
      }
    }
    if (size !== canvas && !conflict) {
      conflict = `WebP frames reach ${size[0]}x${size[1]} outside their ` +
        `${canvas[0]}x${canvas[1]} canvas`;
    }
    return ["webp", size[0], size[1], Math.max(frames, 1), conflict];
  }
  return null;
}

/** The size in a `VP8 ` or `VP8L` chunk whose header starts at `at`. */
function vp8Size(
  bytes: Uint8Array,
  dv: DataView,
  at: number,
): [number, number] | null {
  if (ascii(bytes, at, "VP8 ") && bytes.length >= at + 18) {
    const key = at + 11; // 8 chunk header + 3 frame tag
    if (bytes[key] !== 0x9d || bytes[key + 1] !== 0x01) return null;
    if (bytes[key + 2] !== 0x2a) return null;
    const w = dv.getUint16(key + 3, true), h = dv.getUint16(key + 5, true);
    return [w & 0x3fff, h & 0x3fff];
  }
  if (ascii(bytes, at, "VP8L") && bytes.length >= at + 13) {
    if (bytes[at + 8] !== 0x2f) return null;
    const bits = dv.getUint32(at + 9, true);
    return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
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
 * cap is never underestimated. The container is not trusted alone: each AV1
 * item's sequence header (in its data, found through `iloc`, and in its
 * `av1C`) gives the size the decoder will really allocate. A sequence header
 * that differs from the item's `ispe`, an AV1 item without one, a coded item
 * of another codec, a grid or overlay canvas unlike its `ispe`, grid tiles
 * that are uneven, miscounted or overhang the canvas by a tile or more, or
 * an image sequence (`moov`) is a conflict; the larger size counts (for a
 * grid, the tiles' whole area).
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
  const inMeta = boxes(bytes, dv, meta.start + 4, meta.end);
  const child = (parent: Box | undefined, type: string, skip = 0) =>
    parent &&
    boxes(bytes, dv, parent.start + skip, parent.end).find((b) =>
      b.type === type
    );
  const iprp = inMeta.find((b) => b.type === "iprp");
  const ipco = child(iprp, "ipco");
  if (!ipco) return null;
  const props = boxes(bytes, dv, ipco.start, ipco.end);
  let best: [number, number] | null = null;
  for (const b of props) {
    if (b.type !== "ispe" || b.end - b.start < 12) continue;
    const size: [number, number] = [
      dv.getUint32(b.start + 4),
      dv.getUint32(b.start + 8),
    ];
    best = best ? larger(best, size) : size;
  }
  if (!best || !(best[0] > 0 && best[1] > 0)) return null;
  const coded = avifCoded(bytes, dv, top, inMeta, props, child(iprp, "ipma"));
  const size = larger(best, coded.size ?? best);
  return ["avif", size[0], size[1], 1, coded.conflict];
}

/** Item types that hold coded pixels of a codec other than AV1. */
const OTHER_CODECS = new Set([
  "hvc1",
  "hev1",
  "avc1",
  "vvc1",
  "jpeg",
  "j2k1",
  "unci",
]);

/**
 * The largest size among the AV1 sequence headers of an AVIF's items, and
 * the first conflict with the container (see {@linkcode avif}).
 */
function avifCoded(
  bytes: Uint8Array,
  dv: DataView,
  top: Box[],
  inMeta: Box[],
  props: Box[],
  ipma: Box | undefined,
): { size?: [number, number]; conflict?: string } {
  if (top.some((b) => b.type === "moov")) {
    return { conflict: "AVIF image sequences are not accepted" };
  }
  const types = itemTypes(bytes, dv, inMeta.find((b) => b.type === "iinf"));
  const locations = itemLocations(
    bytes,
    inMeta.find((b) => b.type === "iloc"),
    inMeta.find((b) => b.type === "idat"),
  );
  const assoc = ipma ? itemProperties(bytes, dv, ipma) : new Map();
  if (!types || !locations) {
    return { conflict: "AVIF item tables are unreadable" };
  }
  let size: [number, number] | undefined;
  /** Coded size of each AV1 item. */
  const coded = new Map<number, [number, number]>();
  const ispeOf = (id: number): [number, number] | undefined => {
    for (const index of assoc.get(id) ?? []) {
      const p = props[index - 1];
      if (p?.type === "ispe" && p.end - p.start >= 12) {
        return [dv.getUint32(p.start + 4), dv.getUint32(p.start + 8)];
      }
    }
  };
  const differs = (what: string, s: [number, number], ispe?: number[]) => ({
    size,
    conflict: `${what} is ${s[0]}x${s[1]} but the AVIF header ` +
      (ispe ? `says ${ispe[0]}x${ispe[1]}` : "gives no size"),
  });
  for (const [id, type] of types) {
    if (OTHER_CODECS.has(type)) {
      return { conflict: `AVIF holds a ${type} item, not AV1` };
    }
    if (type !== "av01") continue;
    const found: [number, number][] = [];
    const extents = locations.get(id);
    const fromData = extents?.length &&
      sequenceHeaderSize(itemPrefix(bytes, extents));
    if (!fromData) {
      return { conflict: "AVIF item has no readable AV1 sequence header" };
    }
    found.push(fromData);
    for (const index of assoc.get(id) ?? []) {
      const p = props[index - 1];
      if (p?.type === "av1C" && p.end - p.start > 4) {
        const config = sequenceHeaderSize(bytes.subarray(p.start + 4, p.end));
        if (config) found.push(config);
      }
    }
    const ispe = ispeOf(id);
    for (const s of found) {
      size = size ? larger(size, s) : s;
      if (!ispe || s[0] !== ispe[0] || s[1] !== ispe[1]) {
        return differs("AV1 stream", s, ispe);
      }
    }
    coded.set(id, fromData);
  }
  if (!coded.size) return { conflict: "AVIF holds no AV1 image" };
  // Derived images: a grid's tiles and canvas, an overlay's canvas.
  const refs = itemReferences(bytes, dv, inMeta.find((b) => b.type === "iref"));
  for (const [id, type] of types) {
    if (type !== "grid" && type !== "iovl") continue;
    const data = itemPrefix(bytes, locations.get(id) ?? []);
    const wide = (data[1] & 1) === 1, at = type === "grid" ? 4 : 10;
    if (data.length < at + (wide ? 8 : 4)) {
      return { conflict: `AVIF ${type} item is unreadable` };
    }
    const read = (i: number) =>
      wide
        ? (data[i] << 24 | data[i + 1] << 16 | data[i + 2] << 8 |
          data[i + 3]) >>>
          0
        : data[i] << 8 | data[i + 1];
    const out: [number, number] = [read(at), read(at + (wide ? 4 : 2))];
    size = size ? larger(size, out) : out;
    const ispe = ispeOf(id);
    if (!ispe || out[0] !== ispe[0] || out[1] !== ispe[1]) {
      return differs(`AVIF ${type} canvas`, out, ispe);
    }
    if (type !== "grid") continue;
    const rows = data[2] + 1, columns = data[3] + 1;
    const tiles = (refs.get(`dimg ${id}`) ?? []).map((t) => coded.get(t));
    const [tile] = tiles;
    const even = tile &&
      tiles.every((t) => t?.[0] === tile[0] && t[1] === tile[1]);
    if (!tile || !even || tiles.length !== rows * columns) {
      return { size, conflict: "AVIF grid tiles do not match the grid" };
    }
    // Tiles cover the canvas and overhang it by less than one tile.
    const canvas: [number, number] = [columns * tile[0], rows * tile[1]];
    size = larger(size, canvas);
    if (
      canvas[0] < out[0] || canvas[1] < out[1] ||
      canvas[0] - tile[0] >= out[0] || canvas[1] - tile[1] >= out[1]
    ) {
      return differs("AVIF grid of tiles", canvas, out);
    }
  }
  return { size };
}

/** `iref`: `"<type> <from id>"` → the referenced item ids. */
function itemReferences(
  bytes: Uint8Array,
  dv: DataView,
  iref: Box | undefined,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (!iref || iref.end - iref.start < 4) return out;
  const idBytes = bytes[iref.start] === 0 ? 2 : 4;
  const id = (at: number) =>
    idBytes === 2 ? dv.getUint16(at) : dv.getUint32(at);
  for (const ref of boxes(bytes, dv, iref.start + 4, iref.end)) {
    if (ref.start + idBytes + 2 > ref.end) continue;
    const count = dv.getUint16(ref.start + idBytes);
    const to: number[] = [];
    for (let i = 0; i < count; i++) {
      const at = ref.start + idBytes + 2 + i * idBytes;
      if (at + idBytes > ref.end) break;
      to.push(id(at));
    }
    out.set(`${ref.type} ${id(ref.start)}`, to);
  }
  return out;
}

/** `iinf`: item id → item type (from `infe` version 2 and 3). */
function itemTypes(
  bytes: Uint8Array,
  dv: DataView,
  iinf: Box | undefined,
): Map<number, string> | null {
  if (!iinf || iinf.end - iinf.start < 6) return null;
  const skip = 4 + (bytes[iinf.start] === 0 ? 2 : 4);
  const out = new Map<number, string>();
  for (const infe of boxes(bytes, dv, iinf.start + skip, iinf.end)) {
    if (infe.type !== "infe") continue;
    const version = bytes[infe.start];
    if (version < 2) continue; // no item type in versions 0 and 1
    const idBytes = version === 2 ? 2 : 4;
    const at = infe.start + 4 + idBytes + 2;
    if (at + 4 > infe.end) return null;
    const id = idBytes === 2
      ? dv.getUint16(infe.start + 4)
      : dv.getUint32(infe.start + 4);
    out.set(id, String.fromCharCode(...bytes.subarray(at, at + 4)));
  }
  return out;
}

/** Bytes of an item's data read for its headers. */
const ITEM_PREFIX = 4096;

/** The first {@linkcode ITEM_PREFIX} bytes of an item's extents, joined. */
function itemPrefix(bytes: Uint8Array, extents: Extent[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let kept = 0;
  for (const { start, end } of extents) {
    if (kept >= ITEM_PREFIX) break;
    const part = bytes.subarray(start, Math.min(end, start + ITEM_PREFIX));
    parts.push(part);
    kept += part.length;
  }
  if (parts.length === 1) return parts[0];
  const joined = new Uint8Array(kept);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/** A byte range `[start, end)` of the file. */
interface Extent {
  start: number;
  end: number;
}

/**
 * `iloc`: item id → its extents in the file (construction method 0) or in
 * `idat` (method 1), clipped to the file. `null` when the table is broken.
 */
function itemLocations(
  bytes: Uint8Array,
  iloc: Box | undefined,
  idat: Box | undefined,
): Map<number, Extent[]> | null {
  if (!iloc || iloc.end - iloc.start < 8) return null;
  const version = bytes[iloc.start];
  if (version > 2) return null;
  let at = iloc.start + 4;
  const end = iloc.end;
  const offsetSize = bytes[at] >> 4, lengthSize = bytes[at] & 15;
  const baseSize = bytes[at + 1] >> 4;
  const indexSize = version === 0 ? 0 : bytes[at + 1] & 15;
  at += 2;
  /** Reads an unsigned number of `n` bytes, or -1 past the end. */
  const read = (n: number) => {
    if (at + n > end) return -1;
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + bytes[at + i];
    at += n;
    return v;
  };
  const count = read(version < 2 ? 2 : 4);
  if (count < 0) return null;
  const out = new Map<number, Extent[]>();
  for (let i = 0; i < count; i++) {
    const id = read(version < 2 ? 2 : 4);
    const method = version === 0 ? 0 : read(2) & 15;
    const dataRef = read(2);
    const base = read(baseSize);
    const extents = read(2);
    if (id < 0 || dataRef < 0 || base < 0 || extents < 0) return null;
    const [from, to] = method === 0
      ? [0, bytes.length]
      : method === 1 && idat
      ? [idat.start, idat.end]
      : [0, 0];
    const list: Extent[] = [];
    for (let e = 0; e < extents; e++) {
      if (indexSize && read(indexSize) < 0) return null;
      const offset = read(offsetSize), length = read(lengthSize);
      if (offset < 0 || length < 0) return null;
      const start = from + base + offset;
      if (dataRef !== 0 || to === 0 || start >= to) continue;
      list.push({ start, end: length ? Math.min(to, start + length) : to });
    }
    out.set(id, list);
  }
  return out;
}

/**
 * The byte ranges of an AVIF's metadata items (`Exif`, and `mime` items
 * such as XMP), so they can be blanked in a copy that is otherwise kept as
 * uploaded. Empty for anything that is not a readable AVIF.
 *
 * @example
 * ```ts
 * import { avifMetadataRanges } from "./mod.ts";
 * avifMetadataRanges(new Uint8Array(8)); // []
 * ```
 */
export function avifMetadataRanges(bytes: Uint8Array): [number, number][] {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const meta = boxes(bytes, dv, 0, bytes.length).find((b) => b.type === "meta");
  if (!meta) return [];
  const inMeta = boxes(bytes, dv, meta.start + 4, meta.end);
  const types = itemTypes(bytes, dv, inMeta.find((b) => b.type === "iinf"));
  const locations = itemLocations(
    bytes,
    inMeta.find((b) => b.type === "iloc"),
    inMeta.find((b) => b.type === "idat"),
  );
  const out: [number, number][] = [];
  for (const [id, type] of types ?? []) {
    if (type !== "Exif" && type !== "mime") continue;
    for (const { start, end } of locations?.get(id) ?? []) {
      out.push([start, end]);
    }
  }
  return out;
}

/** `ipma`: item id → its property indices (1-based into `ipco`). */
function itemProperties(
  bytes: Uint8Array,
  dv: DataView,
  ipma: Box,
): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const version = bytes[ipma.start], wide = (bytes[ipma.start + 3] & 1) === 1;
  let at = ipma.start + 4;
  if (at + 4 > ipma.end) return out;
  const count = dv.getUint32(at);
  at += 4;
  for (let i = 0; i < count; i++) {
    const idBytes = version < 1 ? 2 : 4;
    if (at + idBytes + 1 > ipma.end) break;
    const id = idBytes === 2 ? dv.getUint16(at) : dv.getUint32(at);
    at += idBytes;
    const n = bytes[at++];
    const list: number[] = [];
    for (let j = 0; j < n && at + (wide ? 2 : 1) <= ipma.end; j++) {
      list.push(wide ? dv.getUint16(at) & 0x7fff : bytes[at] & 0x7f);
      at += wide ? 2 : 1;
    }
    out.set(id, list);
  }
  return out;
}

/**
 * The frame size of the first AV1 sequence header OBU in `data` (a run of
 * OBUs with size fields, as in AVIF item data and `av1C`), or `null` when
 * none is found among the first 16 OBUs or it cannot be read.
 */
function sequenceHeaderSize(data: Uint8Array): [number, number] | null {
  let at = 0;
  for (let n = 0; n < 16 && at < data.length; n++) {
    const header = data[at];
    const type = (header >> 3) & 15;
    const extension = (header >> 2) & 1, hasSize = (header >> 1) & 1;
    if (header & 0x80) return null; // forbidden bit
    at += 1 + extension;
    let size = data.length - at;
    if (hasSize) {
      let value = 0;
      for (let i = 0; i < 8; i++) {
        if (at >= data.length) return null;
        const byte = data[at++];
        value += (byte & 0x7f) * 2 ** (7 * i);
        if (!(byte & 0x80)) break;
      }
      size = value;
    }
    if (type === 1) return sequenceHeader(data.subarray(at, at + size));
    if (!hasSize) return null;
    at += size;
  }
  return null;
}

/** Reads `max_frame_width/height` from a sequence header OBU's payload. */
function sequenceHeader(payload: Uint8Array): [number, number] | null {
  let bit = 0;
  const f = (n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++, bit++) {
      const byte = payload[bit >> 3];
      if (byte === undefined) throw new RangeError("short sequence header");
      v = v * 2 + ((byte >> (7 - (bit & 7))) & 1);
    }
    return v;
  };
  try {
    f(3); // seq_profile
    f(1); // still_picture
    const reduced = f(1);
    if (reduced) f(5); // seq_level_idx[0]
    else {
      let decoderModel = 0, bufferDelayLength = 0;
      if (f(1)) { // timing_info_present_flag
        f(32); // num_units_in_display_tick
        f(32); // time_scale
        if (f(1)) { // equal_picture_interval: num_ticks_per_picture (uvlc)
          let zeros = 0;
          while (!f(1)) if (++zeros >= 32) break;
          if (zeros < 32) f(zeros);
        }
        decoderModel = f(1);
        if (decoderModel) {
          bufferDelayLength = f(5) + 1;
          f(32); // num_units_in_decoding_tick
          f(5); // buffer_removal_time_length_minus_1
          f(5); // frame_presentation_time_length_minus_1
        }
      }
      const displayDelay = f(1);
      const points = f(5) + 1;
      for (let i = 0; i < points; i++) {
        f(12); // operating_point_idc
        if (f(5) > 7) f(1); // seq_level_idx, seq_tier
        if (decoderModel && f(1)) f(2 * bufferDelayLength + 1);
        if (displayDelay && f(1)) f(4);
      }
    }
    const widthBits = f(4) + 1, heightBits = f(4) + 1;
    return [f(widthBits) + 1, f(heightBits) + 1];
  } catch {
    return null;
  }
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
