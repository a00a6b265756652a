/**
 * An in-memory {@linkcode HistoryStore}, for tests and demos. Nothing
 * survives a restart.
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
import {
  byRecord,
  checkDraft,
  draftLines,
  listDrafts,
  overlay,
  planDraft,
  planPublish,
  type RecordDrafts,
  type RecordPublish,
  withoutDraft,
} from "./draft.ts";
import { copyRecord } from "./_record.ts";
import {
  checkSchedule,
  failureOf,
  isDue,
  type Schedule,
  type ScheduleFailure,
  type ScheduleFiring,
  type ScheduleQuery,
  type ScheduleStore,
  selectSchedules,
} from "./schedule.ts";
import type { Approval, Comment } from "../../core/protocol/review.ts";
import type { CommentExpect, CommentUpdate, ReviewStore } from "./review.ts";
import { MemoryReviews } from "./_reviews.ts";

/** Options of {@linkcode MemoryContentStore}. */
export interface MemoryContentStoreOptions {
  /** How long history is kept. Default: everything. */
  retention?: Retention;
}

/**
 * A `Map`-backed content store with history. Records and revisions go in and
 * come out as structured clones, so callers can never change stored state by
 * mutating what they got.
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "@inplace/cms";
 * const store = new MemoryContentStore({
 *   "pages:home": { title: "Hello", features: ["Fast", "Small"] },
 * });
 * await store.update("pages", "home", (r) => ({ ...r, title: "Hi" }), {
 *   field: "title",
 *   editor: "Ada",
 * });
 * (await store.get("pages", "home"))?.title; // "Hi"
 * (await store.revisions("pages", "home", "title")).length; // 2
 * ```
 */
