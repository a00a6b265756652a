/**
 * WebP: the size of a simple (`VP8 `/`VP8L`) or extended (`VP8X`) file,
 * its canvas checked against its bitstream and `ANMF` frames, and where the
 * file ends (the RIFF size).
 *
 * @module
 */
import { ascii, type Found, larger } from "./_bytes.ts";

/**
 * WebP: RIFF container with a VP8, VP8L or VP8X first chunk. An extended
 * (VP8X) file's canvas is compared with its bitstream: the VP8/VP8L chunk of
 * a still image and each `ANMF` frame's rectangle; the larger size counts,
 * and a still image whose bitstream differs from its canvas is a conflict.
 *
 * @example
 * ```ts
 * import { webp } from "./webp.ts";
 * const bytes = new TextEncoder().encode("RIFF\x04\x00\x00\x00WEBP");
 * webp(bytes, new DataView(bytes.buffer)); // null (no image chunk)
 * ```
 */
export function webp(bytes: Uint8Array, dv: DataView): Found {
  if (!ascii(bytes, 0, "RIFF") || !ascii(bytes, 8, "WEBP")) return null;
  const first = ascii(bytes, 12, "VP8X") ? null : vp8Size(bytes, dv, 12);
  if (first) return ["webp", ...first];
  if (ascii(bytes, 12, "VP8X") && bytes.length >= 30) {
    return extended(bytes, dv);
  }
  return null;
}

/**
 * WebP: the end of the RIFF size when every chunk fits in the bytes, else
 * `null` (truncated or inconsistent).
 *
 * @example
 * ```ts
 * import { webpEnd } from "./webp.ts";
 * const bytes = new TextEncoder().encode("RIFF\x04\x00\x00\x00WEBPtail");
 * webpEnd(bytes, new DataView(bytes.buffer)); // 12
 * ```
 */
export function webpEnd(bytes: Uint8Array, dv: DataView): number | null {
  return bytes.length < 12 ? null : riffChunks(bytes, dv).end;
}

/** An extended (VP8X) WebP: canvas, bitstream and frames compared. */
function extended(bytes: Uint8Array, dv: DataView): Found {
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

/** A RIFF chunk: its type and where its payload starts and ends. */
interface Chunk {
  type: string;
  start: number;
  end: number;
}

/**
 * The chunks of a RIFF WebP, and where the walk ended: the RIFF size's end
 * when every chunk fits, else `null` (truncated or inconsistent).
 */
function riffChunks(bytes: Uint8Array, dv: DataView) {
  const chunks: Chunk[] = [];
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
