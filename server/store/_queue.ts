/**
 * Runs the updates of one record through one store one after another, so a
 * store never races itself; only other instances cause retries, and those
 * wait a jittered {@linkcode backoff}.
 *
 * @module
 */

/**
 * Per-record queues of pending updates.
 *
 * @example
 * ```ts
 * import { RecordQueue } from "./_queue.ts";
 * const queue = new RecordQueue();
 * const order: number[] = [];
 * await Promise.all([1, 2].map((n) =>
 *   queue.run("pages", "home", async () => { order.push(n); })
 * ));
 * order; // [1, 2]
 * ```
 */
export class RecordQueue {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` after every earlier task of the same record has settled. */
  run<T>(collection: string, key: string, task: () => Promise<T>): Promise<T> {
    const id = JSON.stringify([collection, key]);
    const result = (this.#tails.get(id) ?? Promise.resolve()).then(task);
    const tail = result.then(() => {}, () => {});
    this.#tails.set(id, tail);
    tail.then(() => {
      if (this.#tails.get(id) === tail) this.#tails.delete(id);
    });
    return result;
  }
}

/**
 * Sleeps a random 0..min(2^attempt, 50) ms, so racing writers spread out
 * before their next attempt.
 *
 * @example
 * ```ts
 * import { backoff } from "./_queue.ts";
 * await backoff(1); // at most 2 ms
 * ```
 */
export function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(2 ** attempt, 50);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
