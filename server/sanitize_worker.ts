/**
 * The sanitizer worker: loads the pipeline of `server/sanitize_dom.ts` once
 * and answers one message per value. Started by `server/sanitize.ts`, which
 * terminates it when a value runs past the deadline.
 *
 * Messages in: `{ id, html, options, limits }`; out: `{ ready: true }` once
 * loaded, then `{ id, html, removed }` or `{ id, error: { status, message } }`.
 *
 * @module
 */

import { parentPort } from "node:worker_threads";
import { createDomSanitizer, type HtmlLimits } from "./sanitize_dom.ts";
import type { SanitizerOptions } from "../core/sanitizer.ts";

/** A request to the worker. */
export interface WorkerRequest {
  /** Matches the answer to the request. */
  id: number;
  /** The dirty HTML. */
  html: string;
  /** Policy options (the media base). */
  options: SanitizerOptions;
  /** The limits to enforce. */
  limits: HtmlLimits;
}

/** An answer from the worker. */
export type WorkerAnswer =
  | { ready: true }
  | { id: number; html: string; removed: number }
  | { id: number; error: { status?: number; message: string } };

if (parentPort) {
  const port = parentPort;
  const sanitize = await createDomSanitizer();
  port.on("message", (req: WorkerRequest) => {
    let answer: WorkerAnswer;
    try {
      const result = sanitize(req.html, req.options, req.limits);
      answer = { id: req.id, html: result.html, removed: result.removed };
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      answer = {
        id: req.id,
        error: {
          status: typeof status === "number" ? status : undefined,
          message: error instanceof Error ? error.message : String(error),
        },
      };
    }
    port.postMessage(answer);
  });
  port.postMessage({ ready: true } satisfies WorkerAnswer);
}
