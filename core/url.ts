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

// What browsers remove anywhere in a URL before parsing it.
const TAB_OR_NEWLINE = /[\t\n\r]/g;
// What browsers trim from both ends (C0 controls and space).
// deno-lint-ignore no-control-regex
const EDGES = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
// A placeholder origin for resolving a root-relative URL on its own.
const NOWHERE = "http://canonical.invalid";

/**
 * The one spelling of a URL that a browser would fetch the same way, or
 * `null` when the URL depends on the page it sits on or has no host
 * (path-relative like `media/a.png`, protocol-relative like `//x/a.png`,
 * or not a URL at all). Tabs and newlines go, the ends are trimmed,
 * backslashes become slashes, `.` and `..` segments are resolved, and
 * what must be percent-encoded is (the WHATWG URL parser does this). An
 * `http:` or `https:` URL keeps its origin; a root-relative one stays
 * root-relative. Other schemes come back only trimmed.
 *
 * @example
 * ```ts
 * import { canonicalUrl } from "./url.ts";
 * canonicalUrl("/media/x/../a.png"); // "/media/a.png"
 * canonicalUrl("\\media\\a.png"); // null (protocol-relative to a browser)
 * canonicalUrl("/me\tdia/./a.png"); // "/media/a.png"
 * canonicalUrl("media/a.png"); // null
 * canonicalUrl("HTTPS://CDN.example/a.png"); // "https://cdn.example/a.png"
 * ```
 */
export function canonicalUrl(value: string): string | null {
  const url = value.replace(TAB_OR_NEWLINE, "").replace(EDGES, "");
  if (url === "" || NETWORK_PATH.test(url)) return null;
  const scheme = SCHEME.exec(url)?.[1].toLowerCase();
  if (scheme !== undefined && scheme !== "http" && scheme !== "https") {
    return url;
  }
  if (scheme === undefined && !/^[\\/]/.test(url)) return null;
  try {
    const parsed = new URL(url, NOWHERE);
    if (scheme !== undefined) return parsed.href;
    return parsed.pathname + parsed.search + parsed.hash;
  } catch {
    return null;
  }
}
