/**
 * A concurrency limit with a bounded waiting line, a budget of pixels in
 * flight and a budget of estimated memory, for CPU- and memory-heavy work
 * such as decoding images. A full line or pixel budget → 503 with
 * `Retry-After`; work over the memory budget waits in line until enough of
 * the running work is done. Work whose request is aborted while it waits
 * never starts.
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
  /**
   * Estimated bytes the running jobs may use together, with what waiting
   * jobs hold: a job that would pass it waits in line (first come, first
   * served) until enough running jobs are done, if what it holds while
   * waiting still fits (else 503); one job alone always runs. Default: no
   * limit.
   */
  maxMemory?: number;
}

/** What {@linkcode WorkQueue.run} is told about one job. */
export interface JobOptions {
  /** The pixels the job decodes (counted against `maxPixels`). Default 0. */
  pixels?: number;
  /**
   * The job's estimated peak memory in bytes while it runs (counted
   * against `maxMemory`). Default 0.
   */
  memory?: number;
  /**
   * Bytes the job holds while it waits (its input, e.g. the upload's
   * body), counted against `maxMemory` until it starts. Default 0.
   */
  held?: number;
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
  readonly #maxMemory: number;
  readonly #line: { memory: number; held: number; start: () => void }[] = [];
  #running = 0;
  #pixels = 0;
  #memory = 0;
  #held = 0;

  /** Creates an idle queue. */
  constructor(options: WorkQueueOptions = {}) {
    this.#concurrency = Math.max(1, options.concurrency ?? 2);
    this.#waiting = Math.max(0, options.waiting ?? 16);
    this.#retryAfter = options.retryAfter ?? 5;
    this.#maxPixels = options.maxPixels ?? Infinity;
    this.#maxMemory = options.maxMemory ?? Infinity;
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

  /** Estimated memory of the jobs running now, in bytes. */
  get memory(): number {
    return this.#memory;
  }

  /** Bytes the waiting jobs hold now. */
  get held(): number {
    return this.#held;
  }

  /** The memory budget of the running jobs, in bytes (`Infinity`: none). */
  get maxMemory(): number {
    return this.#maxMemory;
  }

  /**
   * Runs `job` when a slot and its memory are free; its result or error is
   * passed on. A job aborted by `options.signal` before it starts is
   * dropped from the line and rejects with the signal's reason.
   */
  async run<T>(job: () => Promise<T>, options: JobOptions = {}): Promise<T> {
    const { signal } = options;
    const pixels = Math.max(0, options.pixels ?? 0);
    const memory = Math.max(0, options.memory ?? 0);
    const held = Math.max(0, options.held ?? 0);
    signal?.throwIfAborted();
    if (this.#pixels > 0 && this.#pixels + pixels > this.#maxPixels) {
      throw this.#busy();
    }
    if (this.#line.length > 0 || !this.#fits(memory)) {
      if (this.#line.length >= this.#waiting) throw this.#busy();
      if (held > 0 && this.#memory + this.#held + held > this.#maxMemory) {
        throw this.#busy();
      }
      this.#pixels += pixels;
      try {
        await this.#wait(memory, held, signal);
      } catch (err) {
        this.#pixels -= pixels;
        throw err;
      }
    } else {
      this.#pixels += pixels;
      this.#running++;
      this.#memory += memory;
    }
    // Running and memory are counted (by `#next` for a job that waited).
    try {
      return await job();
    } finally {
      this.#pixels -= pixels;
      this.#memory -= memory;
      this.#running--;
      this.#next();
    }
  }

  /**
   * Holds `bytes` of an upload's body while it is read, before its job is
   * queued: counted like a waiting job's body, so a burst of uploads can't
   * read more bodies than the budget leaves room for. Throws the queue's
   * 503 when the bytes don't fit beside the work already counted (an idle
   * queue always takes one). Call the returned function once the body is
   * read (or its read failed).
   */
  holdBody(bytes: number): () => void {
    const n = Math.max(0, bytes);
    const busy = this.#running > 0 || this.#held > 0;
    if (busy && this.#memory + this.#held + n > this.#maxMemory) {
      throw this.#busy();
    }
    this.#held += n;
    let held = true;
    return () => {
      if (held) this.#held -= n;
      held = false;
    };
  }

  /** Whether a job of `memory` bytes may start now. */
  #fits(memory: number): boolean {
    return this.#running < this.#concurrency &&
      (this.#running === 0 || this.#memory + memory <= this.#maxMemory);
  }

  /** Waits in line until the job's turn, or rejects when aborted. */
  #wait(memory: number, held: number, signal?: AbortSignal): Promise<void> {
    this.#held += held;
    return new Promise<void>((resolve, reject) => {
      const entry = {
        memory,
        held,
        start: () => {
          signal?.removeEventListener("abort", leave);
          resolve();
        },
      };
      const leave = () => {
        const i = this.#line.indexOf(entry);
        if (i >= 0) {
          this.#line.splice(i, 1);
          this.#held -= held;
        }
        reject(signal!.reason);
        // The head may have left: whoever is next may fit now.
        this.#next();
      };
      this.#line.push(entry);
      signal?.addEventListener("abort", leave, { once: true });
    });
  }

  /** Starts waiting jobs, in order, while the next one fits. */
  #next(): void {
    while (this.#line.length > 0 && this.#fits(this.#line[0].memory)) {
      const entry = this.#line.shift()!;
      // Counted now, so that the loop sees it before the job resumes.
      this.#running++;
      this.#memory += entry.memory;
      this.#held -= entry.held;
      entry.start();
    }
  }

  #busy(): HttpError {
    return new HttpError(503, "Busy processing images, try again soon", {
      "Retry-After": String(this.#retryAfter),
    });
  }
}
