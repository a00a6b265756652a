/**
 * The Server-Sent Events wire format of the editor event stream: one
 * `event:` frame (with an optional `id:`), and the encoder every stream
 * writes its bytes with.
 *
 * @module
 */

/** Encodes every frame and comment line a stream sends. */
export const encoder: TextEncoder = new TextEncoder();

/**
 * One event in the stream's wire format: `id:` (when given), `event:`, and
 * the data as one JSON line, ended by a blank line.
 *
 * @example
 * ```ts
 * import { frame } from "./_frame.ts";
 * frame("hello", { stream: "ab" }); // 'event: hello\ndata: {"stream":"ab"}\n\n'
 * ```
 */
export function frame(name: string, data: unknown, id?: string): string {
  return `${id ? `id: ${id}\n` : ""}event: ${name}\ndata: ${
    JSON.stringify(data)
  }\n\n`;
}
