/**
 * The cross-site check of both endpoints, following the rules of Fresh 2's
 * `csrf()` middleware.
 *
 * @module
 */

/**
 * Whether a request comes from another site and must get 403.
 *
 * - `Sec-Fetch-Site: same-origin` or `none` passes.
 * - Otherwise the `Origin` header must equal the request URL's origin or one
 *   of `allowedOrigins` (for hosts behind proxies, where `req.url` is an
 *   internal address).
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
 * ```
 */
export function isCrossSite(
  req: Request,
  allowedOrigins: readonly string[] = [],
): boolean {
  const site = req.headers.get("Sec-Fetch-Site");
  if (site === "same-origin" || site === "none") return false;
  const origin = req.headers.get("Origin");
  if (origin === null) return site !== null;
  return origin !== new URL(req.url).origin && !allowedOrigins.includes(origin);
}
