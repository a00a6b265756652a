/**
 * A content store over Deno KV: the embedded default, and the
 * multi-instance one with KV Connect or Deno Deploy. The class is here;
 * what it stores is in the files beside it: records (`_records.ts`),
 * history (`_history.ts`), drafts (`_drafts.ts`), publishing
 * (`_publish.ts`), schedules (`_schedules.ts`), comments and review
 * verdicts (`_reviews.ts`), export and import
 * (`_dump.ts`), with the key layout and retries in `_layout.ts` and the
 * errors in `_errors.ts`.
 *
 * @module
 */
import type {
  ContentRecord,
  Draft,
  DraftRef,
  DraftStore,
  HistoryStore,
  PublishResult,
  Retention,
  Revision,
  RevisionInput,
  StoreLine,
} from "../types.ts";
import { checkRetention } from "../_revision.ts";
import { RecordQueue } from "../_queue.ts";
import type {
  Schedule,
  ScheduleFailure,
  ScheduleFiring,
  ScheduleQuery,
  ScheduleStore,
} from "../schedule.ts";
import type { KvAt } from "./_layout.ts";
import { getRecord, updateRecord } from "./_records.ts";
import { revision, revisions } from "./_history.ts";
import { allDrafts, discard, getDrafted, saveDraft } from "./_drafts.ts";
import { KV_MAX_PUBLISH, publish } from "./_publish.ts";
import {
  addSchedule,
  cancelSchedule,
  failSchedule,
  fireSchedule,
  getSchedule,
  scheduleCount,
  schedules,
} from "./_schedules.ts";
import { dump, load } from "./_dump.ts";
import type { Approval, Comment } from "../../../core/protocol/review.ts";
import type { CommentExpect, CommentUpdate, ReviewStore } from "../review.ts";
import * as reviews from "./_reviews.ts";
import { BlobCache, sweep } from "./_blobs.ts";

export {
  KeyTooLargeError,
  PublishTooLargeError,
  RecordTooLargeError,
} from "./_errors.ts";
export { KV_MAX_PUBLISH };

/** Options of {@linkcode KvContentStore}. */
export interface KvContentStoreOptions {
  /** Key prefix of every record. Default `["cms"]`. */
  prefix?: Deno.KvKey;
  /** How many times `update` tries before it gives up. Default 64. */
  maxAttempts?: number;
  /** How long history is kept. Default: everything. */
  retention?: Retention;
}

/**
 * Content in Deno KV, one entry per record under
 * `[...prefix, collection, key]`. `update` is an atomic check-and-set that
 * retries (bounded, with jittered backoff) when another writer got there
 * first, so concurrent saves to different fields of one record never lose an
 * update, across any number of instances. Within one store, updates of a
 * record are queued so they do not race each other. A value too large to
 * sit inline in its entry (KV takes 64 KiB a value) is kept in 60 KiB
 * pieces that one commit switches to (`_blobs.ts`), so a field, a draft or
 * a revision can be as large as a save allows, and saving one field
 * rewrites only that field. {@linkcode RecordTooLargeError} remains only
 * for a record whose field names and small values pass 64 KiB (thousands
 * of fields).
 *
 * History: a revision goes in the same atomic commit as its record, under
 * `[...prefix, 1, collection, key, field, seq]`, with its id under
 * `[...prefix, 2, id]` and the field's newest `seq` under
 * `[...prefix, 0, collection, key, field]` (checked by the commit too).
 * Retention prunes after the commit; the newest revision always stays.
 *
 * @example
 * ```ts
 * import { KvContentStore } from "@inplace/cms";
 * const store = new KvContentStore(await Deno.openKv("./.data/cms.kv"));
 * await store.update("pages", "home", (r) => ({ ...r, title: "Hello" }));
 * (await store.get("pages", "home"))?.title; // "Hello"
 * ```
 */
