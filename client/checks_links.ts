/**
 * The link check of the content checks (a lazy chunk, loaded where the
 * page config names the link check endpoint, `checks`): links to a path of
 * this site that are added or changed are sent to the server, which
 * answers the ones that are not found (`link-broken`).
 *
 * @module
 */

import type { Finding } from "../core/checks.ts";
import type {
  LinkCheckAnswer,
  LinkCheckBody,
} from "../core/protocol/checks.ts";
import type { LinkCheck } from "./checks_types.ts";

/** The path and query of link `a`: what the endpoint checks. */
const path = (a: HTMLAnchorElement) => a.pathname + a.search;

/**
 * The link check: the paths of a region's links to this site that were
 * added or changed since the region was first checked are sent (each
 * once, at most 20 a request) to `endpoint` ({@linkcode LinkCheckBody});
 * `again` runs the checks when the answer names a broken one. A path the
 * server could not judge (`unknown`), or a failed request, is asked again
 * at the next change. Returns the findings of a region: `broken` (the
 * `link-broken` finding) on each link to a broken path.
 */
export function linkChecker(
  endpoint: string,
  broken: Finding,
): LinkCheck {
  const seen = new Set<string>(), bad = new Set<string>();
  const first = new WeakSet<HTMLElement>();
  const forget = (paths: string[]) => paths.forEach((p) => seen.delete(p));
  return (el, again) => {
    const links = [...el.querySelectorAll("a[href]")].filter((a) =>
      (a as HTMLAnchorElement).origin === location.origin
    ) as HTMLAnchorElement[];
    const paths = links.map(path).filter((p) => !seen.has(p) && seen.add(p))
      .slice(0, 20);
    if (first.has(el) && paths[0]) {
      fetch(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ paths } satisfies LinkCheckBody),
      }).then((r) => r.ok ? r.json() : Promise.reject())
        .then(({ broken: b, unknown }: LinkCheckAnswer) => {
          b.forEach((p) => bad.add(p));
          forget(unknown);
          if (b[0]) again();
        }).catch(() => forget(paths));
    }
    first.add(el);
    return links.filter((a) => bad.has(path(a))).map((a) => ({
      ...broken,
      els: [a],
    }));
  };
}
