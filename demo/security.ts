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
  /**
   * Wrong passwords for one account (from all clients together) per window
   * before the account counts as under attack. Default 100.
   */
  overallPerWindow?: number;
  /** The window of `overallPerWindow`. Default 1 minute. */
  windowMs?: number;
  /**
   * While an account is under attack, how long each wrong answer is held
   * before it is sent. Default 1 s.
   */
  holdMs?: number;
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
 * Throttles password guessing with exponential backoff per client and per
 * account, without letting an attacker lock anybody else out:
 *
 * - A client (an address, see {@linkcode clientAddress}) in backoff is
 *   refused before its password is compared, the right one included, so a
 *   guesser learns nothing by continuing.
 * - A client that has not failed always has its password compared: with
 *   the right one it gets in, however many wrong ones others sent.
 * - An account that many clients fail against (`overallPerWindow`) is under
 *   attack: then every client backs off from its first failure, and each
 *   wrong answer is held for `holdMs`, which slows
 *   guessing from many addresses. Right passwords are never held.
 *
 * State is in memory, per process: several instances each throttle on
 * their own (a shared store would make the limits global).
 *
 * @example
 * ```ts
 * import { LoginThrottle } from "./security.ts";
 * const throttle = new LoginThrottle({ freePerClient: 2 });
 * throttle.failure("10.0.0.1");
 * throttle.failure("10.0.0.1");
 * throttle.failure("10.0.0.1");
 * throttle.wait("10.0.0.1") > 0; // true: back off
 * throttle.wait("10.0.0.2"); // 0: a clean client is never held back
 * ```
 */
export class LoginThrottle {
  readonly #free: number;
  readonly #base: number;
  readonly #max: number;
  readonly #overall: number;
  readonly #window: number;
  readonly #hold: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  /** Per `account \n client`. */
  readonly #clients = new Map<string, ClientRecord>();
  /** Per account: times of recent failures from anyone, oldest first. */
  readonly #recent = new Map<string, number[]>();

  /** Creates a throttle; see {@linkcode LoginThrottleOptions} for defaults. */
  constructor(options: LoginThrottleOptions = {}) {
    this.#free = options.freePerClient ?? 5;
    this.#base = options.baseDelayMs ?? 1000;
    this.#max = options.maxDelayMs ?? 15 * 60_000;
    this.#overall = options.overallPerWindow ?? 100;
    this.#window = options.windowMs ?? 60_000;
    this.#hold = options.holdMs ?? 1000;
    this.#maxClients = options.maxClients ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Milliseconds `client` must wait before its next attempt at `account`
   * (0: go ahead and compare the password). Always 0 for a client without
   * failures.
   */
  wait(client: string, account = ""): number {
    const record = this.#clients.get(`${account}\n${client}`);
    if (!record) return 0;
    const now = this.#now();
    // Under attack, the first failure already starts the backoff.
    const free = this.#underAttack(account, now) ? 1 : this.#free;
    if (record.failures < free) return 0;
    const delay = Math.min(
      this.#base * 2 ** (record.failures - free),
      this.#max,
    );
    return Math.max(0, Math.ceil(record.last + delay - now));
  }

  /**
   * Records a wrong password from `client` for `account`, and returns how
   * long to hold the wrong answer (0 unless the account is under attack).
   */
  failure(client: string, account = ""): number {
    const now = this.#now();
    const recent = this.#recentOf(account, now);
    recent.push(now);
    this.#recent.set(account, recent);
    const key = `${account}\n${client}`;
    const record = this.#clients.get(key) ?? { failures: 0, last: now };
    this.#clients.delete(key); // re-insert: the map stays in age order
    record.failures++;
    record.last = now;
    this.#clients.set(key, record);
    for (const [old, entry] of this.#clients) {
      const stale = entry.last + this.#max < now;
      if (!stale && this.#clients.size <= this.#maxClients) break;
      this.#clients.delete(old);
    }
    if (this.#recent.size > this.#maxClients) {
      this.#recent.delete(this.#recent.keys().next().value!);
    }
    return this.#underAttack(account, now) ? this.#hold : 0;
  }

  /** Forgets `client`'s failures at `account` after a correct password. */
  success(client: string, account = ""): void {
    this.#clients.delete(`${account}\n${client}`);
  }

  #underAttack(account: string, now: number): boolean {
    return this.#recentOf(account, now).length >= this.#overall;
  }

  /** The account's failures inside the window (older ones dropped). */
  #recentOf(account: string, now: number): number[] {
    const all = this.#recent.get(account) ?? [];
    const from = all.findIndex((t) => t > now - this.#window);
    const kept = from < 0 ? [] : from === 0 ? all : all.slice(from);
    if (kept !== all) this.#recent.set(account, kept);
    return kept;
  }
}

/** Where the client address of a request comes from. */
export interface ClientAddressOptions {
  /**
   * A header that a trusted proxy sets to the client's address, e.g.
   * `X-Forwarded-For` (its last entry is used: the one the proxy added) or
   * `X-Real-IP`. Unset: the peer address of the connection.
   */
  header?: string;
  /**
   * Peers whose `header` is believed. Default `127.0.0.1` and `::1` (a
   * proxy on the same machine). From any other peer the header is ignored.
   */
  trustedProxies?: readonly string[];
}

/**
 * The address a login is throttled by: the connection's peer, or behind a
 * configured trusted proxy the address it reports in `options.header`.
 * A header from an untrusted peer, or a value that is not an IP address,
 * is never believed (the peer counts).
 *
 * @example
 * ```ts
 * import { clientAddress } from "./security.ts";
 * const req = new Request("http://x/", {
 *   headers: { "X-Forwarded-For": "203.0.113.9, 198.51.100.7" },
 * });
 * clientAddress(req, "127.0.0.1", { header: "X-Forwarded-For" }); // "198.51.100.7"
 * clientAddress(req, "127.0.0.1"); // "127.0.0.1"
 * ```
 */
export function clientAddress(
  req: Request,
  peer: string,
  options: ClientAddressOptions = {},
): string {
  if (!options.header) return peer;
  const trusted = options.trustedProxies ?? ["127.0.0.1", "::1"];
  if (!trusted.includes(peer)) return peer;
  const value = req.headers.get(options.header)?.split(",").at(-1)?.trim();
  return value && /^[0-9a-f.:]{2,45}$/i.test(value) ? value : peer;
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
  const host = (req.headers.get("Host") ?? URL.parse(req.url)?.host ?? "")
    .toLowerCase();
  return hosts.includes(host);
}

/**
 * The demo's Content-Security-Policy: scripts only from this origin or
 * with the response's nonce (no `unsafe-inline` script), no plugins, no
 * framing, forms and base URI pinned to this origin. Styles may be inline
 * (the page's own `<style>` and the editor's shadow-root sheets).
 *
 * @param nonce A fresh random nonce for this response, or `null` for a page
 * that runs no script at all (`script-src 'none'`: login, 403, 404).
 * @param imageOrigins Extra origins images load from (e.g. an S3 bucket).
 */
export function contentSecurityPolicy(
  nonce: string | null,
  imageOrigins: readonly string[] = [],
): string {
  return [
    "default-src 'self'",
    nonce === null ? "script-src 'none'" : `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    ["img-src 'self' blob:", ...imageOrigins].join(" "),
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