export class KvContentStore
  implements HistoryStore, DraftStore, ScheduleStore, ReviewStore {
  readonly #at: KvAt;
  readonly #queue = new RecordQueue();

  /**
   * Wraps an open KV.
   *
   * @param kv An open Deno KV, e.g. `await Deno.openKv(path)` (no path: the
   * default KV; `":memory:"`: a throwaway one). The caller closes it.
   */
  constructor(kv: Deno.Kv, options: KvContentStoreOptions = {}) {
    checkRetention(options.retention);
    this.#at = {
      kv,
      prefix: options.prefix ?? ["cms"],
      maxAttempts: options.maxAttempts ?? 64,
      retention: options.retention,
      cache: new BlobCache(),
    };
  }

  /** The KV database it wraps (for a `KvEventBus` over the same one). */
  get kv(): Deno.Kv {
    return this.#at.kv;
  }

  /** Opens the KV at `path` (see `Deno.openKv`) and wraps it in a store. */
  static async open(
    path?: string,
    options?: KvContentStoreOptions,
  ): Promise<KvContentStore> {
    return new KvContentStore(await Deno.openKv(path), options);
  }

  /** Reads one record, or `null` when it does not exist. */
  get(collection: string, key: string): Promise<ContentRecord | null> {
    return getRecord(this.#at, collection, key);
  }

  /**
   * Replaces one record with what `mutate` returns (`null`: write nothing),
   * atomically. Updates of one record through this store run one after
   * another; against other writers (other instances) it is a check-and-set,
   * and `mutate` is re-run on a fresh read when the record changed in
   * between. Throws after `maxAttempts` lost races. With `revision`, the
   * field's new revision is part of the same commit.
   */
  update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision?: RevisionInput,
  ): Promise<ContentRecord | null> {
    return this.#queue.run(
      collection,
      key,
      () => updateRecord(this.#at, collection, key, mutate, revision),
    );
  }

  /** One record with its drafts written over it, or `null`. */
  getDrafted(collection: string, key: string): Promise<ContentRecord | null> {
    return getDrafted(this.#at, collection, key);
  }

  /**
   * Saves the draft of `revision.field` from what `mutate` returns, with an
   * unpublished revision, in one atomic commit that checks the record, its
   * drafts and the field's history head.
   */
  updateDraft(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision: RevisionInput,
  ): Promise<ContentRecord | null> {
    return this.#queue.run(
      collection,
      key,
      () => saveDraft(this.#at, collection, key, mutate, revision),
    );
  }

  /** Every draft, oldest first. */
  drafts(): Promise<Draft[]> {
    return allDrafts(this.#at);
  }

  /**
   * Publishes `fields` (`null`: all drafts) in ONE atomic commit that
   * checks every record and drafts entry it read: all fields go public, or
   * (a concurrent write got in between) the whole publish is read and
   * planned again. At most {@linkcode KV_MAX_PUBLISH} fields.
   */
  publish(fields: DraftRef[] | null, editor: string): Promise<PublishResult> {
    return publish(this.#at, fields, editor);
  }

  /** Stores a new pending schedule (refused when its id is taken). */
  addSchedule(schedule: Schedule): Promise<void> {
    return addSchedule(this.#at, schedule);
  }

  /** The pending and failed schedules `query` selects, soonest first. */
  schedules(query?: ScheduleQuery): Promise<Schedule[]> {
    return schedules(this.#at, query);
  }

  /** Schedule `id`, pending or failed; `null` when there is none. */
  schedule(id: string): Promise<Schedule | null> {
    return getSchedule(this.#at, id);
  }

  /** How many schedules (pending and failed) are kept. */
  scheduleCount(): Promise<number> {
    return scheduleCount(this.#at);
  }

  /** Marks pending schedule `id` failed; `null` when it is not pending. */
  failSchedule(id: string, failure: ScheduleFailure): Promise<Schedule | null> {
    return failSchedule(this.#at, id, failure);
  }

  /** Removes a pending or failed schedule; `false` when there is none. */
  cancelSchedule(id: string): Promise<boolean> {
    return cancelSchedule(this.#at, id);
  }

  /**
   * Fires schedule `id` if pending and due: ONE atomic commit checks the
   * schedule entry (so only one instance's commit can succeed) and every
   * record and drafts entry it read, publishes, and removes the schedule
   * (or marks it failed when it cannot publish).
   */
  fireSchedule(
    id: string,
    now: number = Date.now(),
  ): Promise<ScheduleFiring | null> {
    return fireSchedule(this.#at, id, now);
  }

  /** Drops one field's draft; `false` when it had none. */
  discard(collection: string, key: string, field: string): Promise<boolean> {
    return this.#queue.run(
      collection,
      key,
      () => discard(this.#at, collection, key, field),
    );
  }

  /** A field's revisions, newest first, at most `limit`. */
  revisions(
    collection: string,
    key: string,
    field: string,
    limit?: number,
  ): Promise<Revision[]> {
    return revisions(this.#at, collection, key, field, limit);
  }

  /** One revision by id, or `null`. */
  revision(id: string): Promise<Revision | null> {
    return revision(this.#at, id);
  }

  /**
   * Every record, then every revision (oldest first per field), then every
   * draft.
   */
  dump(): AsyncIterable<StoreLine> {
    return dump(this.#at);
  }

  /**
   * Deletes the pieces of large values that nothing refers to any more:
   * those a write stopped using (normally deleted right after it) and those
   * a write that crashed left behind, once older than 15 minutes (`now`).
   * Every write that stores a large value runs it too. Resolves to how many
   * values were collected.
   */
  collectGarbage(now: number = Date.now()): Promise<number> {
    return sweep(this.#at, now);
  }

  /** Loads a dump into this empty store; throws on a non-empty one. */
  load(lines: AsyncIterable<StoreLine> | Iterable<StoreLine>): Promise<void> {
    return load(this.#at, lines);
  }

  /** Stores a new comment (see {@linkcode ReviewStore.addComment}). */
  addComment(comment: Comment): Promise<Comment> {
    return reviews.addComment(this.#at, comment);
  }

  /** Changes a comment (see {@linkcode ReviewStore.updateComment}). */
  updateComment(
    id: string,
    patch: CommentUpdate,
    expect?: CommentExpect,
  ): Promise<Comment | null> {
    return reviews.updateComment(this.#at, id, patch, expect);
  }

  /** Deletes a comment (see {@linkcode ReviewStore.deleteComment}). */
  deleteComment(id: string, expect?: CommentExpect): Promise<boolean> {
    return reviews.deleteComment(this.#at, id, expect);
  }

  /** The page's comments, oldest first. */
  comments(page: string): Promise<Comment[]> {
    return reviews.comments(this.#at, page);
  }

  /** Comment `id`, or `null`. */
  comment(id: string): Promise<Comment | null> {
    return reviews.comment(this.#at, id);
  }

  /** Records a verdict (the page keeps its newest 100). */
  addApproval(approval: Approval): Promise<Approval> {
    return reviews.addApproval(this.#at, approval);
  }

  /** The page's verdicts, oldest first. */
  approvals(page: string): Promise<Approval[]> {
    return reviews.approvals(this.#at, page);
  }
}
