/**
 * A history store over PostgreSQL (the `postgres` npm package), for sites
 * that run several instances on a database they already operate. The class
 * is here; what it stores is in the files beside it: records
 * (`_records.ts`), history (`_history.ts`), drafts (`_drafts.ts`),
 * publishing (`_publish.ts`), schedules (`_schedules.ts`), comments and
 * review verdicts (`_reviews.ts`), export and import (`_dump.ts`), with the tables, queries and retries in
 * `_tables.ts`.
 *
 * @module
 */
import postgres from "postgres";
import {
  checkRetention,
  type ContentRecord,
  type Draft,
  type DraftRef,
  type DraftStore,
  type HistoryStore,
  type PublishResult,
  RecordQueue,
  type Retention,
  type Revision,
  type RevisionInput,
  type Schedule,
  type ScheduleFailure,
  type ScheduleFiring,
  type ScheduleQuery,
  type ScheduleStore,
  type StoreLine,
} from "../../server/store/mod.ts";
import { createTables, type PgAt, retry, run, type Sql } from "./_tables.ts";
import { getRecord, writeRecord } from "./_records.ts";
import { revision, revisions } from "./_history.ts";
import { allDrafts, discard, getDrafted, saveDraft } from "./_drafts.ts";
import { publishIn } from "./_publish.ts";
import {
  addSchedule,
  cancelSchedule,
  failSchedule,
  fireOnce,
  getSchedule,
  scheduleCount,
  schedules,
} from "./_schedules.ts";
import { dump, load } from "./_dump.ts";
import type { Approval, Comment } from "../../core/protocol/review.ts";
import type {
  CommentExpect,
  CommentUpdate,
  ReviewStore,
} from "../../server/store/mod.ts";
import * as reviews from "./_reviews.ts";

export { UnstorableTextError } from "./_tables.ts";

/** Options of {@linkcode PostgresContentStore}. */
export interface PostgresContentStoreOptions {
  /**
   * Table name prefix: tables `<prefix>_records`, `<prefix>_revisions`,
   * `<prefix>_drafts`, `<prefix>_schedules`, `<prefix>_comments` and
   * `<prefix>_approvals`. Lowercase letters, digits
   * and `_`. Default `"cms"`.
   */
  prefix?: string;
  /** How many times `update` tries before it gives up. Default 64. */
  maxAttempts?: number;
  /** How long history is kept. Default: everything. */
  retention?: Retention;
}

/**
 * Content in PostgreSQL: one row per record (`jsonb`, with a `version`
 * counter) and one row per revision. It creates its tables on first use.
 *
 * `update` runs in one transaction: it reads the record and its version
 * (`SELECT … FOR UPDATE`, so other instances wait instead of racing), runs
 * `mutate`, and writes only if the version is still the one it read
 * (`UPDATE … WHERE version = $read`, or an `INSERT` that finds no row). A
 * writer that lost the race (two first inserts) rolls back and retries on a
 * fresh read, so concurrent saves from any number of instances never lose an
 * update. The revision is inserted in the same transaction while the record
 * row is locked, so a field's revision numbers follow its writes.
 *
 * @example
 * ```ts ignore
 * import { PostgresContentStore } from "@inplace/cms/postgres";
 * const store = PostgresContentStore.connect("postgres://cms@127.0.0.1/cms");
 * await store.update("pages", "home", (r) => ({ ...r, title: "Hello" }), {
 *   field: "title",
 *   editor: "Ada",
 * });
 * (await store.revisions("pages", "home", "title"))[0].value; // "Hello"
 * await store.close();
 * ```
 */
