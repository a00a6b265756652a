/**
 * The errors of the Deno KV store: what KV's own limits (a 64 KiB value, a
 * 2 KiB key, 1000 mutations per commit) become, each with the HTTP status
 * a handler answers it with, and the mapping from KV's `TypeError`s.
 *
 * @module
 */

/**
 * Thrown when a record would exceed Deno KV's 64 KiB value limit. Nothing is
 * written. A save handler answers it with 413 "record too large".
 */
export class RecordTooLargeError extends Error {
  /** The HTTP status that fits this error. */
  readonly status = 413;
  /** Creates the error; `message` defaults to "record too large". */
  constructor(message = "record too large", options?: ErrorOptions) {
    super(message, options);
    this.name = "RecordTooLargeError";
  }
}

/**
 * Thrown when a collection or key is too long for a Deno KV key (2 KiB).
 * A save handler answers it with 400.
 */
export class KeyTooLargeError extends Error {
  /** The HTTP status that fits this error. */
  readonly status = 400;
  /** Creates the error; `message` defaults to "key too large". */
  constructor(message = "key too large", options?: ErrorOptions) {
    super(message, options);
    this.name = "KeyTooLargeError";
  }
}

/** Thrown when a publish is larger than one KV commit can hold (413). */
export class PublishTooLargeError extends Error {
  /** The HTTP status that fits this error. */
  readonly status = 413;
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PublishTooLargeError";
  }
}

/**
 * KV's `TypeError` for a value or key over its limit as the error above
 * that names it; any other error as it is.
 *
 * @example
 * ```ts
 * import { mapError, RecordTooLargeError } from "./_errors.ts";
 * mapError(new TypeError("Value too large")) instanceof RecordTooLargeError; // true
 * ```
 */
export function mapError(err: unknown): unknown {
  if (!(err instanceof TypeError)) return err;
  if (/^Value too large/.test(err.message)) {
    return new RecordTooLargeError("record too large", { cause: err });
  }
  if (/^Key too large/.test(err.message)) {
    return new KeyTooLargeError("key too large", { cause: err });
  }
  return err;
}
