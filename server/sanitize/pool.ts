/**
 * Server-side sanitizing of rich field values with the shared policy from
 * `core/sanitizer.ts`, run by DOMPurify on jsdom, off the main thread.
 *
 * Values go to a small pool of persistent workers
 * (`server/sanitize/_worker.ts`, started on the first call; they do not keep
 * the process alive). Each worker parses a value once, enforces the
 * {@linkcode HtmlLimits} while it parses, and sanitizes in time linear in
 * the value's size. A value still running at the deadline is answered
 * `400 rich HTML too complex` and its worker is terminated and replaced, so
 * one pathological value never stalls other requests.
 *
 * @example
 * ```ts
 * import { sanitizeHtml } from "./pool.ts";
 *
 * const clean = await sanitizeHtml('<p onclick="x()">Hi<script>x()</script></p>');
 * // clean === "<p>Hi</p>"
 * ```
 *
 * @module
 */

import { Worker } from "node:worker_threads";
import { HttpError } from "../http/mod.ts";
import { traceSanitize } from "../ops/mod.ts";
import type { SanitizeResult, SanitizerOptions } from "../../core/sanitizer.ts";
import { HTML_LIMITS, type HtmlLimits } from "./dom.ts";
import type { WorkerAnswer, WorkerRequest } from "./_worker.ts";

export { HTML_LIMITS, type HtmlLimits };
export type { SanitizeResult, SanitizerOptions };

/** Options of {@linkcode sanitizeHtml} and {@linkcode sanitizeRich}. */
export interface SanitizeOptions extends SanitizerOptions {
  /** Limits to enforce; missing ones take {@linkcode HTML_LIMITS}. */
  readonly limits?: Partial<HtmlLimits>;
  /**
   * Milliseconds a value may take in its worker before it is refused with
   * 400 (default {@linkcode SANITIZE_DEADLINE_MS}).
   */
  readonly deadlineMs?: number;
}

/** Default deadline for one value, in milliseconds. */
export const SANITIZE_DEADLINE_MS = 2_000;

interface Job {
  id: number;
  request: WorkerRequest;
  deadlineMs: number;
  resolve(result: SanitizeResult): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: ReturnType<typeof setTimeout>;
}

const POOL_SIZE = Math.max(
  1,
  Math.min(2, globalThis.navigator?.hardwareConcurrency ?? 1),
);
const slots: Slot[] = [];
const queue: Job[] = [];
let nextId = 1;

function spawn(): Slot {
  const worker = new Worker(new URL("./_worker.ts", import.meta.url));
  const slot: Slot = { worker, ready: false };
  worker.on("message", (answer: WorkerAnswer) => {
    if ("ready" in answer) {
      slot.ready = true;
    } else {
      const job = slot.job;
      clearTimeout(slot.timer);
      slot.job = undefined;
      if (job && job.id === answer.id) {
        if ("error" in answer) {
          const { status, message } = answer.error;
          job.reject(
            status !== undefined && status >= 400 && status < 500
              ? new HttpError(status, message)
              : new Error(`sanitizer: ${message}`),
          );
        } else job.resolve({ html: answer.html, removed: answer.removed });
      }
    }
    pump();
  });
  worker.on("error", (error: unknown) => retire(slot, error));
  worker.on("exit", () => retire(slot, new Error("sanitizer worker exited")));
  slots.push(slot);
  return slot;
}

/** Drops a slot; a job it held fails with `error` (a server fault). */
function retire(slot: Slot, error: unknown): void {
  const index = slots.indexOf(slot);
  if (index === -1) return;
  slots.splice(index, 1);
  clearTimeout(slot.timer);
  const job = slot.job;
  slot.job = undefined;
  job?.reject(error);
  // A worker that died while loading would die again: fail what waits.
  if (!slot.ready) {
    for (const waiting of queue.splice(0)) waiting.reject(error);
  }
  pump();
}

