/**
 * One small, replaceable logger with a fixed set of facts about a request.
 * Field values, request bodies and passwords have no place in a
 * {@linkcode LogRecord}, so they cannot reach a log.
 *
 * Silent by default: a library writes nothing for the requests it answers
 * well (2xx) or refuses (4xx). A failure (5xx) writes one line with its
 * request id to stderr. `setLogger("json")` turns on one JSON line per
 * request; any function can take the lines instead.
 *
 * @example
 * ```ts
 * import { log, setLogger } from "./log.ts";
 * // Send the lines somewhere else (here: keep them in memory).
 * const lines: unknown[] = [];
 * const previous = setLogger((record) => lines.push(record));
 * log({ level: "info", msg: "hello" });
 * setLogger(previous);
 * ```
 *
 * @module
 */

/** How bad a log line is. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * What a log line may say. Only names, ids, numbers and short messages:
 * never a field's value, a body or a credential.
 */
export interface LogRecord {
  /** How bad it is. */
  level: LogLevel;
  /** A short fixed message, e.g. `request` or `shutdown started`. */
  msg: string;
  /** The request id (see {@linkcode requestIdOf} in `server/http/pipeline.ts`). */
  requestId?: string;
  /** The endpoint or route, e.g. `save`, `media`, `/readyz`. */
  route?: string;
  /** HTTP method. */
  method?: string;
  /** The field address, e.g. `pages:home:title` (never its value). */
  field?: string;
  /** The field's collection. */
  collection?: string;
  /** Answer status. */
  status?: number;
  /** Milliseconds from the request's start to its answer. */
  durationMs?: number;
  /** The editor's id (or name) from the session. */
  editor?: string;
  /** Body bytes read. */
  bytes?: number;
  /** Why a request was refused (4xx/503), e.g. `too_large`. */
  reason?: string;
  /** An error's name, message and stack (5xx only). */
  error?: { name: string; message: string; stack?: string };
}

/** A log line as written: a {@linkcode LogRecord} with its ISO time. */
export type LogLine = LogRecord & { time: string };

/** Where log lines go. Replace it with {@linkcode setLogger}. */
export type Logger = (line: LogLine) => void;

const encoder = new TextEncoder();

/**
 * The JSON logger (`setLogger("json")`): one JSON line per record.
 * - `info` and `debug` lines go straight to stdout;
 * - `warn` and `error` lines go through `console.warn` / `console.error`
 *   (stderr), so that with `OTEL_DENO=true` Deno also exports them as
 *   OpenTelemetry logs, tied to the request's trace.
 *
 * An `info` line is not exported as an OpenTelemetry log because the
 * request's span carries the same facts; exporting both doubled the
 * telemetry's cost per request (see `bench/telemetry.ts`). Read the lines
 * from stdout, or replace the logger with {@linkcode setLogger}.
 *
 * @example
 * ```ts
 * import { jsonLines } from "./log.ts";
 * jsonLines({ level: "info", msg: "ready", time: new Date().toISOString() });
 * // {"level":"info","msg":"ready","time":"2025-…"}
 * ```
 */
export const jsonLines: Logger = (line) => {
  const text = JSON.stringify(line);
  if (line.level === "error") console.error(text);
  else if (line.level === "warn") console.warn(text);
  else {
    let bytes = encoder.encode(text + "\n");
    // A pipe may take a long line in parts; each write takes at least a byte.
    for (let tries = bytes.length; bytes.length > 0 && tries > 0; tries--) {
      bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
    }
  }
};

/**
 * The default logger: silent but for errors (a 5xx, a failed shutdown),
 * each one line on stderr with its request id, e.g.
 * `cms: request failed 500 save id=3fa2c91d07b6e5a4 Error: disk full`.
 *
 * @example
 * ```ts
 * import { errorsOnly } from "./log.ts";
 * errorsOnly({ level: "info", msg: "request", time: "t" }); // writes nothing
 * ```
 */
export const errorsOnly: Logger = (line) => {
  if (line.level !== "error") return;
  const parts = ["cms:", line.msg === "request" ? "request failed" : line.msg];
  if (line.status !== undefined) parts.push(String(line.status));
  if (line.route) parts.push(line.route);
  if (line.requestId) parts.push(`id=${line.requestId}`);
  if (line.error) parts.push(`${line.error.name}: ${line.error.message}`);
  console.error(parts.join(" ").replace(/[\r\n]+/g, " "));
};

let current: Logger = errorsOnly;

/**
 * Replaces the logger for the whole process; returns the previous one (to
 * restore it).
 *
 * - `"json"`: one JSON line per request and event (info to stdout, warnings
 *   and errors to stderr), for a log collector;
 * - `"errors"` (the default): only failures, one line each on stderr;
 * - a function: takes every {@linkcode LogLine}; `() => {}` silences all.
 *
 * @example Turn on JSON request logs
 * ```ts
 * import { setLogger } from "./log.ts";
 * setLogger("json");
 * ```
 *
 * @example Only warnings and errors, as JSON lines on stderr
 * ```ts
 * import { setLogger } from "./log.ts";
 * setLogger((line) => {
 *   if (line.level === "warn" || line.level === "error") {
 *     console.error(JSON.stringify(line));
 *   }
 * });
 * ```
 */
export function setLogger(logger: Logger | "json" | "errors"): Logger {
  const previous = current;
  current = logger === "json"
    ? jsonLines
    : logger === "errors"
    ? errorsOnly
    : logger;
  return previous;
}

/**
 * Writes one record through the current logger, stamped with the time. A
 * logger that throws never breaks the request that logs.
 *
 * @example
 * ```ts
 * import { log } from "./log.ts";
 * log({ level: "warn", msg: "shutdown started", route: "serve" });
 * ```
 */
export function log(record: LogRecord): void {
  try {
    current({ ...record, time: new Date().toISOString() });
  } catch {
    // A broken logger must not turn a request into a 500.
  }
}

/**
 * An error as a log may hold it: name, message and stack.
 *
 * @example
 * ```ts
 * import { errorFacts } from "./log.ts";
 * errorFacts(new Error("disk full")).message; // "disk full"
 * ```
 */
export function errorFacts(
  err: unknown,
): { name: string; message: string; stack?: string } {
  if (err instanceof Error) {
    return { name: err.name, message: err.message, stack: err.stack };
  }
  return { name: typeof err, message: String(err) };
}
