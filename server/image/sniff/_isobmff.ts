/**
 * The ISO base media file format (the container of AVIF) as far as the
 * sniffer needs it: the box walk, where the top-level boxes end, and the
 * item tables of a `meta` box (`iinf` types, `iloc` locations, `ipma`
 * properties, `iref` references).
 *
 * @module
 */

/** An ISO BMFF box: its type and where its payload starts and ends. */
export interface Box {
  /** The four-character box type, e.g. `ftyp`. */
  type: string;
  /** The offset of the payload (after the header). */
  start: number;
  /** The offset just past the box. */
  end: number;
}

/** A byte range `[start, end)` of the file. */
export interface Extent {
  /** The first byte. */
  start: number;
  /** Just past the last byte. */
  end: number;
}

/**
 * The boxes directly inside `[from, to)`; stops at the first broken one.
 * Every box is at least 8 bytes, so the walk is bounded by the input size.
 */
export function boxes(
  bytes: Uint8Array,
  dv: DataView,
  from: number,
  to: number,
): Box[] {
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

/** ISO BMFF: top-level boxes; `null` when one runs past the end. */
export function boxesEnd(bytes: Uint8Array, dv: DataView): number | null {
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

/** `iref`: `"<type> <from id>"` → the referenced item ids. */
export function itemReferences(
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
export function itemTypes(
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

/** The first 4096 bytes of an item's extents, joined. */
export function itemPrefix(bytes: Uint8Array, extents: Extent[]): Uint8Array {
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

/**
 * `iloc`: item id → its extents in the file (construction method 0) or in
 * `idat` (method 1), clipped to the file. `null` when the table is broken.
 */
export function itemLocations(
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

/** `ipma`: item id → its property indices (1-based into `ipco`). */
export function itemProperties(
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
