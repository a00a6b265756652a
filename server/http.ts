/**
 * Small response helpers shared by the save and media endpoints. Errors are
 * plain text with a short reason; results are JSON.
 *
 * @module
 */

/** A plain-text response (`text/plain; charset=utf-8`) with a short reason. */
export function text(
  status: number,
  reason: string,
  headers?: HeadersInit,
): Response {
  const h = new Headers(headers);
  h.set("Content-Type", "text/plain; charset=utf-8");
  return new Response(reason, { status, headers: h });
}

/** A JSON response (`application/json`). */
export function json(
  status: number,
  body: unknown,
  headers?: HeadersInit,
): Response {
  return Response.json(body, { status, headers });
}
