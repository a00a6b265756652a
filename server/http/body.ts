/**
 * Bounded reading of request bodies, in size, time and memory:
 * - a declared `Content-Length` over the limit is refused before anything is
 *   read, and a body without one is counted while it streams and cancelled
 *   as soon as it passes the limit; never more than the limit is buffered;
 * - a body that sends nothing for {@linkcode BodyTimeouts.idleMs}, or is
 *   not complete within a total deadline scaled to its size, is cancelled
 *   with 408;
 * - all bodies in flight share one memory budget ({@linkcode setBodyBudget});
 *   a body that would pass it is refused with 503 and `Retry-After` before
 *   its buffer is allocated.
 *
 * @module
 */
import { afterRequest, annotateRequest, HttpError } from "./pipeline.ts";
import { isDraining } from "../ops/mod.ts";

/** First buffer of a body without a length; past it, one buffer of the limit. */
const FIRST_BUFFER = 256 * 1024;

/** Time limits of {@linkcode readBody}. */
export interface BodyTimeouts {
  /** Longest pause between two chunks, in ms. Default 10,000. */
  idleMs?: number;
  /**
   * Total deadline = `baseMs` + expected size / `minBytesPerSecond`. The
   * expected size is the `Content-Length`, or the limit without one.
   * Defaults: 10,000 ms and 64 KiB/s (a 10 MiB upload gets 170 s).
   */
  baseMs?: number;
  /** See `baseMs`. Default 65,536. */
  minBytesPerSecond?: number;
}

/** Default memory budget for bodies in flight: 128 MiB. */
export const DEFAULT_BODY_BUDGET = 128 * 1024 * 1024;

let budget = DEFAULT_BODY_BUDGET;
let reserved = 0;

/**
 * Sets the process-wide memory budget, in bytes, for request bodies in
 * flight (read and held until their request is answered). Returns the
 * previous budget.
 *
 * @example
 * ```ts
 * import { setBodyBudget } from "./body.ts";
 * setBodyBudget(256 * 1024 * 1024); // e.g. for a 1 GiB instance
 * ```
 */
export function setBodyBudget(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new RangeError("body budget must be a non-negative integer");
  }
  const previous = budget;
  budget = bytes;
  return previous;
}

/**
 * Bytes of the body budget reserved right now.
 *
 * @example
 * ```ts
 * import { bodyBytesInFlight } from "./body.ts";
 * bodyBytesInFlight(); // 0 when no body is being read or held
 * ```
 */
export function bodyBytesInFlight(): number {
  return reserved;
}

/**
 * Reserves `n` bytes of the budget until the current request is answered
 * (or until `readBody` returns, outside an endpoint). `false` when the
 * budget has no room.
 */
function reserve(n: number): boolean {
  if (n === 0) return true;
  if (reserved + n > budget) return false;
  reserved += n;
  afterRequest(() => reserved -= n);
  return true;
}

/**
 * Reads the whole body of `req`, up to `maxBytes`. Resolves to the bytes, or
 * throws an {@linkcode HttpError} that the endpoint pipeline answers:
 * - 413 when the body is larger than `maxBytes`;
 * - 408 when it stalls longer than `idleMs` or misses its total deadline;
 * - 503 with `Retry-After` when the memory budget for bodies in flight has
 *   no room for it, or when the server cut the body stream (shutdown past
 *   its deadline): the client may send it again;
 * - 400 when the client broke the body off (shorter than its length).
 *
 * A declared body goes into one buffer of exactly that size. A body without
 * a length (or longer than it said) goes into a 256 KiB buffer and, past
 * that, into one buffer of `maxBytes`: at most about 1× the limit is
 * allocated, never a chain of growing copies, whoever built the `Request`.
 *
 * @example
 * ```ts
 * import { readBody } from "./body.ts";
 * const req = new Request("http://x/", { method: "POST", body: "hello" });
 * const body = await readBody(req, 1024); // throws HttpError (413, 408, …)
 * body.byteLength; // 5
 * ```
 */
