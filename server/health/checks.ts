/**
 * Health endpoints as plain handlers, to mount anywhere:
 * - {@linkcode createLivenessHandler} (`GET /healthz`): the process answers;
 *   touches no storage.
 * - {@linkcode createReadinessHandler} (`GET /readyz`): the content store and
 *   the media storage answer within a short timeout, and the server is not
 *   shutting down.
 *
 * Neither goes through the endpoint pipeline: probes are not logged.
 *
 * @example
 * ```ts
 * import { MemoryContentStore, MemoryMediaStorage } from "@inplace/cms";
 * import {
 *   contentStoreCheck,
 *   createLivenessHandler,
 *   createReadinessHandler,
 *   mediaStorageCheck,
 * } from "./checks.ts";
 * const healthz = createLivenessHandler();
 * const readyz = createReadinessHandler({
 *   checks: {
 *     content: contentStoreCheck(new MemoryContentStore()),
 *     media: mediaStorageCheck(new MemoryMediaStorage()),
 *   },
 * });
 * Deno.serve((req) => {
 *   const { pathname } = new URL(req.url);
 *   if (pathname === "/healthz") return healthz(req);
 *   if (pathname === "/readyz") return readyz(req);
 *   return new Response("Not found", { status: 404 });
 * });
 * ```
 *
 * @module
 */
import type { ContentStore } from "../store/mod.ts";
import type { MediaStorage } from "../media/mod.ts";

/** A readiness check: resolves when healthy, rejects (or hangs) when not. */
export type HealthCheck = () => Promise<unknown>;

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * `GET`/`HEAD` → 200 `ok`; other methods 405. Touches no storage, so it
 * fails only when the process cannot answer at all.
 *
 * @example
 * ```ts
 * import { createLivenessHandler } from "./checks.ts";
 * const res = await createLivenessHandler()(new Request("http://x/healthz"));
 * res.status; // 200
 * ```
 */
export function createLivenessHandler(): (req: Request) => Promise<Response> {
  return (req) =>
    Promise.resolve(
      methodAllowed(req) ?? plain(200, req.method === "HEAD" ? null : "ok"),
    );
}

/** Options of {@linkcode createReadinessHandler}. */
export interface ReadinessOptions {
  /** Named checks, e.g. `{ content: contentStoreCheck(store) }`. */
  checks: Record<string, HealthCheck>;
  /** How long each check may take, in ms. Default 2,000. */
  timeoutMs?: number;
  /**
   * Aborted while the server shuts down (e.g. `serveGracefully(...).draining`):
   * then the answer is 503 without running the checks.
   */
  draining?: AbortSignal;
}

/**
 * `GET`/`HEAD` → runs every check at once, each within `timeoutMs`. All
 * passed: 200 `{"status":"ready","checks":{"content":"ok",…}}`. Any failed
 * or timed out, or shutting down: 503 with `Retry-After`, the failing check
 * saying `error` or `timeout` (never the error's text, which may name
 * hosts or credentials).
 *
 * @example
 * ```ts
 * import { createReadinessHandler } from "./checks.ts";
 * const readyz = createReadinessHandler({
 *   checks: { slow: () => new Promise(() => {}) },
 *   timeoutMs: 50,
 * });
 * (await readyz(new Request("http://x/readyz"))).status; // 503
 * ```
 */
export function createReadinessHandler(
  options: ReadinessOptions,
): (req: Request) => Promise<Response> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const names = Object.keys(options.checks);
  return async (req) => {
    const refused = methodAllowed(req);
    if (refused) return refused;
    if (options.draining?.aborted) {
      return answer(req, 503, { status: "shutting down", checks: {} });
    }
    const results = await Promise.all(
      names.map((name) => within(options.checks[name], timeoutMs)),
    );
    const checks = Object.fromEntries(names.map((n, i) => [n, results[i]]));
    const ready = results.every((r) => r === "ok");
    return answer(req, ready ? 200 : 503, {
      status: ready ? "ready" : "unavailable",
      checks,
    });
  };
}

/**
 * A check of a content store: reads a record that does not exist. Works with
 * any {@linkcode ContentStore} (memory, Deno KV, PostgreSQL, your own).
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "@inplace/cms";
 * import { contentStoreCheck } from "./checks.ts";
 * await contentStoreCheck(new MemoryContentStore())();
 * ```
 */
export function contentStoreCheck(store: ContentStore): HealthCheck {
  return () => store.get("_cms", "_readyz");
}

/**
 * A check of a media storage: its {@linkcode MediaStorage.check} (local: the
 * folder exists; S3: `HEAD` of the bucket). A storage without `check` passes.
 *
 * @example
 * ```ts
 * import { MemoryMediaStorage } from "@inplace/cms";
 * import { mediaStorageCheck } from "./checks.ts";
 * await mediaStorageCheck(new MemoryMediaStorage())();
 * ```
 */
export function mediaStorageCheck(storage: MediaStorage): HealthCheck {
  return () => storage.check?.() ?? Promise.resolve();
}

/** `"ok"`, `"error"` or `"timeout"`: what one check did within `ms`. */
async function within(check: HealthCheck, ms: number): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(check).then(() => "ok", () => "error"),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve("timeout"), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function methodAllowed(req: Request): Response | undefined {
  if (req.method === "GET" || req.method === "HEAD") return undefined;
  return new Response("Method not allowed", {
    status: 405,
    headers: { Allow: "GET, HEAD", "Content-Type": "text/plain" },
  });
}

function plain(status: number, body: string | null): Response {
  return new Response(body, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", ...NO_STORE },
  });
}

function answer(req: Request, status: number, body: unknown): Response {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    ...NO_STORE,
  };
  if (status === 503) headers["Retry-After"] = "5";
  return new Response(req.method === "HEAD" ? null : JSON.stringify(body), {
    status,
    headers,
  });
}
