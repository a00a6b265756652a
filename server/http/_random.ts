/**
 * Random identifiers: request ids, stream epochs, event ids, ETags of the
 * generated client files. One rule, from the platform's CSPRNG.
 *
 * @module
 */

/** `bytes` random bytes as lowercase hex digits (two per byte). */
export function randomHex(bytes: number): string {
  return hex(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** Bytes as lowercase hex digits (two per byte). */
export function hex(data: Uint8Array): string {
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}