export class MemoryContentStore
  implements HistoryStore, DraftStore, ScheduleStore, ReviewStore {
  #records = new Map<string, ContentRecord>();
  /** Field → its revisions, oldest first. */
  #history = new Map<string, Revision[]>();
  #byId = new Map<string, Revision>();
  /** Record → its drafts. */
  #drafts = new Map<string, RecordDrafts>();
  readonly #retention: Retention | undefined;
  /** Schedule id → schedule (pending or failed). */
  #schedules = new Map<string, Schedule>();
  /** Comments and review verdicts. */
  #reviews = new MemoryReviews();

  /**
   * Creates a store, optionally seeded.
   *
   * @param seed Initial records keyed by `"<collection>:<key>"` (split at the
   * first colon).
   */
  constructor(
    seed: Record<string, ContentRecord> = {},
    options: MemoryContentStoreOptions = {},
  ) {
    checkRetention(options.retention);
    this.#retention = options.retention;
    for (const [id, record] of Object.entries(seed)) {
      const at = id.indexOf(":");
      if (at < 0) {
        throw new TypeError(`seed key "${id}" needs "collection:key"`);
      }
      this.#records.set(
        mapKey(id.slice(0, at), id.slice(at + 1)),
        structuredClone(record),
      );
    }
  }

  /** Reads a copy of one record, or `null` when it does not exist. */
  get(collection: string, key: string): Promise<ContentRecord | null> {
    const record = this.#records.get(mapKey(collection, key));
    return Promise.resolve(record ? copyRecord(record) : null);
  }

  /**
   * Replaces one record with what `mutate` returns (`null`: write nothing),
   * and records `revision` with it. Runs synchronously between awaits, so it
   * is atomic in one process.
   */
  update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision?: RevisionInput,
  ): Promise<ContentRecord | null> {
    try {
      const id = mapKey(collection, key);
      const current = this.#records.get(id) ?? null;
      const next = mutate(current ? copyRecord(current) : null);
      if (next === null) return Promise.resolve(null);
      const stored = copyRecord(next);
      if (revision) {
        const field = mapKey(collection, key, revision.field);
        const list = this.#history.get(field) ?? [];
        const revs = newRevisions(
          collection,
          key,
          revision,
          current,
          stored,
          list.length > 0,
        );
        // Everything that can throw is done: write both, then prune.
        for (const rev of revs) this.#add(rev);
        this.#prune(field);
      }
      this.#records.set(id, stored);
      return Promise.resolve(next);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** One record with its drafts written over it (a copy), or `null`. */
  getDrafted(collection: string, key: string): Promise<ContentRecord | null> {
    const id = mapKey(collection, key);
    const record = overlay(
      this.#records.get(id) ?? null,
      this.#drafts.get(id),
    );
    return Promise.resolve(record ? copyRecord(record) : null);
  }

  /** Saves the draft of `revision.field` from what `mutate` returns. */
  updateDraft(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision: RevisionInput,
  ): Promise<ContentRecord | null> {
    try {
      const id = mapKey(collection, key);
      const field = mapKey(collection, key, revision.field);
      const plan = planDraft(
        collection,
        key,
        this.#records.get(id) ?? null,
        this.#drafts.get(id),
        mutate,
        revision,
        (this.#history.get(field)?.length ?? 0) > 0,
      );
      if (plan === null) return Promise.resolve(null);
      for (const rev of plan.revisions) this.#add(rev);
      this.#prune(field);
      this.#drafts.set(id, plan.drafts);
      return Promise.resolve(copyRecord(plan.record));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Every draft, oldest first. */
  drafts(): Promise<Draft[]> {
    return Promise.resolve(listDrafts(
      [...this.#drafts].map(([id, drafts]) => {
        const [collection, key] = JSON.parse(id) as [string, string];
        return [collection, key, drafts];
      }),
    ));
  }

  /** Publishes `fields` (`null`: all drafts), all or none. */
  publish(fields: DraftRef[] | null, editor: string): Promise<PublishResult> {
    try {
      return Promise.resolve(this.#publish(fields, editor));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The publish, synchronously (so a schedule can settle with it). */
  #publish(fields: DraftRef[] | null, editor: string): PublishResult {
    const groups: [string, string, "all" | DraftRef[]][] = fields
      ? byRecord(fields)
      : [...this.#drafts.keys()].sort().map((id) => {
        const [collection, key] = JSON.parse(id) as [string, string];
        return [collection, key, "all"];
      });
    const plans: [string, RecordPublish][] = groups.map(
      ([collection, key, selection]) => {
        const id = mapKey(collection, key);
        return [
          id,
          planPublish(
            collection,
            key,
            this.#records.get(id) ?? null,
            this.#drafts.get(id),
            selection,
            editor,
            (f) =>
              (this.#history.get(mapKey(collection, key, f))?.length ?? 0) >
                0,
          ),
        ];
      },
    );
    const conflicts = plans.flatMap(([, p]) => p.conflicts);
    if (conflicts.length) {
      return { published: [], conflicts };
    }
    for (const [id, plan] of plans) {
      if (!plan.published.length) continue;
      this.#records.set(id, structuredClone(plan.record));
      if (Object.keys(plan.drafts).length) this.#drafts.set(id, plan.drafts);
      else this.#drafts.delete(id);
      for (const rev of plan.revisions) this.#add(rev);
      for (const rev of plan.revisions) {
        this.#prune(mapKey(rev.collection, rev.key, rev.field));
      }
    }
    return {
      published: plans.flatMap(([, p]) => p.published),
      conflicts: [],
    };
  }

  /** Drops one field's draft; `false` when it had none. */
  discard(collection: string, key: string, field: string): Promise<boolean> {
    const id = mapKey(collection, key);
    const rest = withoutDraft(this.#drafts.get(id), field);
    if (rest === undefined) return Promise.resolve(false);
    if (rest) this.#drafts.set(id, rest);
    else this.#drafts.delete(id);
    return Promise.resolve(true);
  }

  /** Stores a new pending schedule. */
  addSchedule(schedule: Schedule): Promise<void> {
    try {
      const s = structuredClone(checkSchedule(schedule));
      if (this.#schedules.has(s.id)) throw new Error("schedule id taken");
      this.#schedules.set(s.id, s);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The pending and failed schedules `query` selects, soonest first. */
  schedules(query?: ScheduleQuery): Promise<Schedule[]> {
    return Promise.resolve(
      structuredClone(selectSchedules(this.#schedules.values(), query)),
    );
  }

  /** Schedule `id`, pending or failed; `null` when there is none. */
  schedule(id: string): Promise<Schedule | null> {
    return Promise.resolve(structuredClone(this.#schedules.get(id) ?? null));
  }

  /** How many schedules (pending and failed) are kept. */
  scheduleCount(): Promise<number> {
    return Promise.resolve(this.#schedules.size);
  }

  /** Marks pending schedule `id` failed; `null` when it is not pending. */
  failSchedule(
    id: string,
    failure: ScheduleFailure,
  ): Promise<Schedule | null> {
    const schedule = this.#schedules.get(id);
    if (!schedule || schedule.failed) return Promise.resolve(null);
    const next = structuredClone({ ...schedule, failed: failure });
    this.#schedules.set(id, next);
    return Promise.resolve(structuredClone(next));
  }

  /** Removes a pending or failed schedule; `false` when there is none. */
  cancelSchedule(id: string): Promise<boolean> {
    return Promise.resolve(this.#schedules.delete(id));
  }

  /**
   * Fires schedule `id` if pending and due: the publish and the settling of
   * the schedule run synchronously (one step), so in one process it fires
   * once.
   */
  fireSchedule(
    id: string,
    now: number = Date.now(),
  ): Promise<ScheduleFiring | null> {
    const schedule = this.#schedules.get(id);
    if (!schedule || !isDue(schedule, now)) return Promise.resolve(null);
    try {
      const result = this.#publish(schedule.fields, schedule.editor);
      const failed = failureOf(result);
      if (failed) this.#schedules.set(id, { ...schedule, failed });
      else this.#schedules.delete(id);
      return Promise.resolve({
        schedule: structuredClone(schedule),
        result,
        failed,
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A field's revisions, newest first, at most `limit`. */
  revisions(
    collection: string,
    key: string,
    field: string,
    limit = Infinity,
  ): Promise<Revision[]> {
    const list = this.#history.get(mapKey(collection, key, field)) ?? [];
    const n = Math.max(0, Math.min(limit, list.length));
    return Promise.resolve(
      structuredClone(list.slice(list.length - n).reverse()),
    );
  }

  /** One revision by id, or `null`. */
  revision(id: string): Promise<Revision | null> {
    const rev = this.#byId.get(id);
    return Promise.resolve(rev ? structuredClone(rev) : null);
  }

  /** Every record, then every revision (oldest first per field), then every draft. */
  async *dump(): AsyncIterable<StoreLine> {
    for (const [id, record] of this.#records) {
      const [collection, key] = JSON.parse(id) as [string, string];
      yield {
        type: "record",
        collection,
        key,
        record: structuredClone(record),
      };
    }
    for (const list of this.#history.values()) {
      for (const rev of list) {
        yield { type: "revision", revision: structuredClone(rev) };
      }
    }
    yield* draftLines(
      [...this.#drafts.keys()].sort().map((id) => {
        const [collection, key] = JSON.parse(id) as [string, string];
        return [collection, key, this.#drafts.get(id)!];
      }),
    );
    yield* this.#reviews.lines();
  }

  /** Loads a dump into this empty store; throws on a non-empty one. */
  async load(
    lines: AsyncIterable<StoreLine> | Iterable<StoreLine>,
  ): Promise<void> {
    if (
      this.#records.size || this.#byId.size || this.#drafts.size ||
      !this.#reviews.empty
    ) {
      throw new Error("store is not empty");
    }
    for await (const line of lines) {
      if (line.type === "record") {
        this.#records.set(
          mapKey(line.collection, line.key),
          structuredClone(line.record),
        );
      } else if (line.type === "draft") {
        const { collection, key, field, value, at, editor } = checkDraft(
          line.draft,
        );
        const id = mapKey(collection, key);
        this.#drafts.set(id, {
          ...this.#drafts.get(id),
          [field]: { value: structuredClone(value), at, editor },
        });
      } else if (line.type === "revision") {
        this.#add(structuredClone(checkRevision(line.revision)));
      } else this.#reviews.load(line);
    }
  }

  /** Stores a new comment (see {@linkcode ReviewStore.addComment}). */
  addComment(comment: Comment): Promise<Comment> {
    return this.#reviews.addComment(comment);
  }

  /** Changes a comment (see {@linkcode ReviewStore.updateComment}). */
  updateComment(
    id: string,
    patch: CommentUpdate,
    expect?: CommentExpect,
  ): Promise<Comment | null> {
    return this.#reviews.updateComment(id, patch, expect);
  }

  /** Deletes a comment (see {@linkcode ReviewStore.deleteComment}). */
  deleteComment(id: string, expect?: CommentExpect): Promise<boolean> {
    return this.#reviews.deleteComment(id, expect);
  }

  /** The page's comments, oldest first. */
  comments(page: string): Promise<Comment[]> {
    return this.#reviews.comments(page);
  }

  /** Comment `id`, or `null`. */
  comment(id: string): Promise<Comment | null> {
    return this.#reviews.comment(id);
  }

  /** Records a verdict (the page keeps its newest 100). */
  addApproval(approval: Approval): Promise<Approval> {
    return this.#reviews.addApproval(approval);
  }

  /** The page's verdicts, oldest first. */
  approvals(page: string): Promise<Approval[]> {
    return this.#reviews.approvals(page);
  }

  #add(rev: Revision) {
    const field = mapKey(rev.collection, rev.key, rev.field);
    const list = this.#history.get(field) ?? [];
    list.push(rev);
    this.#history.set(field, list);
    this.#byId.set(rev.id, rev);
  }

  #prune(field: string) {
    const list = this.#history.get(field);
    // Without retention everything is kept: no walk over the history.
    if (!list || !this.#retention) return;
    const now = Date.now();
    const kept = list.filter((rev, i) =>
      !expired(list.length - 1 - i, rev.at, this.#retention, now)
    );
    if (kept.length === list.length) return;
    for (const rev of list) if (!kept.includes(rev)) this.#byId.delete(rev.id);
    this.#history.set(field, kept);
  }
}

function mapKey(...parts: string[]): string {
  return JSON.stringify(parts);
}
