/**
 * Bounded reading of request bodies: a declared `Content-Length` over the
 * limit is refused before anything is read, and a body without one is
 * counted while it streams and cancelled as soon as it passes the limit.
 * Never more than the limit is buffered.
 *
 * @module
 */
import { text } from "./http.ts";

/** First buffer of a body without a length; past it, one buffer of the limit. */
const FIRST_BUFFER = 256 * 1024;

/**
 * Reads the whole body of `req`, up to `maxBytes`. Resolves to the bytes, or
 * to a ready error response: 413 when the body is larger than `maxBytes`,
 * 400 when the body stream fails (for example the client went away).
 *
 * A declared body goes into one buffer of exactly that size. A body without
 * a length (or longer than it said) goes into a 256 KiB buffer and, past
 * that, into one buffer of `maxBytes`: at most about 1× the limit is
 * allocated, never a chain of growing copies, whoever built the `Request`.
 */
export async function readBody(
  req: Request,
  maxBytes: number,
): Promise<Uint8Array | Response> {
  const declared = contentLength(req);
  if (declared !== undefined && declared > maxBytes) {
    await req.body?.cancel().catch(() => {});
    return tooLarge(maxBytes);
  }
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  let buf = new Uint8Array(declared ?? Math.min(maxBytes, FIRST_BUFFER));
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const end = n + value.byteLength;
      if (end > maxBytes) {
        await reader.cancel().catch(() => {});
        return tooLarge(maxBytes);
      }
      if (end > buf.byteLength) {
        const grown = new Uint8Array(maxBytes);
        grown.set(buf.subarray(0, n));
        buf = grown;
      }
      buf.set(value, n);
      n = end;
    }
  } catch {
    return text(400, "Could not read request body");
  } finally {
    reader.releaseLock();
  }
  if (n === buf.byteLength) return buf;
  // Keep a mostly-full buffer as a view; copy out of a mostly-empty one.
  return n >= buf.byteLength / 2 ? buf.subarray(0, n) : buf.slice(0, n);
}

/** The declared `Content-Length`, or `undefined` when absent or invalid. */
function contentLength(req: Request): number | undefined {
  const raw = req.headers.get("Content-Length");
  if (raw === null || !/^\d{1,15}$/.test(raw)) return undefined;
  return Number(raw);
}

function tooLarge(maxBytes: number): Response {
  return text(413, `Body too large (limit ${maxBytes} bytes)`);
}