export async function readBody(
  req: Request,
  maxBytes: number,
  timeouts: BodyTimeouts = {},
): Promise<Uint8Array> {
  const declared = contentLength(req);
  if (declared !== undefined && declared > maxBytes) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge(maxBytes);
  }
  if (req.body === null) return new Uint8Array(0);
  const idleMs = timeouts.idleMs ?? 10_000;
  const deadlineMs = (timeouts.baseMs ?? 10_000) +
    1000 * (declared ?? maxBytes) / (timeouts.minBytesPerSecond ?? 65_536);
  const first = declared ?? Math.min(maxBytes, FIRST_BUFFER);
  if (!reserve(first)) {
    await req.body.cancel().catch(() => {});
    throw busy();
  }
  const reader = req.body.getReader();
  let buf = new Uint8Array(first);
  let n = 0;
  const clock = {
    idleMs,
    deadlineMs,
    deadline: performance.now() + deadlineMs,
  };
  try {
    for (;;) {
      const { done, value } = await nextChunk(reader, clock);
      if (done) break;
      const end = n + value.byteLength;
      if (end > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      if (end > buf.byteLength) {
        if (!reserve(maxBytes - buf.byteLength)) {
          await reader.cancel().catch(() => {});
          throw busy();
        }
        const grown = new Uint8Array(maxBytes);
        grown.set(buf.subarray(0, n));
        buf = grown;
      }
      buf.set(value, n);
      n = end;
    }
  } catch (err) {
    if (err instanceof HttpError) throw err; // ours: 408, 413, 503
    // While draining, the server cuts bodies still streaming (Deno's
    // server.shutdown() does): not the editor's fault, so retryable. Else
    // the client broke the body off (shorter than it said): a 400.
    if (isDraining()) {
      annotateRequest({ reason: "body_interrupted" });
      throw new HttpError(503, "Request body interrupted; send it again", {
        "Retry-After": "1",
      });
    }
    throw new HttpError(400, "Could not read request body");
  } finally {
    reader.releaseLock();
  }
  annotateRequest({ bytes: n });
  if (n === buf.byteLength) return buf;
  // Keep a mostly-full buffer as a view; copy out of a mostly-empty one.
  return n >= buf.byteLength / 2 ? buf.subarray(0, n) : buf.slice(0, n);
}

/** The time limits of one body being read (see {@linkcode BodyTimeouts}). */
interface BodyClock {
  /** Longest pause between two chunks, in ms. */
  idleMs: number;
  /** The total deadline's length, in ms (for the 408 text). */
  deadlineMs: number;
  /** When the total deadline passes (`performance.now()` time). */
  deadline: number;
}

/**
 * The next chunk of a body; 408 (the body cancelled) when it does not come
 * within the idle limit or before the total deadline.
 */
async function nextChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  clock: BodyClock,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  const { idleMs, deadlineMs } = clock;
  const wait = Math.min(idleMs, clock.deadline - performance.now());
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const result = await Promise.race([
      reader.read(),
      new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), Math.max(0, wait));
      }),
    ]);
    if (result !== "timeout") return result;
  } finally {
    clearTimeout(timer);
  }
  const reason = wait < idleMs
    ? `Body not complete within ${Math.round(deadlineMs / 1000)} s`
    : `Body stalled for ${Math.round(idleMs / 1000)} s`;
  await reader.cancel().catch(() => {});
  throw new HttpError(408, reason);
}

/** The declared `Content-Length`, or `undefined` when absent or invalid. */
function contentLength(req: Request): number | undefined {
  const raw = req.headers.get("Content-Length");
  if (raw === null || !/^\d{1,15}$/.test(raw)) return undefined;
  return Number(raw);
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `Body too large (limit ${maxBytes} bytes)`);
}

function busy(): HttpError {
  annotateRequest({ reason: "memory_budget" });
  return new HttpError(
    503,
    "Server busy with other uploads; try again shortly",
    { "Retry-After": "2" },
  );
}
