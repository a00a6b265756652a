/**
 * GIF: the size (the logical screen and every frame's rectangle), the
 * frame count, and where the file ends (the trailer), from one walk over
 * the blocks.
 *
 * @module
 */
import { ascii, type Found } from "./_bytes.ts";

/**
 * GIF: `GIF87a`/`GIF89a`, the logical screen size (little-endian), then the
 * first block after the global colour table must be an extension, an image
 * or the trailer. Every image descriptor is read: the size is the union of
 * the logical screen and every frame's rectangle, so a 1×1 screen holding a
 * 20000×20000 frame counts as 20000×20000.
 *
 * @example
 * ```ts
 * import { gif } from "./gif.ts";
 * const bytes = new TextEncoder().encode("GIF89a\x02\x00\x03\x00\x00\x00\x00;");
 * gif(bytes, new DataView(bytes.buffer)); // ["gif", 2, 3, 0]
 * ```
 */
export function gif(bytes: Uint8Array, dv: DataView): Found {
  if (!ascii(bytes, 0, "GIF87a") && !ascii(bytes, 0, "GIF89a")) return null;
  if (bytes.length < 13) return null;
  const walk = gifWalk(bytes, dv);
  if (!walk) return null;
  return ["gif", walk.width, walk.height, walk.frames];
}

/**
 * GIF: the offset after the trailer, or `null` when the file is truncated
 * or its blocks are broken.
 *
 * @example
 * ```ts
 * import { gifEnd } from "./gif.ts";
 * const bytes = new TextEncoder().encode("GIF89a\x02\x00\x03\x00\x00\x00\x00;");
 * gifEnd(bytes, new DataView(bytes.buffer)); // 14
 * ```
 */
export function gifEnd(bytes: Uint8Array, dv: DataView): number | null {
  return bytes.length < 13 ? null : gifWalk(bytes, dv)?.end ?? null;
}

/** The result of walking a GIF's blocks; `end` is `null` when truncated. */
interface GifWalk {
  width: number;
  height: number;
  frames: number;
  end: number | null;
}

/** Walks a GIF's blocks after the header; `null` when the first is wrong. */
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
