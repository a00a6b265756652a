/**
 * Field versions for conflict detection. The host renders
 * `data-cms-version` on a marker; the client sends it back with the save;
 * the save endpoint answers 409 when the stored value has changed since.
 * One hash for the server, the host's renderer and the browser client
 * (which computes a list's version from its items).
 *
 * @module
 */

/**
 * A short, stable fingerprint of a stored field value (53-bit hash, base36).
 * Synchronous, so server-side renderers can call it inline.
 *
 * @example
 * ```ts
 * import { contentVersion } from "@inplace/cms";
 * const v = contentVersion("Hello");
 * // <h1 data-cms-field="pages:home:title" data-cms-version={v}>Hello</h1>
 * ```
 */
export function contentVersion(
  value: string | readonly string[] | undefined,
): string {
  const text = value === undefined
    ? "\u0000missing"
    : typeof value !== "string"
    ? "\u0000list\u0000" + value.join("\u0000")
    : value;
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^
    Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^
    Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
