/**
 * The link check endpoint (`POST /api/cms/checks/links`): which internal
 * links of a field lead nowhere. The server asks its own site (a `HEAD`,
 * without the editor's cookies) and never any other host; bounded in
 * count per request, in time, and in rate per editor, with answers cached
 * briefly.
 *
 * @module
 */
import type {
  LinkCheckAnswer,
  LinkCheckBody,
} from "../../core/protocol/checks.ts";
import { Status } from "../../core/protocol/http.ts";
import {
  admitEditor,
  type Authorize,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
  type OriginOptions,
  readJsonObject,
  requestUrl,
} from "../http/mod.ts";
import { RateBuckets } from "./_rate.ts";

/** Options of {@linkcode createLinkCheckHandler}. */
export interface LinkCheckHandlerOptions extends OriginOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /**
   * Where the `HEAD` requests go, e.g. `http://127.0.0.1:8000` when the
   * server should not reach itself through its public address. Default:
   * the site's public origin (the call's or the `publicOrigin` option's
   * first), else the request's own origin. Paths are always judged
   * against the site's origin, so only the site itself is ever asked.
   */
  fetchOrigin?: string;
  /** Most paths one request may name (default 20; more is a 400). */
  maxPaths?: number;
  /** Most time one request may take, in ms (default 5000). */
  timeoutMs?: number;
  /**
   * Most `HEAD` requests per editor per minute (default 120); answers from
   * the cache are free. Past it: 429 with `Retry-After`.
   */
  ratePerMinute?: number;
  /** How long an answer is reused, in ms (default 60000). */
  cacheMs?: number;
  /** How many `HEAD` requests run at once per request (default 4). */
  concurrency?: number;
  /** The `fetch` used (tests). */
  fetch?: typeof fetch;
}

/** The outcome of asking for one path. */
type Outcome = "ok" | "broken" | "unknown";

/** The longest path accepted. */
const MAX_PATH = 2048;
/** Most cached answers. */
const MAX_CACHE = 2000;
/** The headers of a check: it says who asks, and carries no cookie. */
const HEADERS = { "User-Agent": "inplace-cms link check" };
/** Same-site redirects followed. */
const MAX_REDIRECTS = 3;

/**
 * `POST` JSON `{"paths": ["/about", "/blog/post?x=1#part"]}`: asks the site
 * for each (a `HEAD`; a `GET` when the site does not answer `HEAD`;
 * same-site redirects followed, up to 3) and answers
 * {@linkcode LinkCheckAnswer}: `broken` (404 or 410) and `unknown` (no
 * answer in time, a 5xx). Every other answer counts as fine.
 *
 * - 400: malformed JSON, `paths` not a list of 1 to `maxPaths` strings, or
 *   a path that is not on the site (another host, `//host`, a scheme other
 *   than the site's): nothing is asked then.
 * - 403 without a session or from another site; 405 for other methods;
 *   429 with `Retry-After` past the editor's rate.
 *
 * @example
 * ```ts
 * import { createLinkCheckHandler } from "@inplace/cms";
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const checkLinks = createLinkCheckHandler({
 *   authorize: (req) => editorOf(req),
 *   publicOrigin: "https://www.example.com",
 * });
 * ```
 */
export function createLinkCheckHandler(
  options: LinkCheckHandlerOptions,
): Handler<EndpointCall> {
  const maxPaths = options.maxPaths ?? 20;
  const cacheMs = options.cacheMs ?? 60_000;
  const cache = new Map<string, { outcome: Outcome; until: number }>();
  const rate = new RateBuckets(options.ratePerMinute ?? 120);
  const ask = options.fetch ?? fetch;
  return endpoint<EndpointCall>("link-check", async (req, _ctx, call) => {
    const editor = await admitEditor(req, ["POST"], options, call);
    const body = await readJsonObject(req, 64 * 1024);
    const paths = readPaths(body, maxPaths);
    const site = siteOrigins(req, call?.publicOrigin ?? options.publicOrigin);
    const target = options.fetchOrigin ?? site[0];
    const urls = new Map<string, string>(); // path as sent → URL asked
    for (const path of paths) urls.set(path, onSite(path, site, target));
    const now = Date.now();
    const todo = [...new Set(urls.values())].filter((url) => {
      const hit = cache.get(url);
      return !hit || hit.until <= now;
    });
    const wait = rate.take(String(editor.id ?? editor.name), todo.length, now);
    if (wait > 0) {
      throw new HttpError(
        Status.TooManyRequests,
        "Too many link checks: try again shortly",
        { "Retry-After": String(Math.ceil(wait / 1000)) },
      );
    }
    const deadline = AbortSignal.timeout(options.timeoutMs ?? 5000);
    const outcomes = new Map<string, Outcome>();
    await pool(todo, options.concurrency ?? 4, async (url) => {
      const outcome = await headOutcome(ask, url, deadline);
      outcomes.set(url, outcome);
      if (outcome !== "unknown") remember(cache, url, outcome, cacheMs);
    });
    const answer: LinkCheckAnswer = { broken: [], unknown: [] };
    for (const [path, url] of urls) {
      const outcome = outcomes.get(url) ?? cache.get(url)?.outcome ??
        "unknown";
      if (outcome !== "ok") answer[outcome].push(path);
    }
    return json(Status.OK, answer);
  });
}

