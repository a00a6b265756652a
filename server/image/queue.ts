/**
 * A concurrency limit with a bounded waiting line, for CPU- and memory-heavy
 * work such as decoding images. Full line → 503 with `Retry-After`.
 *
 * @module
 */
import { HttpError } from "../http.ts";

/** Options of {@linkcode WorkQueue}. */
export interface WorkQueueOptions {
  /** Jobs that run at the same time. Default 2. */
  concurrency?: number;
  /** Jobs that may wait for a free slot; one more is refused. Default 16. */
  waiting?: number;
  /** Seconds sent in `Retry-After` when the line is full. Default 5. */
  retryAfter?: number;
}

/**
 * Runs at most `concurrency` jobs at once, in arrival order. A job that
 * arrives when `waiting` jobs already wait is refused with an
 * {@linkcode HttpError} 503 carrying `Retry-After`, without running.
 *
 * @example
 * ```ts
 * import { WorkQueue } from "./queue.ts";
 * const queue = new WorkQueue({ concurrency: 2, waiting: 8 });
 * const answer = await queue.run(() => Promise.resolve(42)); // 42
 * ```
 */
export class WorkQueue {
  readonly #concurrency: number;
  readonly #waiting: number;
  readonly #retryAfter: number;
  readonly #line: (() => void)[] = [];
  #running = 0;

  /** Creates an idle queue. */
  constructor(options: WorkQueueOptions = {}) {
    this.#concurrency = Math.max(1, options.concurrency ?? 2);
    this.#waiting = Math.max(0, options.waiting ?? 16);
    this.#retryAfter = options.retryAfter ?? 5;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running;
  }

  /** Jobs waiting for a slot now. */
  get waiting(): number {
    return this.#line.length;
  }

  /** Runs `job` when a slot is free; its result or error is passed on. */
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#concurrency) {
      if (this.#line.length >= this.#waiting) {
        throw new HttpError(503, "Busy processing images, try again soon", {
          "Retry-After": String(this.#retryAfter),
        });
      }
      await new Promise<void>((resolve) => this.#line.push(resolve));
    } else this.#running++;
    try {
      return await job();
    } finally {
      const next = this.#line.shift();
      if (next) next(); // the slot passes on, `running` stays
      else this.#running--;
    }
  }
}
