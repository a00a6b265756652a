/**
 * The demo's own security rules around sign-in and pages: the login
 * throttle, same-site redirect targets, the Host allowlist and the
 * Content-Security-Policy. A real host keeps its own; these show how.
 *
 * @module
 */

/** Options of {@linkcode LoginThrottle}. */
export interface LoginThrottleOptions {
  /** Wrong passwords a client may send before backoff starts. Default 5. */
  freePerClient?: number;
  /** First backoff of a client; it doubles with every further failure. Default 1 s. */
  baseDelayMs?: number;
  /** Longest backoff of one client. Default 15 minutes. */
  maxDelayMs?: number;
  /** Wrong passwords from all clients together per window. Default 100. */
  overallPerWindow?: number;
  /** The overall window. Default 1 minute. */
  windowMs?: number;
  /** Clients remembered at once; the oldest are forgotten first. Default 10,000. */
  maxClients?: number;
  /** The clock (tests). Default `Date.now`. */
  now?: () => number;
}

interface ClientRecord {
  failures: number;
  last: number;
}

/**
 * Throttles password guessing, per client and overall, with exponential
 * backoff. While a client (or everybody) is in backoff, every attempt is
 * refused before the password is even compared, the right one included, so
 * a guesser learns nothing by continuing.
 *
 * State is in memory, per process: several instances each throttle on
 * their own (a shared store would make the limit global).
 *
 * @example
 * ```ts
 * import { LoginThrottle } from "./security.ts";
 * const throttle = new LoginThrottle({ freePerClient: 2 });
 * throttle.failure("10.0.0.1");
 * throttle.failure("10.0.0.1");
 * throttle.failure("10.0.0.1");
 * throttle.wait("10.0.0.1") > 0; // true: back off
 * ```
 */
export class LoginThrottle {
  readonly #free: number;
  readonly #base: number;
  readonly #max: number;
  readonly #overall: number;
  readonly #window: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  readonly #clients = new Map<string, ClientRecord>();
  /** Times of recent failures from anyone, oldest first. */
  #recent: number[] = [];

  /** Creates a throttle; see {@linkcode LoginThrottleOptions} for defaults. */
  constructor(options: LoginThrottleOptions = {}) {
    this.#free = options.freePerClient ?? 5;
    this.#base = options.baseDelayMs ?? 1000;
    this.#max = options.maxDelayMs ?? 15 * 60_000;
    this.#overall = options.overallPerWindow ?? 100;
    this.#window = options.windowMs ?? 60_000;
    this.#maxClients = options.maxClients ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Milliseconds `client` must wait before its next attempt (0: go ahead). */
  wait(client: string): number {
    const now = this.#now();
    this.#recent = this.#recent.filter((t) => t > now - this.#window);
    let wait = 0;
    if (this.#recent.length >= this.#overall) {
      // Everybody waits until the oldest failure leaves the window.
      wait = this.#recent[this.#recent.length - this.#overall] + this.#window -
        now;
    }
    const record = this.#clients.get(client);
    if (record && record.failures >= this.#free) {
      const delay = Math.min(
        this.#base * 2 ** (record.failures - this.#free),
        this.#max,
      );
      wait = Math.max(wait, record.last + delay - now);
    }
    return Math.max(0, Math.ceil(wait));
  }

  /** Records a wrong password from `client`. */
  failure(client: string): void {
    const now = this.#now();
    this.#recent.push(now);
    const record = this.#clients.get(client) ?? { failures: 0, last: now };
    this.#clients.delete(client); // re-insert: the map stays in age order
    record.failures++;
    record.last = now;
    this.#clients.set(client, record);
    for (const [key, old] of this.#clients) {
      const stale = old.last + this.#max < now;
      if (!stale && this.#clients.size <= this.#maxClients) break;
      this.#clients.delete(key);
    }
  }

  /** Forgets `client`'s failures after a correct password. */
  success(client: string): void {
    this.#clients.delete(client);
  }
}

/** A stand-in origin for resolving same-site paths. */
const SITE = "http://site.invalid";

/**
 * Where a login may go next: a path on this site, judged on the URL that a
 * browser would resolve, never on the string. The result is re-serialized
 * and checked once more, so no dot-segment (`/.//evil`, `/a/..//evil`),
 * encoded (`/%2e//evil`) or whitespace spelling can turn into a
 * protocol-relative `//evil` Location. Anything else goes to `/`.
 *
 * @example
 * ```ts
 * import { safeNext } from "./security.ts";
 * safeNext("/?edit"); // "/?edit"
 * safeNext("/.//evil.example"); // "/"
 * safeNext("https://evil.example/"); // "/"
 * ```
 */
export function safeNext(next: unknown): string {
  if (typeof next !== "string" || !next.startsWith("/")) return "/";
  const url = URL.parse(next, SITE);
  if (url?.origin !== SITE) return "/";
  const out = url.pathname + url.search + url.hash;
  // A path that starts with two slashes (or a backslash after the first)
  // is read as a host by browsers.
  if (!/^\/(?![/\\])/.test(out)) return "/";
  return URL.parse(out, SITE)?.origin === SITE ? out : "/";
}

/**
 * Whether the request's Host is one this site answers to. Under DNS
 * rebinding a browser sends the attacker's host name to our address; a
 * Host outside the list is refused before anything else runs.
 *
 * @example
 * ```ts
 * import { hostAllowed } from "./security.ts";
 * const req = new Request("http://evil.example:8000/");
 * hostAllowed(req, ["127.0.0.1:8000", "localhost:8000"]); // false
 * ```
 */
export function hostAllowed(req: Request, hosts: readonly string[]): boolean {
  const host = (req.headers.get("Host") ?? new URL(req.url).host)
    .toLowerCase();
  return hosts.includes(host);
}

/**
 * The demo's Content-Security-Policy: scripts only from this origin or
 * with the response's nonce (no `unsafe-inline` script), no plugins, no
 * framing, forms and base URI pinned to this origin. Styles may be inline
 * (the page's own `<style>` and the editor's shadow-root sheets).
 *
 * @param nonce A fresh random nonce for this response.
 * @param imageOrigins Extra origins images load from (e.g. an S3 bucket).
 */
export function contentSecurityPolicy(
  nonce: string,
  imageOrigins: readonly string[] = [],
): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    ["img-src 'self' blob:", ...imageOrigins].join(" "),
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
