/**
 * Where the Deno KV store keeps what, and the reads, commits and retries
 * every part of it shares.
 *
 * Below the prefix: a record at `[collection, key]`; everything else under
 * a number, which no collection name (a string) can take: a field's history
 * head at `[0, collection, key, field]`, its revisions at
 * `[1, collection, key, field, seq]`, a revision's place by id at `[2, id]`,
 * a record's drafts at `[3, collection, key]`, a schedule at `[4, id]`,
 * blob chunks at `[5, id, i]` and blob markers at `[6, id]` (`_blobs.ts`),
 * comments and review verdicts under 20 to 24 (`_reviews.ts`).
 *
 * @module
 */
import type { ContentValue, Retention } from "../types.ts";
import { backoff } from "../_queue.ts";
import { mapError } from "./_errors.ts";

/** What every part of the KV store works on: the KV, where, and its limits. */
export interface KvAt {
  /** The open KV. */
  kv: Deno.Kv;
  /** Key prefix of everything the store keeps. */
  prefix: Deno.KvKey;
  /** How many times a write tries before it gives up. */
  maxAttempts: number;
  /** How long history is kept (`undefined`: everything). */
  retention: Retention | undefined;
  /** Decoded blobs (see `_blobs.ts`). */
  cache: {
    get(id: string): ContentValue | undefined;
    set(id: string, v: ContentValue): void;
    delete(id: string): void;
  };
}

/** Key part of the history heads. */
export const HEADS = 0;
/** Key part of the revisions. */
export const REVISIONS = 1;
/** Key part of the revision ids. */
export const IDS = 2;
/** Key part of the drafts. */
export const DRAFTS = 3;
/** Key part of the schedules. */
export const SCHEDULES = 4;

/** A field's history head: the sequence number of its newest revision. */
export interface Head {
  /** The newest revision's sequence number. */
  seq: number;
}

/** Where a revision id points: collection, key, field, sequence number. */
export type IdEntry = [string, string, string, number];

/** The key of a record. */
export function recordKey(at: KvAt, collection: string, key: string) {
  return [...at.prefix, collection, key];
}

/** The key of a record's drafts. */
export function draftKey(at: KvAt, collection: string, key: string) {
  return [...at.prefix, DRAFTS, collection, key];
}

/** The key of a field's history head. */
export function headKey(
  at: KvAt,
  collection: string,
  key: string,
  field: string,
) {
  return [...at.prefix, HEADS, collection, key, field];
}

/** Runs a KV read, mapping KV's size errors (see `mapError`). */
export async function reading<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw mapError(err);
  }
}

/** Every entry under `prefix`, in key order (size errors mapped). */
export function listAll<T>(
  at: KvAt,
  prefix: Deno.KvKey,
  options?: Deno.KvListOptions,
): Promise<Deno.KvEntry<T>[]> {
  return reading(async () => {
    const out: Deno.KvEntry<T>[] = [];
    for await (const e of at.kv.list<T>({ prefix }, options)) out.push(e);
    return out;
  });
}

/** Commits `op`; `false` when a check failed or another writer held the lock. */
export async function commit(op: Deno.AtomicOperation): Promise<boolean> {
  try {
    return (await op.commit()).ok;
  } catch (err) {
    // Another handle on the same SQLite file holds the write lock: a lost
    // race like a failed check, so retry.
    if (err instanceof TypeError && /database is locked/.test(err.message)) {
      return false;
    }
    throw mapError(err);
  }
}

/** What an attempt answers when it lost a race and must run again. */
export const AGAIN: unique symbol = Symbol("again");

/**
 * Runs `attempt` until it answers something other than {@linkcode AGAIN},
 * with a jittered backoff in between; throws "KV `what` lost N races" after
 * `maxAttempts`.
 */
export async function retry<T>(
  at: KvAt,
  what: string,
  attempt: () => Promise<T | typeof AGAIN>,
): Promise<T> {
  for (let n = 1; n <= at.maxAttempts; n++) {
    const result = await attempt();
    if (result !== AGAIN) return result;
    await backoff(n);
  }
  throw new Error(`KV ${what} lost ${at.maxAttempts} races; giving up`);
}
