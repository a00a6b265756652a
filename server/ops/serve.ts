/**
 * Graceful shutdown for a host's own `Deno.serve`. On the first SIGTERM or
 * SIGINT (or when `signal` aborts), the server drains:
 * - requests in flight finish, their bodies included, within `deadlineMs`;
 * - any new request is answered `503` with `Retry-After` and
 *   `Connection: close` (never a 4xx), and `draining` is aborted so a
 *   readiness check turns 503 too;
 * - once nothing is in flight and no request has come for a moment
 *   ({@linkcode QUIET_MS}), or at the deadline, the listener closes.
 *
 * A second signal is harmless; a third exits the process at once (code 130).
 *
 * Why the listener stays open while draining: Deno's `server.shutdown()`
 * cuts request bodies that are still streaming (measured on Deno 2.9: the
 * handler's body read fails with `BadResource`), so it is called only once
 * the requests in flight are done or the deadline has passed. Until then a
 * new connection is still accepted, and its request is answered 503.
 *
 * @example
 * ```ts
 * import { serveGracefully } from "./serve.ts";
 * const server = serveGracefully((_req) => new Response("hi"), { port: 8000 });
 * await server.finished; // after SIGTERM/SIGINT, once drained
 * // close your stores here, then exit
 * ```
 *
 * @module
 */
import { log } from "./log.ts";

