/**
 * A {@linkcode ContentStore} over Deno KV: the embedded default, and the
 * multi-instance one with KV Connect or Deno Deploy.
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
} from "./types.ts";
import {
  checkRetention,
  checkRevision,
  expired,
  newRevisions,
} from "./_revision.ts";
import { backoff, RecordQueue } from "./_queue.ts";
import {
  byRecord,
  checkDraft,
  draftLines,
  draftOf,
  draftSlot,
  listDrafts,
  overlay,
  planPublish,
  type RecordDrafts,
} from "./draft.ts";
import {
  bySchedule,
  checkSchedule,
  failureOf,
  isDue,
  type Schedule,
  type ScheduleFiring,
  type ScheduleStore,
} from "./schedule.ts";

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
  /** How long history is kept. Default: everything. */
  retention?: Retention;
}

/** A field's history head: the sequence number of its newest revision. */
interface Head {
  seq: number;
}

/** Where a revision id points: collection, key, field, sequence number. */
type IdEntry = [string, string, string, number];

/** Key parts below the prefix that no collection name (a string) can take. */
const HEADS = 0;
const REVISIONS = 1;
const IDS = 2;
const DRAFTS = 3;
const SCHEDULES = 4;

/**
 * Most fields one publish takes on Deno KV: one atomic commit holds at most
 * 1000 mutations, and a field needs up to five.
 */
