/**
 * OpenTelemetry, the Deno way: the module speaks only `npm:@opentelemetry/api`
 * and ships no SDK. Run the host with `OTEL_DENO=true` and Deno's built-in
 * exporter sends these spans and metrics over OTLP; without it every call
 * here is a no-op of the API.
 *
 * Spans: `cms.save`, `cms.media`, `cms.history` (one per request, from the
 * endpoint pipeline in `server/http/pipeline.ts`) and `cms.sanitize` (a child of the
 * save). Attributes: `cms.collection`, `cms.field`, `cms.outcome`,
 * `cms.body.size`, `cms.request_id`, `http.response.status_code`.
 *
 * Metrics:
 * - `cms.saves` (counter): saves by `outcome`: `204`, `4xx`, `409`, `5xx`.
 * - `cms.conflicts` (counter): 409 answers, by `collection`.
 * - `cms.refusals` (counter): 4xx and 503 answers by `endpoint` and `reason`.
 * - `cms.sanitize.duration` (histogram, ms).
 * - `cms.upload.size` (histogram, bytes): bodies read by the media endpoint.
 * - `cms.request.duration` (histogram, ms): by `endpoint` and `status`.
 *
 * Ended spans go to Deno's exporter in small batches ({@linkcode flushSpans}):
 * each hand-off wakes the exporter's thread, which costs the request 13 to
 * 17 µs when spans trickle in one at a time, and about 2 µs in a burst
 * (Deno 2.9, measured on 2 cores). A span keeps the times it really had.
 *
 * @example
 * ```ts
 * import { traced } from "./telemetry.ts";
 * // A child span of whatever span is active.
 * const n = await traced("cms.example", { "cms.body.size": 3 }, () =>
 *   Promise.resolve(3)
 * );
 * ```
 *
 * @module
 */