/** Starts queued jobs on idle ready workers, spawning up to the pool size. */
function pump(): void {
  for (const slot of slots) {
    if (queue.length === 0) break;
    if (slot.ready && !slot.job) start(slot, queue.shift()!);
  }
  // Start a worker for waiting jobs, but not more than are waiting.
  const starting = slots.filter((s) => !s.ready).length;
  if (queue.length > starting && slots.length < POOL_SIZE) spawn();
  for (const slot of slots) {
    if (slot.job || (!slot.ready && queue.length > 0)) slot.worker.ref();
    else slot.worker.unref();
  }
}

function start(slot: Slot, job: Job): void {
  slot.job = job;
  slot.timer = setTimeout(() => {
    // Past the deadline: the worker may be stuck for minutes. Replace it.
    retire(
      slot,
      new HttpError(
        400,
        `rich HTML too complex: not sanitized within ${job.deadlineMs} ms`,
      ),
    );
    void slot.worker.terminate();
  }, job.deadlineMs);
  slot.worker.postMessage(job.request);
}

/**
 * Starts the sanitizer's workers in the background, so the first rich save
 * does not wait for jsdom to load and warm up (each worker sanitizes a
 * sample before it reports ready). Idle workers never keep the process
 * alive. The save endpoint calls it when it is created with a rich field.
 *
 * @example
 * ```ts
 * import { warmSanitizer } from "./pool.ts";
 * warmSanitizer(); // returns at once
 * ```
 */
export function warmSanitizer(): void {
  if (warming || slots.length > 0) return;
  // One small value per worker: loads them, and runs the round trip once.
  warming = Promise.all(
    Array.from(
      { length: POOL_SIZE },
      () => enqueue("<p>warm <b>up</b></p>", {}).catch(() => {}),
    ),
  ).then(() => {});
}

let warming: Promise<void> | undefined;

/**
 * Sanitizes rich HTML with the shared policy and counts what it removed.
 * The first call starts a worker, which loads jsdom and DOMPurify (about
 * half a second).
 *
 * Rejects with `TypeError` for a non-string, and with an `HttpError` (413
 * or 400, `rich HTML too complex: …`) past the limits or the deadline.
 *
 * @example
 * ```ts
 * import { sanitizeRich } from "./pool.ts";
 *
 * await sanitizeRich("<div>Name</div><div>Role</div>");
 * // { html: "Name<br>Role", removed: 2 }
 * ```
 */
export function sanitizeRich(
  html: string,
  options: SanitizeOptions = {},
): Promise<SanitizeResult> {
  if (typeof html !== "string") {
    return Promise.reject(
      new TypeError("sanitizeHtml expects a string of HTML"),
    );
  }
  return traceSanitize(html.length, () => enqueue(html, options));
}

/** Queues one value for the workers; resolves with the worker's answer. */
function enqueue(
  html: string,
  options: SanitizeOptions,
): Promise<SanitizeResult> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    queue.push({
      id,
      request: {
        id,
        html,
        options: { mediaBase: options.mediaBase },
        limits: { ...HTML_LIMITS, ...options.limits },
      },
      deadlineMs: options.deadlineMs ?? SANITIZE_DEADLINE_MS,
      resolve,
      reject,
    });
    pump();
  });
}

/**
 * Sanitizes rich HTML with the shared policy; {@linkcode sanitizeRich}
 * without the count.
 *
 * @example
 * ```ts
 * import { sanitizeHtml } from "./pool.ts";
 *
 * await sanitizeHtml('<img src="data:image/png;base64,AA" width="1" height="1">');
 * // ""
 * await sanitizeHtml('<a href="https://example.com" target="_top">x</a>');
 * // '<a href="https://example.com" rel="noopener noreferrer nofollow">x</a>'
 * ```
 */
export async function sanitizeHtml(
  html: string,
  options?: SanitizeOptions,
): Promise<string> {
  return (await sanitizeRich(html, options)).html;
}
