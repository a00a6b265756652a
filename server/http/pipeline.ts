/**
 * The one endpoint pipeline of the editor endpoints (save, media, history,
 * drafts, preview, events). Handlers are written with {@linkcode endpoint}
 * and throw {@linkcode HttpError} for every answer that is not a success;
 * {@linkcode errorResponse} is the one place that turns any error into a
 * plain-text answer. Results are JSON or empty. Every request through it
 * gets an id, a span, metrics and one log line (`report`).
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type Attributes, type Span, SpanStatusCode } from "@opentelemetry/api";
import { ERROR_CONTENT_TYPE, Status } from "../../core/protocol/mod.ts";
import {
  errorFacts,
  log,
  recordEndpoint,
  saveOutcome,
  traced,
} from "../ops/mod.ts";
import { randomHex } from "./_random.ts";

/**
 * An answer other than success: a status, a short plain-text reason, and
 * optional headers (e.g. `Allow`, `Retry-After`). Throw it from a handler.
 *
 * @example
 * ```ts
 * import { HttpError } from "./pipeline.ts";
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

/** Facts about a request for its log line and span: never a field's value. */
export interface RequestFacts {
  /** The field's collection. */
  collection?: string;
  /** The field address, e.g. `pages:home:title`. */
  field?: string;
  /** The editor's id (or name). */
  editor?: string;
  /** Body bytes read. */
  bytes?: number;
  /** Why the request was refused, e.g. `memory_budget` (else by status). */
  reason?: string;
}

/**
 * What a handler written with {@linkcode endpoint} gets besides the request:
 * the endpoint's name, this request's id, and a way to add facts to its log
 * line and span.
 */
export interface EndpointContext {
  /** The endpoint's name, e.g. `save` or `media`. */
  readonly name: string;
  /** This request's id (see {@linkcode requestIdOf}); absent outside a request. */
  readonly requestId?: string;
  /** Adds facts to this request's log line and span. */
  annotate?(facts: RequestFacts): void;
}

/** A Web-standard handler, with an optional per-call argument. */
export type Handler<Call = undefined> = (
  req: Request,
  call?: Call,
) => Promise<Response>;

/** The response header that carries the request id. */
export const REQUEST_ID_HEADER = "X-Request-Id";

/** One request in flight through {@linkcode endpoint}. */
interface RequestState {
  readonly facts: RequestFacts;
  readonly cleanups: (() => void)[];
}

const requests = new AsyncLocalStorage<RequestState>();

/**
 * Adds facts to the log line and span of the request being handled, if any
 * (for helpers such as `readBody` that are not handed the context).
 *
 * @example
 * ```ts
 * import { annotateRequest } from "./pipeline.ts";
 * annotateRequest({ bytes: 512 });
 * ```
 */
export function annotateRequest(facts: RequestFacts): void {
  const state = requests.getStore();
  if (state) Object.assign(state.facts, facts);
}

/**
 * Runs `cleanup` once the current request is answered (at once when there
 * is none), e.g. to give back a body's memory reservation.
 *
 * @example
 * ```ts
 * import { afterRequest } from "./pipeline.ts";
 * afterRequest(() => console.log("answered"));
 * ```
 */
export function afterRequest(cleanup: () => void): void {
  const state = requests.getStore();
  if (state) state.cleanups.push(cleanup);
  else cleanup();
}

/**
 * The id of a request: its `X-Request-Id` when that is 1 to 64 letters,
 * digits, `.`, `_` or `-`; else the trace id of a valid `traceparent`; else
 * 16 new random hex digits.
 *
 * @example
 * ```ts
 * import { requestIdOf } from "./pipeline.ts";
 * requestIdOf(new Request("http://x/", { headers: { "X-Request-Id": "abc-1" } })); // "abc-1"
 * ```
 */
export function requestIdOf(req: Request): string {
  const given = req.headers.get(REQUEST_ID_HEADER);
  if (given !== null && /^[\w.-]{1,64}$/.test(given)) return given;
  const parent = req.headers.get("traceparent");
  const trace = parent && /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/
    .exec(parent.trim())?.[1];
  if (trace && !/^0+$/.test(trace)) return trace;
  return randomHex(8);
}

/** Short names of refusal statuses, for logs and the refusals metric. */
const REASONS: Record<number, string> = {
  400: "bad_request",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  408: "timeout",
  413: "too_large",
  415: "unsupported_type",
  421: "unknown_host",
  422: "unprocessable",
  429: "throttled",
  503: "unavailable",
};