/** A `Deno.serve` handler. */
export type ServeHandler = (
  req: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

/** Options of {@linkcode serveGracefully}. */
export interface ServeGracefullyOptions {
  /** Port; `0` picks a free one. Default 8000. */
  port?: number;
  /** Interface to bind. Default `0.0.0.0`. */
  hostname?: string;
  /** How long requests in flight may take once draining starts. Default 10 s. */
  deadlineMs?: number;
  /** `Retry-After` of the 503 answers while draining, in seconds. Default 5. */
  retryAfterSeconds?: number;
  /** Aborting it starts the shutdown, like a first signal. */
  signal?: AbortSignal;
  /**
   * Listen for SIGTERM and SIGINT (default `true`). Turn off when the host
   * handles signals itself and aborts `signal`.
   */
  signals?: boolean;
  /** Called once listening. Default: logs the address. */
  onListen?: (addr: Deno.NetAddr) => void;
}

/** A server started by {@linkcode serveGracefully}. */
export interface GracefulServer {
  /** The address it listens on. */
  readonly addr: Deno.NetAddr;
  /** Aborted when draining starts (pass it to the readiness handler). */
  readonly draining: AbortSignal;
  /** Requests being handled right now. */
  readonly inFlight: number;
  /** Resolves once drained and the listener is closed. */
  readonly finished: Promise<void>;
  /** Starts draining (if not yet) and resolves when finished. Idempotent. */
  shutdown(): Promise<void>;
}

const SIGNALS: Deno.Signal[] = ["SIGTERM", "SIGINT"];

/**
 * How long, once nothing is in flight, no new request may have arrived
 * before the listener closes (ms). While clients still send, each gets a
 * clear 503; a connection that arrives in the instant the listener closes
 * is cut by the kernel instead, and never read (clients retry it as a
 * network error).
 */
export const QUIET_MS = 200;

/** Servers of this process that are draining now. */
let drainingServers = 0;

/** What runs when a server of this process starts draining (open streams). */
const drainListeners = new Set<() => void>();

/**
 * Runs `listener` whenever a server of this process started by
 * {@linkcode serveGracefully} starts draining, e.g. to end long-lived
 * streams (the editor event stream ends with a `retry:` hint); the returned
 * function removes it.
 *
 * @example
 * ```ts
 * import { onDrain } from "./serve.ts";
 * const off = onDrain(() => console.log("draining"));
 * off();
 * ```
 */
export function onDrain(listener: () => void): () => void {
  drainListeners.add(listener);
  return () => drainListeners.delete(listener);
}

/**
 * Whether a server of this process started by {@linkcode serveGracefully}
 * is draining: a request body that breaks now was most likely cut by the
 * shutdown, not by the editor (`readBody` then answers 503, not 400).
 *
 * @example
 * ```ts
 * import { isDraining } from "./serve.ts";
 * isDraining(); // false while no server shuts down
 * ```
 */
export function isDraining(): boolean {
  return drainingServers > 0;
}

/**
 * Serves `handler` with `Deno.serve`, and drains gracefully on SIGTERM,
 * SIGINT or `signal` (see the module doc).
 *
 * @example
 * ```ts
 * import { serveGracefully } from "./serve.ts";
 * const stop = new AbortController();
 * const server = serveGracefully(() => new Response("ok"), {
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   signal: stop.signal,
 *   signals: false,
 * });
 * stop.abort();
 * await server.finished;
 * ```
 */
export function serveGracefully(
  handler: ServeHandler,
  options: ServeGracefullyOptions = {},
): GracefulServer {
  const drain = new Drain(handler, options);
  const server = Deno.serve({
    port: options.port ?? 8000,
    hostname: options.hostname,
    onListen: options.onListen ??
      ((addr) =>
        log({
          level: "info",
          msg: `listening on ${addr.hostname}:${addr.port}`,
          route: "serve",
        })),
  }, drain.served);
  drain.server = server;
  let signalsSeen = 0;
  const onSignal = () => {
    signalsSeen++;
    if (signalsSeen >= 3) {
      log({ level: "error", msg: "third signal: exiting now", route: "serve" });
      Deno.exit(130);
    }
    void drain.shutdown();
  };
  if (options.signals ?? true) {
    for (const sig of SIGNALS) Deno.addSignalListener(sig, onSignal);
    drain.stopListening = () => {
      for (const sig of SIGNALS) Deno.removeSignalListener(sig, onSignal);
    };
  }
  options.signal?.addEventListener("abort", () => void drain.shutdown(), {
    once: true,
  });
  if (options.signal?.aborted) void drain.shutdown();
  return {
    addr: server.addr,
    draining: drain.draining.signal,
    get inFlight() {
      return drain.inFlight;
    },
    finished: drain.done.promise,
    shutdown: drain.shutdown,
  };
}

/**
 * One server's requests and its drain: counts what is in flight, answers
 * 503 once draining, and closes the listener when drained (see the module
 * doc).
 */
class Drain {
  /** Aborted when draining starts. */
  readonly draining = new AbortController();
  /** Resolved once drained and the listener is closed. */
  readonly done = Promise.withResolvers<void>();
  /** Requests being handled right now. */
  inFlight = 0;
  /** The server, once started. */
  server?: Deno.HttpServer<Deno.NetAddr>;
  /** Removes the signal listeners, if any were added. */
  stopListening?: () => void;
  readonly #handler: ServeHandler;
  readonly #deadlineMs: number;
  readonly #retryAfter: string;
  /** Called when the last request in flight is answered while draining. */
  #idle?: () => void;
  #finished?: Promise<void>;
  /** When the latest request arrived while draining (answered 503). */
  #lastArrival = 0;

  constructor(handler: ServeHandler, options: ServeGracefullyOptions) {
    this.#handler = handler;
    this.#deadlineMs = options.deadlineMs ?? 10_000;
    this.#retryAfter = String(options.retryAfterSeconds ?? 5);
  }

  /** The handler given to `Deno.serve`: counted, or 503 while draining. */
  served: ServeHandler = async (req, info) => {
    if (this.draining.signal.aborted) {
      this.#lastArrival = performance.now();
      await req.body?.cancel().catch(() => {});
      return new Response("Shutting down; try again shortly", {
        status: 503,
        headers: {
          "Content-Type": "text/plain; charset=utf-8",
          "Retry-After": this.#retryAfter,
          "Connection": "close",
          "Cache-Control": "no-store",
        },
      });
    }
    this.inFlight++;
    try {
      const res = await this.#handler(req, info);
      if (this.draining.signal.aborted) {
        try {
          res.headers.set("Connection", "close");
        } catch { /* immutable headers: the listener closes soon anyway */ }
      }
      return res;
    } finally {
      if (--this.inFlight === 0) this.#idle?.();
    }
  };

  /** Starts draining (once) and resolves when finished. */
  shutdown = (): Promise<void> => {
    this.#finished ??= this.#drain().then(this.done.resolve);
    return this.#finished;
  };

  async #drain(): Promise<void> {
    this.draining.abort();
    drainingServers++;
    for (const listener of [...drainListeners]) {
      try {
        listener();
      } catch (err) {
        log({
          level: "error",
          msg: `drain listener failed: ${err}`,
          route: "serve",
        });
      }
    }
    try {
      await this.#drainNow();
    } finally {
      drainingServers--;
    }
  }

  async #drainNow(): Promise<void> {
    const started = performance.now();
    log({
      level: "info",
      msg: `shutdown started with ${this.inFlight} requests in flight`,
      route: "serve",
    });
    await this.#settle(started);
    const left = this.inFlight;
    // Past the deadline, what still runs is cut (bodies fail → 503); wait a
    // moment for those answers, never forever.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.server!.shutdown(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, left > 0 ? 1_000 : 30_000);
      }),
    ]);
    clearTimeout(timer);
    this.stopListening?.();
    log({
      level: left > 0 ? "warn" : "info",
      msg: left > 0
        ? `shutdown deadline passed with ${left} requests in flight`
        : "shutdown complete",
      route: "serve",
      durationMs: Math.round(performance.now() - started),
    });
  }

  /**
   * Waits until nothing is in flight and no request has come for
   * {@linkcode QUIET_MS}, or until the deadline from `started`.
   */
  async #settle(started: number): Promise<void> {
    const deadlineMs = this.#deadlineMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.#idle = resolve;
        timer = setTimeout(resolve, deadlineMs);
      });
    }
    clearTimeout(timer);
    // Requests still arriving get their 503 before the listener closes
    // (they are never in flight, so only the quiet and the deadline count).
    for (let i = 0; i < 1000; i++) {
      const now = performance.now();
      const wait = Math.min(
        this.#lastArrival + QUIET_MS - now,
        started + deadlineMs - now,
      );
      if (wait <= 0) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