export class PostgresContentStore
  implements HistoryStore, DraftStore, ScheduleStore, ReviewStore {
  readonly #at: PgAt;
  readonly #queue = new RecordQueue();
  #ready: Promise<void> | null = null;

  /** Wraps a `postgres` client; `close()` ends it. */
  constructor(sql: Sql, options: PostgresContentStoreOptions = {}) {
    const prefix = options.prefix ?? "cms";
    if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
      throw new RangeError("prefix: lowercase letters, digits and _ only");
    }
    checkRetention(options.retention);
    this.#at = {
      sql,
      records: `${prefix}_records`,
      revisions: `${prefix}_revisions`,
      drafts: `${prefix}_drafts`,
      schedules: `${prefix}_schedules`,
      comments: `${prefix}_comments`,
      approvals: `${prefix}_approvals`,
      maxAttempts: options.maxAttempts ?? 64,
      retention: options.retention,
    };
  }

  /** Connects to `url` (`postgres://user:pass@host:port/db`); `close()` ends it. */
  static connect(
    url: string,
    options: PostgresContentStoreOptions & { max?: number } = {},
  ): PostgresContentStore {
    const sql = postgres(url, { max: options.max ?? 10, onnotice: () => {} });
    return new PostgresContentStore(sql, options);
  }

  /** Ends the client's connections. */
  async close(): Promise<void> {
    await this.#at.sql.end({ timeout: 5 });
  }

  /** Reads one record, or `null` when it does not exist. */
  async get(collection: string, key: string): Promise<ContentRecord | null> {
    await this.#init();
    return await getRecord(this.#at, collection, key);
  }

  /**
   * Replaces one record with what `mutate` returns (`null`: write nothing),
   * in one transaction with the field's new revision. Retries when another
   * writer changed the record in between; throws after `maxAttempts`.
   */
  async update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision?: RevisionInput,
  ): Promise<ContentRecord | null> {
    await this.#init();
    const at = this.#at;
    return this.#queue.run(
      collection,
      key,
      () =>
        retry(
          at,
          `update of ${collection}:${key}`,
          () =>
            run(at, (sql) =>
              sql.begin((tx) =>
                writeRecord(at, tx, collection, key, mutate, revision)
              )),
        ),
    );
  }

  /** One record with its drafts written over it (one snapshot), or `null`. */
  async getDrafted(
    collection: string,
    key: string,
  ): Promise<ContentRecord | null> {
    await this.#init();
    return await getDrafted(this.#at, collection, key);
  }

  /**
   * Saves the draft of `revision.field` from what `mutate` returns, with an
   * unpublished revision, in one transaction. Drafts and publishes of one
   * record are serialized by a transaction-scoped advisory lock.
   */
  async updateDraft(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision: RevisionInput,
  ): Promise<ContentRecord | null> {
    await this.#init();
    return this.#queue.run(
      collection,
      key,
      () => saveDraft(this.#at, collection, key, mutate, revision),
    );
  }

  /** Every draft, oldest first. */
  async drafts(): Promise<Draft[]> {
    await this.#init();
    return await allDrafts(this.#at);
  }

  /**
   * Publishes `fields` (`null`: all drafts) in ONE transaction: each record
   * is locked (in a fixed order, so publishes never deadlock), its drafts
   * are checked against the versions given, written over the published
   * values, and each field gets a published revision. Any conflict: nothing
   * is written. A crash anywhere leaves all or none published.
   */
  async publish(
    fields: DraftRef[] | null,
    editor: string,
  ): Promise<PublishResult> {
    await this.#init();
    const at = this.#at;
    return await retry(
      at,
      "publish",
      () =>
        run(at, (sql) => sql.begin((tx) => publishIn(at, tx, fields, editor))),
    );
  }

  /** Stores a new pending schedule. */
  async addSchedule(schedule: Schedule): Promise<void> {
    await this.#init();
    await addSchedule(this.#at, schedule);
  }

  /** The pending and failed schedules `query` selects, soonest first. */
  async schedules(query?: ScheduleQuery): Promise<Schedule[]> {
    await this.#init();
    return await schedules(this.#at, query);
  }

  /** Schedule `id`, pending or failed; `null` when there is none. */
  async schedule(id: string): Promise<Schedule | null> {
    await this.#init();
    return await getSchedule(this.#at, id);
  }

  /** How many schedules (pending and failed) are kept. */
  async scheduleCount(): Promise<number> {
    await this.#init();
    return await scheduleCount(this.#at);
  }

  /** Marks pending schedule `id` failed; `null` when it is not pending. */
  async failSchedule(
    id: string,
    failure: ScheduleFailure,
  ): Promise<Schedule | null> {
    await this.#init();
    return await failSchedule(this.#at, id, failure);
  }

  /** Removes a pending or failed schedule; `false` when there is none. */
  async cancelSchedule(id: string): Promise<boolean> {
    await this.#init();
    return await cancelSchedule(this.#at, id);
  }

  /**
   * Fires schedule `id` if pending and due, in ONE transaction: the
   * schedule row is claimed with `FOR UPDATE SKIP LOCKED` (an instance that
   * finds it locked leaves it to the one firing it), the publish runs as
   * {@linkcode publish} does, and the row is deleted (or marked failed)
   * before the commit. A crash rolls all of it back: the schedule stays
   * pending and fires at the next start.
   */
  async fireSchedule(
    id: string,
    now: number = Date.now(),
  ): Promise<ScheduleFiring | null> {
    await this.#init();
    return await retry(this.#at, "schedule", () => fireOnce(this.#at, id, now));
  }

  /** Drops one field's draft; `false` when it had none. */
  async discard(
    collection: string,
    key: string,
    field: string,
  ): Promise<boolean> {
    await this.#init();
    return await discard(this.#at, collection, key, field);
  }

  /** A field's revisions, newest first, at most `limit`. */
  async revisions(
    collection: string,
    key: string,
    field: string,
    limit?: number,
  ): Promise<Revision[]> {
    await this.#init();
    return await revisions(this.#at, collection, key, field, limit);
  }

  /** One revision by id, or `null`. */
  async revision(id: string): Promise<Revision | null> {
    await this.#init();
    return await revision(this.#at, id);
  }

  /**
   * Every record, then every revision (oldest first per field), then every
   * draft; in byte order of their keys, as Deno KV lists them.
   */
  async *dump(): AsyncIterable<StoreLine> {
    await this.#init();
    yield* dump(this.#at);
  }

  /**
   * Loads a dump into this empty store, in one transaction: on any error
   * nothing is written. Throws on a non-empty store.
   */
  async load(
    lines: AsyncIterable<StoreLine> | Iterable<StoreLine>,
  ): Promise<void> {
    await this.#init();
    await load(this.#at, lines);
  }

  /** Creates the tables once (serialized across instances by a lock). */
  #init(): Promise<void> {
    this.#ready ??= createTables(this.#at).then(() => {}, (err) => {
      this.#ready = null;
      throw err;
    });
    return this.#ready;
  }

  /** Stores a new comment (see {@linkcode ReviewStore.addComment}). */
  async addComment(comment: Comment): Promise<Comment> {
    await this.#init();
    return await reviews.addComment(this.#at, comment);
  }

  /** Changes a comment (see {@linkcode ReviewStore.updateComment}). */
  async updateComment(
    id: string,
    patch: CommentUpdate,
    expect?: CommentExpect,
  ): Promise<Comment | null> {
    await this.#init();
    return await reviews.updateComment(this.#at, id, patch, expect);
  }

  /** Deletes a comment (see {@linkcode ReviewStore.deleteComment}). */
  async deleteComment(id: string, expect?: CommentExpect): Promise<boolean> {
    await this.#init();
    return await reviews.deleteComment(this.#at, id, expect);
  }

  /** The page's comments, oldest first. */
  async comments(page: string): Promise<Comment[]> {
    await this.#init();
    return await reviews.comments(this.#at, page);
  }

  /** Comment `id`, or `null`. */
  async comment(id: string): Promise<Comment | null> {
    await this.#init();
    return await reviews.comment(this.#at, id);
  }

  /** Records a verdict (the page keeps its newest 100). */
  async addApproval(approval: Approval): Promise<Approval> {
    await this.#init();
    return await reviews.addApproval(this.#at, approval);
  }

  /** The page's verdicts, oldest first. */
  async approvals(page: string): Promise<Approval[]> {
    await this.#init();
    return await reviews.approvals(this.#at, page);
  }
}