import {
  type Attributes,
  metrics,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

const SCOPE = "@inplace/cms";

const tracer = trace.getTracer(SCOPE);
const meter = metrics.getMeter(SCOPE);

const saves = meter.createCounter("cms.saves", {
  description: "Saves by outcome: 204, 4xx, 409 or 5xx",
});
const conflicts = meter.createCounter("cms.conflicts", {
  description: "Saves refused with 409 because the field changed meanwhile",
});
const refusals = meter.createCounter("cms.refusals", {
  description: "Requests refused (4xx, 503) by endpoint and reason",
});
const sanitizeDuration = meter.createHistogram("cms.sanitize.duration", {
  description: "Time to sanitize one rich value",
  unit: "ms",
});
const uploadSize = meter.createHistogram("cms.upload.size", {
  description: "Bytes of upload bodies read by the media endpoint",
  unit: "By",
});
const requestDuration = meter.createHistogram("cms.request.duration", {
  description: "Time from request to answer, per endpoint",
  unit: "ms",
});

/**
 * Runs `run` inside a new active span named `name` (with `attributes`
 * known at its start, if any); ends it when `run` settles, marking it as an
 * error when `run` throws.
 *
 * @example
 * ```ts
 * import { traced } from "./telemetry.ts";
 * await traced("cms.example", {}, (span) => {
 *   span.setAttribute("cms.outcome", "ok");
 *   return Promise.resolve();
 * });
 * ```
 */
export function traced<T>(
  name: string,
  attributes: Attributes | undefined,
  run: (span: Span) => Promise<T>,
): Promise<T> {
  const startTime = Date.now();
  const started = performance.now();
  return tracer.startActiveSpan(
    name,
    { attributes, startTime },
    async (span) => {
      try {
        return await run(span);
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        endSpan(span, startTime + performance.now() - started);
      }
    },
  );
}

/** Spans that ended and wait to go to the exporter, with their end times. */
const ended: { span: Span; endTime: number }[] = [];
/** Most spans held before they go out together. */
const BATCH = 64;
/** Longest a span is held, in ms. */
const HOLD_MS = 25;
let flushTimer: ReturnType<typeof setTimeout> | undefined;

/** Ends `span` at `endTime` (ms since the epoch), with the next batch. */
function endSpan(span: Span, endTime: number): void {
  if (!span.isRecording()) return span.end(endTime); // telemetry off
  ended.push({ span, endTime });
  if (ended.length >= BATCH) return flushSpans();
  if (flushTimer === undefined) {
    flushTimer = setTimeout(flushSpans, HOLD_MS);
    Deno.unrefTimer(flushTimer);
  }
}

/**
 * Hands every span that has ended to Deno's exporter now. It runs by itself
 * every 25 ms (or at 64 spans) and on `unload` (which `Deno.exit` fires
 * too); an exit that skips `unload`, such as a crash, may lose the spans of
 * its last 25 ms.
 *
 * @example
 * ```ts
 * import { flushSpans } from "./telemetry.ts";
 * flushSpans();
 * ```
 */
export function flushSpans(): void {
  clearTimeout(flushTimer);
  flushTimer = undefined;
  for (const { span, endTime } of ended.splice(0)) span.end(endTime);
}

globalThis.addEventListener("unload", flushSpans);

/**
 * Sanitizing one rich value: a `cms.sanitize` span with the input's size
 * and outcome, and its duration in `cms.sanitize.duration`.
 *
 * @example
 * ```ts
 * import { traceSanitize } from "./telemetry.ts";
 * const html = await traceSanitize(5, () => Promise.resolve("<p>x</p>"));
 * ```
 */
export function traceSanitize<T>(
  bytes: number,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  return traced("cms.sanitize", { "cms.body.size": bytes }, async (span) => {
    let outcome = "error";
    try {
      const result = await run();
      outcome = "ok";
      return result;
    } catch (err) {
      const status = (err as { status?: unknown } | null)?.status;
      if (typeof status === "number") outcome = String(status);
      throw err;
    } finally {
      span.setAttribute("cms.outcome", outcome);
      sanitizeDuration.record(performance.now() - started, { outcome });
    }
  });
}

/** What the endpoint pipeline knows once a request is answered. */
export interface EndpointOutcome {
  /** The endpoint: `save`, `media`, `history`. */
  endpoint: string;
  /** The answer's status. */
  status: number;
  /** Milliseconds from request to answer. */
  durationMs: number;
  /** Why it was refused, for 4xx and 503. */
  reason?: string;
  /** The field's collection, when known. */
  collection?: string;
  /** Body bytes read. */
  bytes?: number;
}

/**
 * The outcome label of a save: `204`, `409`, `4xx` or `5xx` (other 2xx
 * count as `204`).
 *
 * @example
 * ```ts
 * import { saveOutcome } from "./telemetry.ts";
 * saveOutcome(413); // "4xx"
 * ```
 */
export function saveOutcome(status: number): string {
  if (status < 400) return "204";
  if (status === 409) return "409";
  return status < 500 ? "4xx" : "5xx";
}

/**
 * Records the metrics of one answered request (called once per request by
 * the endpoint pipeline).
 *
 * @example
 * ```ts
 * import { recordEndpoint } from "./telemetry.ts";
 * recordEndpoint({ endpoint: "save", status: 204, durationMs: 3.2 });
 * ```
 */
export function recordEndpoint(outcome: EndpointOutcome): void {
  const { endpoint, status } = outcome;
  requestDuration.record(outcome.durationMs, { endpoint, status });
  if (endpoint === "save") saves.add(1, { outcome: saveOutcome(status) });
  if (status === 409) {
    conflicts.add(1, { endpoint, collection: outcome.collection ?? "" });
  } else if (outcome.reason) {
    refusals.add(1, { endpoint, reason: outcome.reason });
  }
  if (endpoint === "media" && outcome.bytes !== undefined) {
    uploadSize.record(outcome.bytes, { status });
  }
}