/** The body's `paths`: 1 to `max` strings, or 400. */
function readPaths(body: Record<string, unknown>, max: number): string[] {
  const paths = (body as Partial<LinkCheckBody>).paths;
  if (
    !Array.isArray(paths) || paths.length < 1 || paths.length > max ||
    !paths.every((p) => typeof p === "string" && p.length <= MAX_PATH)
  ) {
    throw new HttpError(
      Status.BadRequest,
      `paths must be a list of 1 to ${max} site paths`,
    );
  }
  return paths;
}

/** The site's own origins: the public ones, else the request's. */
function siteOrigins(
  req: Request,
  publicOrigin: string | readonly string[] | undefined,
): string[] {
  const given = typeof publicOrigin === "string"
    ? [publicOrigin]
    : [...publicOrigin ?? []];
  const origins = given.map((o) => URL.parse(o)?.origin).filter((o) =>
    o !== undefined && o !== "null"
  ) as string[];
  return origins.length ? origins : [requestUrl(req).origin];
}

/**
 * The URL to ask for `path`, at `target`: 400 unless `path` is a site path
 * (`/…`, not `//…`) or an absolute URL on one of the site's `origins` (a
 * path relative to a page, `about`, is the client's to resolve).
 * The fragment is dropped.
 */
function onSite(path: string, origins: string[], target: string): string {
  const trimmed = path.trim();
  const url = URL.parse(trimmed, origins[0]);
  const relative = /^\/(?![/\\])/.test(trimmed);
  const absolute = /^[a-z][\w+.-]*:/i.test(trimmed);
  if (!url || !(relative || absolute && origins.includes(url.origin))) {
    throw new HttpError(
      Status.BadRequest,
      `Not a path on this site: ${path.slice(0, 100)}`,
    );
  }
  // Set, not parsed: a path such as `//host` stays a path on `target`.
  const out = new URL(target);
  out.pathname = url.pathname;
  out.search = url.search;
  return out.href;
}

/** Runs `work` on every item, at most `limit` at once. */
async function pool<T>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, lane));
}

/**
 * What the site answers for `url`: a `HEAD` (a `GET` when `HEAD` is not
 * allowed), same-origin redirects followed; never another origin, never
 * the editor's cookies.
 */
async function headOutcome(
  ask: typeof fetch,
  url: string,
  signal: AbortSignal,
): Promise<Outcome> {
  const origin = new URL(url).origin;
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const init = { redirect: "manual", signal, headers: HEADERS } as const;
      let res = await ask(url, { method: "HEAD", ...init });
      if (res.status === 405 || res.status === 501) {
        await res.body?.cancel();
        res = await ask(url, { method: "GET", ...init });
      }
      await res.body?.cancel();
      const location = res.headers.get("Location");
      if (res.status >= 300 && res.status < 400 && location) {
        const next = URL.parse(location, url);
        if (!next || next.origin !== origin) return "ok"; // leaves the site
        url = next.href;
        continue;
      }
      if (res.status === 404 || res.status === 410) return "broken";
      return res.status >= 500 ? "unknown" : "ok";
    }
    return "unknown"; // too many redirects
  } catch {
    return "unknown"; // timed out, refused, reset
  }
}

/** Caches `outcome` for `url`, dropping the oldest past the cap. */
function remember(
  cache: Map<string, { outcome: Outcome; until: number }>,
  url: string,
  outcome: Outcome,
  ms: number,
) {
  cache.delete(url);
  cache.set(url, { outcome, until: Date.now() + ms });
  if (cache.size > MAX_CACHE) cache.delete(cache.keys().next().value!);
}
