/**
 * Token buckets per key (an editor): `perMinute` tokens, refilled
 * continuously. For the link check endpoint's rate limit.
 *
 * @module
 */

/** Most keys kept; the least recently used goes first. */
const MAX_KEYS = 10_000;

/** A token bucket for each key, `perMinute` tokens each. */
export class RateBuckets {
  readonly #perMs: number;
  readonly #capacity: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /** Buckets of `perMinute` tokens (at least 1). */
  constructor(perMinute: number) {
    this.#capacity = Math.max(1, perMinute);
    this.#perMs = this.#capacity / 60_000;
  }

  /**
   * Takes `n` tokens from `key`'s bucket at time `now` (ms) and returns 0,
   * or takes none and returns the ms until there are enough. More than a
   * full bucket counts as a full bucket.
   */
  take(key: string, n: number, now: number): number {
    const old = this.#buckets.get(key);
    const tokens = old
      ? Math.min(this.#capacity, old.tokens + (now - old.at) * this.#perMs)
      : this.#capacity;
    const need = Math.min(n, this.#capacity);
    this.#buckets.delete(key);
    this.#buckets.set(key, {
      tokens: tokens >= need ? tokens - need : tokens,
      at: now,
    });
    if (this.#buckets.size > MAX_KEYS) {
      this.#buckets.delete(this.#buckets.keys().next().value!);
    }
    return tokens >= need ? 0 : Math.ceil((need - tokens) / this.#perMs);
  }
}
