/**
 * The URL rule shared by the sanitizer policy and the field kinds: which
 * schemes a link or an image may use. A tiny module of its own, so a page
 * that only checks URLs (the session, image fields) does not load the
 * sanitizer.
 *
 * @module
 */

/** Schemes a link (`<a href>`) may use; relative URLs are allowed too. */
export const LINK_SCHEMES: readonly string[] = /* @__PURE__ */ Object.freeze([
  "http",
  "https",
  "mailto",
  "tel",
]);

// Characters browsers strip from URLs (C0 controls, space, tab, newline),
// plus DEL, C1 controls and Unicode spaces, which DOMPurify also ignores.
const IGNORED_IN_URL =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u2029\u205f\u3000\ufeff]/g;
const SCHEME = /^([a-z][a-z\d+.-]*):/i;
const NETWORK_PATH = /^[\\/]{2}/;

/**
 * Whether `value` is an acceptable URL given the allowed schemes: a listed
 * scheme, or a relative URL that is not protocol-relative.
 *
 * @example
 * ```ts
 * import { isAllowedUrl } from "./url.ts";
 * isAllowedUrl("java\tscript:alert(1)", ["http", "https"]); // false
 * isAllowedUrl("/a.png", ["http", "https"]); // true
 * isAllowedUrl("//evil.example/a.png", ["http", "https"]); // false
 * ```
 */
export function isAllowedUrl(
  value: string,
  schemes: readonly string[],
): boolean {
  const url = value.replace(IGNORED_IN_URL, "");
  if (url === "" || NETWORK_PATH.test(url)) return false;
  const scheme = SCHEME.exec(url);
  return scheme === null || schemes.includes(scheme[1].toLowerCase());
}
