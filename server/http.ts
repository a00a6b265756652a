/**
 * The one endpoint pipeline of the save and media endpoints. Handlers are
 * written with {@linkcode endpoint} and throw {@linkcode HttpError} for every
 * answer that is not a success; {@linkcode errorResponse} is the one place
 * that turns any error into a plain-text answer. Results are JSON or empty.
 *
 * @module
 */
import { ERROR_CONTENT_TYPE, Status } from "../core/wire.ts";

/**
 * An answer other than success: a status, a short plain-text reason, and
 * optional headers (e.g. `Allow`, `Retry-After`). Throw it from a handler.
 *
 * @example
 * ```ts
 * import { HttpError } from "./http.ts";
 * throw new HttpError(405, "Method not allowed", { Allow: "POST" });
 * ```
 */
export class HttpError extends Error {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** Extra headers of the answer. */
  readonly headers?: HeadersInit;

  /** An error answered with `status` and `message` as its plain-text body. */
  constructor(status: number, message: string, headers?: HeadersInit) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.headers = headers;
  }
}

/**
 * What a handler written with {@linkcode endpoint} gets besides the request.
 * The seam for request-scoped facilities (request ids, loggers, spans).
 */
export interface EndpointContext {
  /** The endpoint's name, e.g. `save` or `media`. */
  readonly name: string;
}

/** A Web-standard handler, with an optional per-call argument. */
export type Handler<Call = undefined> = (
  req: Request,
  call?: Call,
) => Promise<Response>;

/**
 * Wraps a handler body into an endpoint: whatever it throws becomes the
 * answer of {@linkcode errorResponse}.
 *
 * @example
 * ```ts
 * import { endpoint, HttpError } from "./http.ts";
 * const hello = endpoint("hello", (req) => {
 *   if (req.method !== "GET") throw new HttpError(405, "Method not allowed");
 *   return Promise.resolve(new Response("hi"));
 * });
 * await hello(new Request("http://localhost/", { method: "PUT" })); // 405
 * ```
 */
export function endpoint<Call = undefined>(
  name: string,
  handle: (
    req: Request,
    ctx: EndpointContext,
    call: Call | undefined,
  ) => Promise<Response>,
): Handler<Call> {
  const ctx: EndpointContext = Object.freeze({ name });
  return async (req, call) => {
    try {
      return await handle(req, ctx, call);
    } catch (err) {
      return errorResponse(err, ctx);
    }
  };
}

/**
 * The one place that turns an error into an answer:
 * - an {@linkcode HttpError}: its status, reason and headers;
 * - an error carrying a numeric 4xx `status` (e.g. a store's "record too
 *   large", 413): that status and its message;
 * - anything else: 500 with a short error id in the body, logged with the
 *   error under the same id.
 *
 * @example
 * ```ts
 * import { errorResponse } from "./http.ts";
 * const res = errorResponse(new Error("disk on fire"), { name: "save" });
 * res.status; // 500, body "Internal error (id 3fa2c91d)"
 * ```
 */
export function errorResponse(err: unknown, ctx: EndpointContext): Response {
  if (err instanceof HttpError) {
    return text(err.status, err.message, err.headers);
  }
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return text(status, (err as Error).message || "Bad request");
  }
  const id = errorId();
  console.error(`cms: ${ctx.name} failed [${id}]`, err);
  return text(Status.InternalServerError, `Internal error (id ${id})`);
}

/**
 * A plain-text answer (`text/plain; charset=utf-8`) with a short reason.
 *
 * @example
 * ```ts
 * import { text } from "./http.ts";
 * text(403, "Not authorized");
 * ```
 */
export function text(
  status: number,
  reason: string,
  headers?: HeadersInit,
): Response {
  const h = new Headers(headers);
  h.set("Content-Type", ERROR_CONTENT_TYPE);
  return new Response(reason, { status, headers: h });
}

/**
 * A JSON answer (`application/json`).
 *
 * @example
 * ```ts
 * import { json } from "./http.ts";
 * json(200, { ok: true });
 * ```
 */
export function json(
  status: number,
  body: unknown,
  headers?: HeadersInit,
): Response {
  return Response.json(body, { status, headers });
}

/** 8 hex characters, to match a 500 answer with its log line. */
function errorId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