export const KV_MAX_PUBLISH = 180;

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
 * Content in Deno KV, one entry per record under
 * `[...prefix, collection, key]`. `update` is an atomic check-and-set that
 * retries (bounded, with jittered backoff) when another writer got there
 * first, so concurrent saves to different fields of one record never lose an
 * update, across any number of instances. Within one store, updates of a
 * record are queued so they do not race each other. Records and revisions
 * are limited to 64 KiB by KV ({@linkcode RecordTooLargeError}).
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
export class KvContentStore implements HistoryStore, DraftStore, ScheduleStore {
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #maxAttempts: number;
  readonly #retention: Retention | undefined;
  readonly #queue = new RecordQueue();

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
    checkRetention(options.retention);
    this.#retention = options.retention;
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
      () => this.#update(collection, key, mutate, revision),
    );
  }

  async #update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision: RevisionInput | undefined,
  ): Promise<ContentRecord | null> {
    const recordKey = [...this.#prefix, collection, key];
    const headKey = revision
      ? [...this.#prefix, HEADS, collection, key, revision.field]
      : null;
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const [entry, head] = await this.#readMany(recordKey, headKey);
      const next = mutate(entry.value);
      if (next === null) return null;
      const op = this.#kv.atomic().check(entry).set(recordKey, next);
      let seq = 0;
      if (revision && head) {
        seq = head.value?.seq ?? 0;
        const revs = newRevisions(
          collection,
          key,
          revision,
          entry.value,
          next,
          head.value !== null,
        );
        for (const rev of revs) this.#setRevision(op, rev, ++seq);
        op.check(head).set(head.key, { seq } satisfies Head);
      }
      if (await this.#commit(op)) {
        if (revision && this.#retention) {
          await this.#prune(collection, key, revision.field, seq);
        }
        return next;
      }
      await backoff(attempt);
    }
    throw new Error(
      `KV update of ${collection}:${key} lost ${this.#maxAttempts} races; giving up`,
    );
  }

  /** One record with its drafts written over it, or `null`. */
  async getDrafted(
    collection: string,
    key: string,
  ): Promise<ContentRecord | null> {
    try {
      const [entry, drafts] = await this.#kv.getMany<
        [ContentRecord, RecordDrafts]
      >([
        [...this.#prefix, collection, key],
        [...this.#prefix, DRAFTS, collection, key],
      ]);
      return overlay(entry.value, drafts.value);
    } catch (err) {
      throw mapError(err);
    }
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
    return this.#queue.run(collection, key, async () => {
      const recordKey = [...this.#prefix, collection, key];
      const draftKey = [...this.#prefix, DRAFTS, collection, key];
      const headKey = [...this.#prefix, HEADS, collection, key, revision.field];
      for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
        let entries;
        try {
          entries = await this.#kv.getMany<[ContentRecord, RecordDrafts, Head]>(
            [recordKey, draftKey, headKey],
          );
        } catch (err) {
          throw mapError(err);
        }
        const [entry, drafts, head] = entries;
        const before = overlay(entry.value, drafts.value);
        const next = mutate(before);
        if (next === null) return null;
        const revs = newRevisions(
          collection,
          key,
          { ...revision, published: false },
          before,
          next,
          head.value !== null,
        );
        const slot = draftSlot(drafts.value, revision.field);
        const kept = { ...drafts.value };
        for (const name of slot.drop) delete kept[name];
        kept[slot.field] = draftOf(
          next,
          slot.field,
          revision.editor,
          revs.at(-1)!.at,
        );
        const op = this.#kv.atomic().check(entry, drafts, head)
          .set(draftKey, kept);
        let seq = head.value?.seq ?? 0;
        for (const rev of revs) this.#setRevision(op, rev, ++seq);
        op.set(headKey, { seq } satisfies Head);
        if (await this.#commit(op)) {
          if (this.#retention) {
            await this.#prune(collection, key, revision.field, seq);
          }
          return next;
        }
        await backoff(attempt);
      }
      throw new Error(
        `KV draft of ${collection}:${key} lost ${this.#maxAttempts} races; giving up`,
      );
    });
  }

  /** Every draft, oldest first. */
  async drafts(): Promise<Draft[]> {
    const prefix = [...this.#prefix, DRAFTS];
    const found: [string, string, RecordDrafts][] = [];
    try {
      for await (const e of this.#kv.list<RecordDrafts>({ prefix })) {
        const [collection, key] = e.key.slice(prefix.length) as string[];
        found.push([collection, key, e.value]);
      }
    } catch (err) {
      throw mapError(err);
    }
    return listDrafts(found);
  }

  /**
   * Publishes `fields` (`null`: all drafts) in ONE atomic commit that
   * checks every record and drafts entry it read: all fields go public, or
   * (a concurrent write got in between) the whole publish is read and
   * planned again. At most {@linkcode KV_MAX_PUBLISH} fields.
   */
  async publish(
    fields: DraftRef[] | null,
    editor: string,
  ): Promise<PublishResult> {
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const { op, result, pruned } = await this.#planPublish(fields, editor);
      if (result.conflicts.length) {
        return { published: [], conflicts: result.conflicts };
      }
      if (!result.published.length) return result;
      if (await this.#commit(op)) {
        await this.#pruneAll(pruned);
        return result;
      }
      await backoff(attempt);
    }
    throw new Error(`KV publish lost ${this.#maxAttempts} races; giving up`);
  }

  /** Prunes what retention lets go after a publish committed. */
  async #pruneAll(pruned: [string, string, string, number][]) {
    if (!this.#retention) return;
    for (const [c, k, f, seq] of pruned) await this.#prune(c, k, f, seq);
  }

  /**
   * Reads and plans a publish: the atomic operation that checks every entry
   * read and writes the publish (to commit only without conflicts).
   * Throws {@linkcode PublishTooLargeError} past one commit's limits.
   */
  async #planPublish(fields: DraftRef[] | null, editor: string): Promise<{
    op: Deno.AtomicOperation;
    result: PublishResult;
    pruned: [string, string, string, number][];
  }> {
    const groups: [string, string, "all" | DraftRef[]][] = fields
      ? byRecord(fields)
      : (await this.#draftRecords()).map(([c, k]) => [c, k, "all"]);
    const op = this.#kv.atomic();
    const result: PublishResult = { published: [], conflicts: [] };
    const pruned: [string, string, string, number][] = [];
    let mutations = 0;
    for (const [collection, key, selection] of groups) {
      const recordKey = [...this.#prefix, collection, key];
      const draftKey = [...this.#prefix, DRAFTS, collection, key];
      let entry, drafts;
      try {
        [entry, drafts] = await this.#kv.getMany<
          [ContentRecord, RecordDrafts]
        >([recordKey, draftKey]);
      } catch (err) {
        throw mapError(err);
      }
      op.check(entry, drafts);
      const touched = selection === "all"
        ? Object.keys(drafts.value ?? {})
        : selection.map((r) => r.field);
      const heads = await this.#heads(collection, key, touched);
      const plan = planPublish(
        collection,
        key,
        entry.value,
        drafts.value,
        selection,
        editor,
        (f) => heads.get(f) !== undefined,
      );
      result.conflicts.push(...plan.conflicts);
      if (!plan.published.length) continue;
      result.published.push(...plan.published);
      op.set(recordKey, plan.record);
      if (Object.keys(plan.drafts).length) op.set(draftKey, plan.drafts);
      else op.delete(draftKey);
      for (const rev of plan.revisions) {
        const seq = (heads.get(rev.field) ?? 0) + 1;
        heads.set(rev.field, seq);
        this.#setRevision(op, rev, seq);
        pruned.push([collection, key, rev.field, seq]);
      }
      for (const p of plan.published) {
        op.set(
          [...this.#prefix, HEADS, collection, key, p.field],
          {
            seq: heads.get(p.field)!,
          } satisfies Head,
        );
      }
      mutations += 2 + plan.revisions.length * 2 + plan.published.length;
    }
    if (
      !result.conflicts.length && (
        mutations > 1000 || groups.length > 50 ||
        result.published.length > KV_MAX_PUBLISH
      )
    ) {
      throw new PublishTooLargeError(
        `Too many fields to publish at once (limit ${KV_MAX_PUBLISH})`,
      );
    }
    return { op, result, pruned };
  }

  /** Stores a new pending schedule (refused when its id is taken). */
  async addSchedule(schedule: Schedule): Promise<void> {
    const s = checkSchedule(schedule);
    const key = [...this.#prefix, SCHEDULES, s.id];
    const op = this.#kv.atomic().check({ key, versionstamp: null }).set(key, s);
    if (!await this.#commit(op)) throw new Error("schedule id taken");
  }

  /** Every pending and failed schedule, soonest first. */
  async schedules(): Promise<Schedule[]> {
    const out: Schedule[] = [];
    try {
      const prefix = [...this.#prefix, SCHEDULES];
      for await (const e of this.#kv.list<Schedule>({ prefix })) {
        out.push(e.value);
      }
    } catch (err) {
      throw mapError(err);
    }
    return out.sort(bySchedule);
  }

  /** Removes a pending or failed schedule; `false` when there is none. */
  async cancelSchedule(id: string): Promise<boolean> {
    const key = [...this.#prefix, SCHEDULES, id];
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const entry = await this.#kv.get<Schedule>(key);
      if (entry.value === null) return false;
      if (await this.#commit(this.#kv.atomic().check(entry).delete(key))) {
        return true;
      }
      await backoff(attempt);
    }
    throw new Error(`KV cancel lost ${this.#maxAttempts} races; giving up`);
  }

  /**
   * Fires schedule `id` if pending and due: ONE atomic commit checks the
   * schedule entry (so only one instance's commit can succeed) and every
   * record and drafts entry it read, publishes, and removes the schedule
   * (or marks it failed when it cannot publish).
   */
  async fireSchedule(
    id: string,
    now: number = Date.now(),
  ): Promise<ScheduleFiring | null> {
    const key = [...this.#prefix, SCHEDULES, id];
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const entry = await this.#kv.get<Schedule>(key);
      const schedule = entry.value;
      if (!schedule || !isDue(schedule, now)) return null;
      let planned;
      try {
        planned = await this.#planPublish(schedule.fields, schedule.editor);
      } catch (err) {
        if (!(err instanceof PublishTooLargeError)) throw err;
        planned = null;
      }
      const failed = planned
        ? failureOf(planned.result)
        : { at: new Date().toISOString(), reason: "Too many fields" };
      const result = planned && !failed
        ? planned.result
        : { published: [], conflicts: planned?.result.conflicts ?? [] };
      const op = failed
        ? this.#kv.atomic().check(entry).set(key, { ...schedule, failed })
        : planned!.op.check(entry).delete(key);
      if (await this.#commit(op)) {
        if (!failed) await this.#pruneAll(planned!.pruned);
        return { schedule, result, failed };
      }
      await backoff(attempt);
    }
    throw new Error(`KV schedule lost ${this.#maxAttempts} races; giving up`);
  }

  /** Drops one field's draft; `false` when it had none. */
  async discard(
    collection: string,
    key: string,
    field: string,
  ): Promise<boolean> {
    const draftKey = [...this.#prefix, DRAFTS, collection, key];
    return await this.#queue.run(collection, key, async () => {
      for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
        let drafts;
        try {
          drafts = await this.#kv.get<RecordDrafts>(draftKey);
        } catch (err) {
          throw mapError(err);
        }
        if (!drafts.value || !Object.hasOwn(drafts.value, field)) return false;
        const { [field]: _, ...rest } = drafts.value;
        const op = this.#kv.atomic().check(drafts);
        if (Object.keys(rest).length) op.set(draftKey, rest);
        else op.delete(draftKey);
        if (await this.#commit(op)) return true;
        await backoff(attempt);
      }
      throw new Error(`KV discard lost ${this.#maxAttempts} races; giving up`);
    });
  }

  /** Records that have drafts, in key order. */
  async #draftRecords(): Promise<[string, string][]> {
    const prefix = [...this.#prefix, DRAFTS];
    const out: [string, string][] = [];
    try {
      for await (const e of this.#kv.list({ prefix })) {
        out.push(e.key.slice(prefix.length) as [string, string]);
      }
    } catch (err) {
      throw mapError(err);
    }
    return out;
  }

  /** The history heads of `fields` (field → seq; absent: no history). */
  async #heads(
    collection: string,
    key: string,
    fields: string[],
  ): Promise<Map<string, number>> {
    const heads = new Map<string, number>();
    // getMany takes at most 10 keys.
    for (let i = 0; i < fields.length; i += 10) {
      const part = fields.slice(i, i + 10);
      try {
        const got = await this.#kv.getMany<Head[]>(
          part.map((f) => [...this.#prefix, HEADS, collection, key, f]),
        );
        got.forEach((e, j) => {
          if (e.value) heads.set(part[j], e.value.seq);
        });
      } catch (err) {
        throw mapError(err);
      }
    }
    return heads;
  }

  /** Adds a revision and its id entry to an atomic operation. */
  #setRevision(op: Deno.AtomicOperation, rev: Revision, seq: number) {
    const { collection, key, field } = rev;
    op.set([...this.#prefix, REVISIONS, collection, key, field, seq], rev);
    op.set(
      [...this.#prefix, IDS, rev.id],
      [collection, key, field, seq] satisfies IdEntry,
    );
  }

  /**
   * Drops what retention lets go, oldest first, at most 100 per save. Pruned
   * revisions are always the oldest, so sequence numbers above the oldest
   * kept one have no gaps and `seq - n` counts the newer revisions. A
   * failure here never fails the save.
   */
  async #prune(collection: string, key: string, field: string, seq: number) {
    try {
      const base = [...this.#prefix, REVISIONS, collection, key, field];
      const op = this.#kv.atomic();
      let n = 0;
      const now = Date.now();
      for await (
        const e of this.#kv.list<Revision>({
          prefix: base,
          end: [...base, seq],
        }, { limit: 100 })
      ) {
        const revSeq = e.key[e.key.length - 1] as number;
        if (!expired(seq - revSeq, e.value.at, this.#retention, now)) break;
        op.delete(e.key).delete([...this.#prefix, IDS, e.value.id]);
        n++;
      }
      if (n) await op.commit();
    } catch (err) {
      console.error("cms: pruning history failed", err);
    }
  }

  /** A field's revisions, newest first, at most `limit`. */
  async revisions(
    collection: string,
    key: string,
    field: string,
    limit?: number,
  ): Promise<Revision[]> {
    if (limit !== undefined && limit <= 0) return [];
    const out: Revision[] = [];
    const prefix = [...this.#prefix, REVISIONS, collection, key, field];
    try {
      for await (
        const e of this.#kv.list<Revision>({ prefix }, { reverse: true, limit })
      ) out.push(e.value);
    } catch (err) {
      throw mapError(err);
    }
    return out;
  }

  /** One revision by id, or `null`. */
  async revision(id: string): Promise<Revision | null> {
    try {
      const where = await this.#kv.get<IdEntry>([...this.#prefix, IDS, id]);
      if (!where.value) return null;
      const rev = await this.#kv.get<Revision>([
        ...this.#prefix,
        REVISIONS,
        ...where.value,
      ]);
      return rev.value;
    } catch (err) {
      throw mapError(err);
    }
  }

  /**
   * Every record, then every revision (oldest first per field), then every
   * draft.
   */
  async *dump(): AsyncIterable<StoreLine> {
    const depth = this.#prefix.length;
    const drafts: [string, string, RecordDrafts][] = [];
    for await (const e of this.#kv.list<unknown>({ prefix: this.#prefix })) {
      const part = e.key[depth];
      if (typeof part === "string" && e.key.length === depth + 2) {
        yield {
          type: "record",
          collection: part,
          key: e.key[depth + 1] as string,
          record: e.value as ContentRecord,
        };
      } else if (part === REVISIONS) {
        yield { type: "revision", revision: e.value as Revision };
      } else if (part === DRAFTS) {
        const [collection, key] = e.key.slice(depth + 1) as string[];
        drafts.push([collection, key, e.value as RecordDrafts]);
      }
    }
    yield* draftLines(drafts);
  }

  /** Loads a dump into this empty store; throws on a non-empty one. */
  async load(
    lines: AsyncIterable<StoreLine> | Iterable<StoreLine>,
  ): Promise<void> {
    for await (
      const _ of this.#kv.list({ prefix: this.#prefix }, { limit: 1 })
    ) {
      throw new Error("store is not empty");
    }
    const seqs = new Map<string, number>();
    for await (const line of lines) {
      const op = this.#kv.atomic();
      if (line.type === "record") {
        op.set([...this.#prefix, line.collection, line.key], line.record);
      } else if (line.type === "draft") {
        const { collection, key, field, value, at, editor } = checkDraft(
          line.draft,
        );
        const draftKey = [...this.#prefix, DRAFTS, collection, key];
        const drafts = await this.#kv.get<RecordDrafts>(draftKey);
        op.check(drafts).set(draftKey, {
          ...drafts.value,
          [field]: { value, at, editor },
        });
      } else {
        const rev = checkRevision(line.revision);
        const field = [rev.collection, rev.key, rev.field];
        const seq = (seqs.get(JSON.stringify(field)) ?? 0) + 1;
        seqs.set(JSON.stringify(field), seq);
        this.#setRevision(op, rev, seq);
        op.set([...this.#prefix, HEADS, ...field], { seq } satisfies Head);
      }
      if (!await this.#commit(op)) throw new Error("import write failed");
    }
  }

  async #readMany(
    recordKey: Deno.KvKey,
    headKey: Deno.KvKey | null,
  ): Promise<
    [Deno.KvEntryMaybe<ContentRecord>, Deno.KvEntryMaybe<Head> | null]
  > {
    try {
      if (!headKey) {
        return [await this.#kv.get<ContentRecord>(recordKey), null];
      }
      const [entry, head] = await this.#kv.getMany<[ContentRecord, Head]>([
        recordKey,
        headKey,
      ]);
      return [entry, head];
    } catch (err) {
      throw mapError(err);
    }
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

  async #commit(op: Deno.AtomicOperation): Promise<boolean> {
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
