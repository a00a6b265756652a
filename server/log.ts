/**
 * One small, replaceable logger: JSON lines with a fixed set of facts about
 * a request. Field values, request bodies and passwords have no place in a
 * {@linkcode LogRecord}, so they cannot reach a log.
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
  /** The request id (see {@linkcode requestIdOf} in `server/http.ts`). */
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
 * The default logger: one JSON line per record.
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

let current: Logger = jsonLines;

/**
 * Replaces the logger for the whole process; returns the previous one (to
 * restore it). Pass `() => {}` to silence the module.
 *
 * @example
 * ```ts
 * import { setLogger } from "./log.ts";
 * // e.g. only warnings and errors, as JSON lines on stderr:
 * setLogger((line) => {
 *   if (line.level === "warn" || line.level === "error") {
 *     console.error(JSON.stringify(line));
 *   }
 * });
 * ```
 */
export function setLogger(logger: Logger): Logger {
  const previous = current;
  current = logger;
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
