/**
 * AVIF: the size from the container (`ispe`) checked against the coded
 * data (each AV1 item's sequence header, grid and overlay canvases, grid
 * tiles), and the byte ranges of its metadata items.
 *
 * @module
 */
import { ascii, type Found, larger } from "./_bytes.ts";
import { sequenceHeaderSize } from "./_av1.ts";
import {
  type Box,
  boxes,
  type Extent,
  itemLocations,
  itemPrefix,
  itemProperties,
  itemReferences,
  itemTypes,
} from "./_isobmff.ts";

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
 *
 * @example
 * ```ts
 * import { avif } from "./avif.ts";
 * const bytes = new Uint8Array(16);
 * avif(bytes, new DataView(bytes.buffer)); // null
 * ```
 */
export function avif(bytes: Uint8Array, dv: DataView): Found {
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

/**
 * The byte ranges of an AVIF's metadata items (`Exif`, and `mime` items
 * such as XMP), so they can be blanked in a copy that is otherwise kept as
 * uploaded. Empty for anything that is not a readable AVIF.
 *
 * @example
 * ```ts
 * import { avifMetadataRanges } from "./avif.ts";
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

/** The size the coded data gives so far, and the first conflict. */
interface Coded {
  size?: [number, number];
  conflict?: string;
}

/** An AVIF's item tables, read once. */
interface Items {
  bytes: Uint8Array;
  dv: DataView;
  /** The boxes of `ipco`: the properties `assoc` points into. */
  props: Box[];
  /** Item id → item type. */
  types: Map<number, string>;
  /** Item id → its data's extents. */
  locations: Map<number, Extent[]>;
  /** Item id → its property indices (1-based). */
  assoc: Map<number, number[]>;
}

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
): Coded {
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
  const items: Items = { bytes, dv, props, types, locations, assoc };
  /** Coded size of each AV1 item. */
  const coded = new Map<number, [number, number]>();
  const av1 = av1Items(items, coded);
  if (av1.conflict) return av1;
  if (!coded.size) return { conflict: "AVIF holds no AV1 image" };
  const refs = itemReferences(bytes, dv, inMeta.find((b) => b.type === "iref"));
  return derivedItems(items, refs, coded, av1.size);
}

/** The `ispe` size associated with item `id`, if any. */
function ispeOf(items: Items, id: number): [number, number] | undefined {
  for (const index of items.assoc.get(id) ?? []) {
    const p = items.props[index - 1];
    if (p?.type === "ispe" && p.end - p.start >= 12) {
      return [items.dv.getUint32(p.start + 4), items.dv.getUint32(p.start + 8)];
    }
  }
}

/** The conflict of a coded size `s` that differs from the item's `ispe`. */
function differs(
  size: [number, number] | undefined,
  what: string,
  s: [number, number],
  ispe?: number[],
): Coded {
  return {
    size,
    conflict: `${what} is ${s[0]}x${s[1]} but the AVIF header ` +
      (ispe ? `says ${ispe[0]}x${ispe[1]}` : "gives no size"),
  };
}

/**
 * Each AV1 item's sequence headers (data and `av1C`) against its `ispe`;
 * fills `coded` with each item's coded size. A coded item of another codec
 * is a conflict.
 */
function av1Items(
  items: Items,
  coded: Map<number, [number, number]>,
): Coded {
  const { bytes, props } = items;
  let size: [number, number] | undefined;
  for (const [id, type] of items.types) {
    if (OTHER_CODECS.has(type)) {
      return { conflict: `AVIF holds a ${type} item, not AV1` };
    }
    if (type !== "av01") continue;
    const found: [number, number][] = [];
    const extents = items.locations.get(id);
    const fromData = extents?.length &&
      sequenceHeaderSize(itemPrefix(bytes, extents));
    if (!fromData) {
      return { conflict: "AVIF item has no readable AV1 sequence header" };
    }
    found.push(fromData);
    for (const index of items.assoc.get(id) ?? []) {
      const p = props[index - 1];
      if (p?.type === "av1C" && p.end - p.start > 4) {
        const config = sequenceHeaderSize(bytes.subarray(p.start + 4, p.end));
        if (config) found.push(config);
      }
    }
    const ispe = ispeOf(items, id);
    for (const s of found) {
      size = size ? larger(size, s) : s;
      if (!ispe || s[0] !== ispe[0] || s[1] !== ispe[1]) {
        return differs(size, "AV1 stream", s, ispe);
      }
    }
    coded.set(id, fromData);
  }
  return { size };
}

/**
 * Derived images: a grid's canvas and tiles, an overlay's canvas, each
 * against its `ispe`; `size` is what the AV1 items gave.
 */
function derivedItems(
  items: Items,
  refs: Map<string, number[]>,
  coded: Map<number, [number, number]>,
  size: [number, number] | undefined,
): Coded {
  for (const [id, type] of items.types) {
    if (type !== "grid" && type !== "iovl") continue;
    const data = itemPrefix(items.bytes, items.locations.get(id) ?? []);
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
    const ispe = ispeOf(items, id);
    if (!ispe || out[0] !== ispe[0] || out[1] !== ispe[1]) {
      return differs(size, `AVIF ${type} canvas`, out, ispe);
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
      return differs(size, "AVIF grid of tiles", canvas, out);
    }
  }
  return { size };
}
