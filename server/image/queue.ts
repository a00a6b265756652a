/**
 * A concurrency limit with a bounded waiting line and a budget of pixels in
 * flight, for CPU- and memory-heavy work such as decoding images. A full
 * line or budget → 503 with `Retry-After`. Work whose request is aborted
 * while it waits never starts.
 *
 * @module
 */
import { HttpError } from "../http/mod.ts";

/** Options of {@linkcode WorkQueue}. */
export interface WorkQueueOptions {
  /** Jobs that run at the same time. Default 2. */
  concurrency?: number;
  /** Jobs that may wait for a free slot; one more is refused. Default 16. */
  waiting?: number;
  /** Seconds sent in `Retry-After` when the line is full. Default 5. */
  retryAfter?: number;
  /**
   * Pixels that may be in flight (running and waiting jobs together); a job
   * that would pass it is refused with 503, unless nothing else is in
   * flight. Default: no limit.
   */
  maxPixels?: number;
}

/** What {@linkcode WorkQueue.run} is told about one job. */
export interface JobOptions {
  /** The pixels the job decodes (counted against `maxPixels`). Default 0. */
  pixels?: number;
  /** Aborts the job: it leaves the line and never starts. */
  signal?: AbortSignal;
}

/**
 * Runs at most `concurrency` jobs at once, in arrival order. A job that
 * arrives when `waiting` jobs already wait, or whose pixels would pass
 * `maxPixels` in flight, is refused with an {@linkcode HttpError} 503
 * carrying `Retry-After`, without running.
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
  readonly #maxPixels: number;
  readonly #line: (() => void)[] = [];
  #running = 0;
  #pixels = 0;

  /** Creates an idle queue. */
  constructor(options: WorkQueueOptions = {}) {
    this.#concurrency = Math.max(1, options.concurrency ?? 2);
    this.#waiting = Math.max(0, options.waiting ?? 16);
    this.#retryAfter = options.retryAfter ?? 5;
    this.#maxPixels = options.maxPixels ?? Infinity;
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running;
  }

  /** Jobs waiting for a slot now. */
  get waiting(): number {
    return this.#line.length;
  }

  /** Pixels of the jobs running and waiting now. */
  get pixels(): number {
    return this.#pixels;
  }

  /**
   * Runs `job` when a slot is free; its result or error is passed on. A
   * job aborted by `options.signal` before it starts is dropped from the
   * line and rejects with the signal's reason.
   */
  async run<T>(job: () => Promise<T>, options: JobOptions = {}): Promise<T> {
    const { signal } = options;
    const pixels = Math.max(0, options.pixels ?? 0);
    signal?.throwIfAborted();
    if (this.#pixels > 0 && this.#pixels + pixels > this.#maxPixels) {
      throw this.#busy();
    }
    if (this.#running >= this.#concurrency) {
      if (this.#line.length >= this.#waiting) throw this.#busy();
      this.#pixels += pixels;
      try {
        await new Promise<void>((resolve, reject) => {
          const start = () => {
            signal?.removeEventListener("abort", leave);
            resolve();
          };
          const leave = () => {
            const i = this.#line.indexOf(start);
            if (i >= 0) this.#line.splice(i, 1);
            reject(signal!.reason);
          };
          this.#line.push(start);
          signal?.addEventListener("abort", leave, { once: true });
        });
      } catch (err) {
        this.#pixels -= pixels;
        throw err;
      }
    } else {
      this.#running++;
      this.#pixels += pixels;
    }
    try {
      return await job();
    } finally {
      this.#pixels -= pixels;
      const next = this.#line.shift();
      if (next) next(); // the slot passes on, `running` stays
      else this.#running--;
    }
  }

  #busy(): HttpError {
    return new HttpError(503, "Busy processing images, try again soon", {
      "Retry-After": String(this.#retryAfter),
    });
  }
}
