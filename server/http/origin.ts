/**
 * Where a request may come from: the cross-site check of both endpoints
 * (following the rules of Fresh 2's `csrf()` middleware), and the Host
 * allowlist against DNS rebinding. Forwarded headers (`X-Forwarded-*`) are
 * never read: behind a proxy, tell the handlers their public origin.
 *
 * @module
 */
import { HttpError } from "./pipeline.ts";
import { Status } from "../../core/protocol/mod.ts";

/** Who the site is, and who else may call its endpoints. */
export interface OriginOptions {
  /**
   * The site's public origin(s), e.g. `https://www.example.com`. Default:
   * the request URL's origin. Set it behind a proxy (where `req.url` is an
   * internal address) and in production: then every request that carries an
   * `Origin` must name one of these (or `allowedOrigins`), even when the
   * browser calls it same-origin, which defeats DNS rebinding.
   */
  publicOrigin?: string | readonly string[];
  /** Origins besides the site's own that may call (admin sites, CDNs). */
  allowedOrigins?: readonly string[];
  /**
   * The `Host` values the site answers to, e.g. `["www.example.com"]`
   * (with the port when it is not the default). Others get 421. Default:
   * any host.
   */
  allowedHosts?: readonly string[];
}

/**
 * A `Host` value: a DNS name (letters, digits, `-`, `_`, dots, one final
 * dot allowed), an IPv4 address or a bracketed IPv6 literal, then an
 * optional port of 1 to 5 digits.
 */
const HOST =
  /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;

/**
 * The request's URL, checked: 400 ({@linkcode HttpError}) when its `Host`
 * header is not a plain `host[:port]` (`127.0.0.1:8000.`, `a, b`, `a/b`,
 * an empty value, a port over 65535) or the URL does not parse. Parse
 * requests with it instead of `new URL(req.url)`: `Deno.serve` builds
 * `req.url` from the `Host` header, so a malformed one makes `new URL`
 * throw, or shifts the path (`Host: a/b` turns `/x` into `/b/x`).
 *
 * @example
 * ```ts
 * import { requestUrl } from "@inplace/cms";
 * const ok = new Request("http://example.com/a", {
 *   headers: { Host: "example.com" },
 * });
 * requestUrl(ok).pathname; // "/a"
 * const bad = new Request("http://example.com/a", {
 *   headers: { Host: "example.com, evil.example" },
 * });
 * try {
 *   requestUrl(bad);
 * } catch (err) {
 *   (err as { status: number }).status; // 400
 * }
 * ```
 */
export function requestUrl(req: Request): URL {
  const url = URL.parse(req.url);
  const host = req.headers.get("Host");
  const match = host === null ? [] : HOST.exec(host);
  if (!url || !match || (match[1] !== undefined && Number(match[1]) > 65535)) {
    throw new HttpError(Status.BadRequest, "Malformed Host or request target");
  }
  return url;
}

/**
 * Whether a request comes from another site and must get 403.
 *
 * - Without `publicOrigin`: `Sec-Fetch-Site: same-origin` or `none` passes;
 *   otherwise `Origin` must equal the request URL's origin or be one of
 *   `allowedOrigins`.
 * - With `publicOrigin`: an `Origin` must be one of `publicOrigin` or
 *   `allowedOrigins`, whatever `Sec-Fetch-Site` says; without `Origin`,
 *   `Sec-Fetch-Site` must be absent, `same-origin` or `none`.
 * - A request with neither header (a non-browser client) passes; it still
 *   needs an authorized editor.
 *
 * @example
 * ```ts
 * import { isCrossSite } from "@inplace/cms";
 * const req = new Request("https://example.com/api/cms/save", {
 *   method: "PATCH",
 *   headers: { Origin: "https://evil.example" },
 * });
 * isCrossSite(req); // true
 * isCrossSite(req, [], "https://example.com"); // true
 * ```
 */
export function isCrossSite(
  req: Request,
  allowedOrigins: readonly string[] = [],
  publicOrigin?: string | readonly string[],
): boolean {
  const site = req.headers.get("Sec-Fetch-Site");
  const origin = req.headers.get("Origin");
  if (publicOrigin === undefined) {
    if (site === "same-origin" || site === "none") return false;
    if (origin === null) return site !== null;
    return origin !== URL.parse(req.url)?.origin &&
      !allowedOrigins.includes(origin);
  }
  if (origin === null) {
    return site !== null && site !== "same-origin" && site !== "none";
  }
  const own = typeof publicOrigin === "string" ? [publicOrigin] : publicOrigin;
  return !own.includes(origin) && !allowedOrigins.includes(origin);
}

/**
 * Whether the request's host (its `Host` header, else its URL's host) is
 * one of `allowedHosts`, compared without case. No list admits any host.
 *
 * @example
 * ```ts
 * import { isAllowedHost } from "./origin.ts";
 * const req = new Request("http://evil.example:8000/api/cms/save");
 * isAllowedHost(req, ["localhost:8000"]); // false
 * ```
 */
export function isAllowedHost(
  req: Request,
  allowedHosts?: readonly string[],
): boolean {
  if (allowedHosts === undefined) return true;
  const host = (req.headers.get("Host") ?? URL.parse(req.url)?.host ?? "")
    .toLowerCase();
  return allowedHosts.some((h) => h.toLowerCase() === host);
}

/**
 * Throws the answer for a malformed Host or target (400, see
 * {@linkcode requestUrl}), a request from the wrong host (421) or another
 * site (403); returns when the request may go on. Every endpoint calls it
 * before anything else is read.
 *
 * @example
 * ```ts
 * import { checkOrigin } from "./origin.ts";
 * const req = new Request("https://example.com/api/cms/save", {
 *   method: "PATCH",
 *   headers: { "Sec-Fetch-Site": "same-origin" },
 * });
 * checkOrigin(req, { allowedHosts: ["example.com"] }); // passes
 * ```
 */
export function checkOrigin(req: Request, options: OriginOptions): void {
  requestUrl(req);
  if (!isAllowedHost(req, options.allowedHosts)) {
    throw new HttpError(Status.MisdirectedRequest, "Unknown host");
  }
  if (isCrossSite(req, options.allowedOrigins, options.publicOrigin)) {
    throw new HttpError(Status.Forbidden, "Cross-site request");
  }
}
