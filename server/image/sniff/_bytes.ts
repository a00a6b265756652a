/**
 * What the per-format sniffers share: the shape of their verdict, reading
 * ASCII at an offset, and picking the larger of two sizes.
 *
 * @module
 */

/**
 * A sniffer's verdict: the format's short name, the pixel size, the frame
 * count (default 1) and a container/coded-data conflict; `null` when the
 * bytes are not this format.
 */
export type Found =
  | [
    type: string,
    width: number,
    height: number,
    frames?: number,
    conflict?: string,
  ]
  | null;

/**
 * Of two sizes, the one with more pixels (the first on a tie).
 *
 * @example
 * ```ts
 * import { larger } from "./_bytes.ts";
 * larger([2, 2], [1, 5]); // [1, 5]
 * ```
 */
export function larger(
  a: [number, number],
  b: [number, number],
): [number, number] {
  return b[0] * b[1] > a[0] * a[1] ? b : a;
}

/**
 * Whether `bytes` holds the ASCII `text` at `at`.
 *
 * @example
 * ```ts
 * import { ascii } from "./_bytes.ts";
 * ascii(new TextEncoder().encode("RIFF"), 0, "RIFF"); // true
 * ```
 */
export function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  if (at + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i++) {
    if (bytes[at + i] !== text.charCodeAt(i)) return false;
  }
  return true;
}