/**
 * Wraps a handler body into an endpoint: whatever it throws becomes the
 * answer of {@linkcode errorResponse}. Every request gets an id
 * ({@linkcode requestIdOf}, echoed in `X-Request-Id`), a span named
 * `cms.<name>`, its metrics, and one JSON log line (`server/ops/log.ts`).
 *
 * @example
 * ```ts
 * import { endpoint, HttpError } from "./pipeline.ts";
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
  return (req, call) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const state: RequestState = { facts: {}, cleanups: [] };
    const { facts } = state;
    const ctx: EndpointContext = {
      name,
      requestId,
      annotate: (more) => Object.assign(facts, more),
    };
    return requests.run(
      state,
      () =>
        traced(`cms.${name}`, undefined, async (span) => {
          let res: Response;
          let error: unknown;
          try {
            res = await handle(req, ctx, call);
          } catch (err) {
            error = err;
            res = errorResponse(err, ctx, true);
          } finally {
            for (const cleanup of state.cleanups.splice(0)) cleanup();
          }
          res = withHeader(res, REQUEST_ID_HEADER, requestId);
          report({ name, req, requestId, started, facts, error }, res, span);
          return res;
        }),
    );
  };
}

/** One answered request, as {@linkcode report} tells it. */
interface Answered {
  /** The endpoint's name. */
  name: string;
  /** The request. */
  req: Request;
  /** Its id. */
  requestId: string;
  /** When it arrived (`performance.now()` time). */
  started: number;
  /** What the handler and its helpers noted about it. */
  facts: RequestFacts;
  /** What the handler threw, if anything. */
  error: unknown;
}

/**
 * Tells what became of a request: its span's attributes and status, the
 * endpoint metrics, and its one JSON log line. A refusal (4xx but 409, or
 * 503) carries a reason: the one noted, else the status's short name.
 */
function report(
  { name, req, requestId, started, facts, error }: Answered,
  res: Response,
  span: Span,
): void {
  const { status } = res;
  const durationMs = performance.now() - started;
  const reason = status >= 400 && status !== 409 &&
      (status < 500 || status === 503)
    ? facts.reason ?? REASONS[status] ?? String(status)
    : undefined;
  // One object, one call: with OTEL_DENO each call crosses into
  // Rust, and spreads cost allocations on every request.
  const attributes: Attributes = {
    "cms.request_id": requestId,
    "http.response.status_code": status,
    "cms.outcome": name === "save" ? saveOutcome(status) : String(status),
  };
  if (facts.collection) attributes["cms.collection"] = facts.collection;
  if (facts.field) attributes["cms.field"] = facts.field;
  if (facts.bytes !== undefined) attributes["cms.body.size"] = facts.bytes;
  if (reason) attributes["cms.reason"] = reason;
  span.setAttributes(attributes);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  recordEndpoint({
    endpoint: name,
    status,
    durationMs,
    reason,
    collection: facts.collection,
    bytes: facts.bytes,
  });
  log({
    level: status >= 500 && status !== 503
      ? "error"
      : status >= 400
      ? "warn"
      : "info",
    msg: "request",
    requestId,
    route: name,
    method: req.method,
    field: facts.field,
    collection: facts.collection,
    status,
    durationMs: Math.round(durationMs * 100) / 100,
    editor: facts.editor,
    bytes: facts.bytes,
    reason,
    error: status >= 500 && error !== undefined ? errorFacts(error) : undefined,
  });
}

/**
 * The one place that turns an error into an answer:
 * - an {@linkcode HttpError}: its status, reason and headers;
 * - an error carrying a numeric 4xx `status` (e.g. a store's "record too
 *   large", 413): that status and its message;
 * - anything else: 500 with the request id in the body; the endpoint's log
 *   line carries the error under the same id.
 *
 * Outside {@linkcode endpoint} (no `requestId` in `ctx`), a new id is made
 * and the error is logged here.
 *
 * @example
 * ```ts
 * import { errorResponse } from "./pipeline.ts";
 * const res = errorResponse(new Error("disk on fire"), { name: "save" });
 * res.status; // 500, body "Internal error (id 3fa2c91d07b6e5a4)"
 * ```
 */
export function errorResponse(
  err: unknown,
  ctx: EndpointContext,
  logged = false,
): Response {
  if (err instanceof HttpError) {
    return text(err.status, err.message, err.headers);
  }
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return text(status, (err as Error).message || "Bad request");
  }
  const id = ctx.requestId ?? randomHex(8);
  if (!logged) {
    log({
      level: "error",
      msg: "request failed",
      requestId: id,
      route: ctx.name,
      status: 500,
      error: errorFacts(err),
    });
  }
  return text(Status.InternalServerError, `Internal error (id ${id})`, {
    [REQUEST_ID_HEADER]: id,
  });
}

/**
 * A plain-text answer (`text/plain; charset=utf-8`) with a short reason.
 *
 * @example
 * ```ts
 * import { text } from "./pipeline.ts";
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
 * import { json } from "./pipeline.ts";
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

/** `res` with one more header; copies a response whose headers are locked. */
function withHeader(res: Response, name: string, value: string): Response {
  try {
    res.headers.set(name, value);
    return res;
  } catch {
    const headers = new Headers(res.headers);
    headers.set(name, value);
    return new Response(res.body, {
      status: res.status,
      statusText: res.statusText,
      headers,
    });
  }
}
