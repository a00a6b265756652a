/**
 * The sanitizer worker: loads the pipeline of `server/sanitize/dom.ts` once
 * and answers one message per value. Started by `server/sanitize/pool.ts`, which
 * terminates it when a value runs past the deadline.
 *
 * Messages in: `{ id, html, options, limits }`; out: `{ ready: true }` once
 * loaded, then `{ id, html, removed }` or `{ id, error: { status, message } }`.
 *
 * @module
 */

import { parentPort } from "node:worker_threads";
import { createDomSanitizer, type HtmlLimits } from "./dom.ts";
import type { SanitizerOptions } from "../../core/sanitizer.ts";

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

/** A small rich value that touches the policy's paths (kept, unwrapped, dropped). */
const WARM_UP =
  '<h2 class="x">Title</h2><p>Some <b>bold</b>, <em>em</em> and ' +
  '<a href="https://example.com/a" target="_blank">a link</a>.</p><div><span>' +
  'Unwrapped</span></div><ul><li>One</li><li>Two</li></ul><img src="/media/a.png" ' +
  'srcset="/media/a-480w.webp 480w" sizes="100vw" width="640" height="480" ' +
  'alt="A"><script>x()</script><pre>\ncode</pre>';

if (parentPort) {
  const port = parentPort;
  const sanitize = await createDomSanitizer();
  // Warm up before reporting ready: the first values through jsdom and
  // DOMPurify are several times slower than the rest.
  for (let i = 0; i < 20; i++) sanitize(WARM_UP, { mediaBase: "/media/" });
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
