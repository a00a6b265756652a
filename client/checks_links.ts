/**
 * The link check of the content checks (a lazy chunk, loaded where the
 * page config names the link check endpoint, `checks`): links to a path of
 * this site that are added or changed are sent to the server, which
 * answers the ones that are not found (`link-broken`).
 *
 * @module
 */

import type { Finding } from "../core/checks.ts";
import type { LinkCheck } from "./checks.ts";

/**
 * The link check: each link of a region to a path of this site that was
 * added or changed since the region was first checked is sent (once) to
 * `endpoint` (`POST {urls}` answers `{broken}`, the paths that are not
 * found); `again` runs the checks when a path is broken. Returns the
 * findings of a region: `broken` (the `link-broken` finding) on each
 * link to a broken path.
 */
export function linkChecker(
  endpoint: string,
  broken: Finding,
): LinkCheck {
  const seen = new Set<string>(), bad = new Set<string>();
  const first = new WeakSet<HTMLElement>();
  return (el, again) => {
    const links = [...el.querySelectorAll("a[href]")].filter((a) =>
      (a as HTMLAnchorElement).origin === location.origin
    ) as HTMLAnchorElement[];
    const urls = links.map((a) => a.pathname).filter((p) =>
      !seen.has(p) && seen.add(p)
    );
    if (endpoint && first.has(el) && urls.length) {
      fetch(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ urls }),
      }).then((r) => r.json()).then(({ broken: b }: { broken: string[] }) => {
        b.forEach((p) => bad.add(p));
        if (b[0]) again();
      }).catch(() => {});
    }
    first.add(el);
    return links.filter((a) => bad.has(a.pathname)).map((a) => ({
      ...broken,
      els: [a],
    }));
  };
}
