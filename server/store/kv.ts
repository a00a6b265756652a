/**
 * A {@linkcode ContentStore} over Deno KV: the embedded default, and the
 * multi-instance one with KV Connect or Deno Deploy.
 *
 * @module
 */
import type { ContentRecord, ContentStore } from "../types.ts";

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

/** Options of {@linkcode KvContentStore}. */
export interface KvContentStoreOptions {
  /** Key prefix of every record. Default `["cms"]`. */
  prefix?: Deno.KvKey;
  /** How many times `update` tries before it gives up. Default 64. */
  maxAttempts?: number;
}

/**
 * Content in Deno KV, one entry per record under
 * `[...prefix, collection, key]`. `update` is an atomic check-and-set that
 * retries (bounded, with jittered backoff) when another writer got there
 * first, so concurrent saves to different fields of one record never lose an
 * update, across any number of instances. Within one store, updates of a
 * record are queued so they do not race each other. Records are limited to 64 KiB by KV ({@linkcode RecordTooLargeError}).
 *
 * @example
 * ```ts
 * import { KvContentStore } from "@inplace/cms";
 * const store = new KvContentStore(await Deno.openKv("./.data/cms.kv"));
 * await store.update("pages", "home", (r) => ({ ...r, title: "Hello" }));
 * (await store.get("pages", "home"))?.title; // "Hello"
 * ```
 */
export class KvContentStore implements ContentStore {
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #maxAttempts: number;
  /** Per-record tail of this store's pending updates. */
  readonly #queues = new Map<string, Promise<void>>();

  /**
   * Wraps an open KV.
   *
   * @param kv An open Deno KV, e.g. `await Deno.openKv(path)` (no path: the
   * default KV; `":memory:"`: a throwaway one). The caller closes it.
   */
  constructor(kv: Deno.Kv, options: KvContentStoreOptions = {}) {
    this.#kv = kv;
    this.#prefix = options.prefix ?? ["cms"];
    this.#maxAttempts = options.maxAttempts ?? 64;
  }

  /** Opens the KV at `path` (see `Deno.openKv`) and wraps it in a store. */
  static async open(
    path?: string,
    options?: KvContentStoreOptions,
  ): Promise<KvContentStore> {
    return new KvContentStore(await Deno.openKv(path), options);
  }

  /** Reads one record, or `null` when it does not exist. */
  async get(collection: string, key: string): Promise<ContentRecord | null> {
    const entry = await this.#read(collection, key);
    return entry.value;
  }

  /**
   * Replaces one record with what `mutate` returns (`null`: write nothing),
   * atomically. Updates of one record through this store run one after
   * another; against other writers (other instances) it is a check-and-set,
   * and `mutate` is re-run on a fresh read when the record changed in
   * between. Throws after `maxAttempts` lost races.
   */
  update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
  ): Promise<ContentRecord | null> {
    const id = JSON.stringify([collection, key]);
    const run = (this.#queues.get(id) ?? Promise.resolve())
      .then(() => this.#update(collection, key, mutate));
    const tail = run.then(() => {}, () => {});
    this.#queues.set(id, tail);
    tail.then(() => {
      if (this.#queues.get(id) === tail) this.#queues.delete(id);
    });
    return run;
  }

  async #update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
  ): Promise<ContentRecord | null> {
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const entry = await this.#read(collection, key);
      const next = mutate(entry.value);
      if (next === null) return null;
      if (await this.#commit(entry, next)) return next;
      await backoff(attempt);
    }
    throw new Error(
      `KV update of ${collection}:${key} lost ${this.#maxAttempts} races; giving up`,
    );
  }

  async #read(
    collection: string,
    key: string,
  ): Promise<Deno.KvEntryMaybe<ContentRecord>> {
    try {
      return await this.#kv.get<ContentRecord>([
        ...this.#prefix,
        collection,
        key,
      ]);
    } catch (err) {
      throw mapError(err);
    }
  }

  async #commit(
    entry: Deno.KvEntryMaybe<ContentRecord>,
    value: ContentRecord,
  ): Promise<boolean> {
    try {
      const result = await this.#kv.atomic().check(entry)
        .set(entry.key, value).commit();
      return result.ok;
    } catch (err) {
      // Another handle on the same SQLite file holds the write lock: a lost
      // race like a failed check, so retry.
      if (err instanceof TypeError && /database is locked/.test(err.message)) {
        return false;
      }
      throw mapError(err);
    }
  }
}

function mapError(err: unknown): unknown {
  if (!(err instanceof TypeError)) return err;
  if (/^Value too large/.test(err.message)) {
    return new RecordTooLargeError("record too large", { cause: err });
  }
  if (/^Key too large/.test(err.message)) {
    return new KeyTooLargeError("key too large", { cause: err });
  }
  return err;
}

/** Sleeps a random 0..min(2^attempt, 50) ms, so racing writers spread out. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(2 ** attempt, 50);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
