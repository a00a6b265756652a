/**
 * Scheduled publishing, the part every store shares: what a schedule is,
 * the contract a store implements to keep and fire schedules exactly once,
 * and the rule that turns a publish result into a schedule's outcome.
 *
 * @module
 */
import type { DraftRef, DraftStore, PublishResult } from "./types.ts";
import { storedAddress } from "../../core/stored_address.ts";

/**
 * A publish planned for a time: the fields are fixed when it is made, their
 * values are the drafts as they are when it fires.
 */
export interface Schedule {
  /** Unique across the store (a UUID). */
  id: string;
  /** When it fires, ISO 8601 in UTC. */
  at: string;
  /**
   * The fields it publishes. A `version` (the draft the editor saw when
   * scheduling) makes a later change of that draft a conflict.
   */
  fields: DraftRef[];
  /** Who scheduled it; the published revisions carry this name. */
  editor: string;
  /** When it was made, ISO 8601. */
  created: string;
  /** Set when it fired and could not publish: nothing of it went public. */
  failed?: ScheduleFailure;
}

/** Why a schedule could not publish. */
export interface ScheduleFailure {
  /** When it fired, ISO 8601. */
  at: string;
  /** A short plain-text reason, shown to editors. */
  reason: string;
  /** The fields whose draft changed since it was scheduled. */
  conflicts?: string[];
}

/** What {@linkcode ScheduleStore.schedules} lists. */
export interface ScheduleQuery {
  /** Only pending schedules due at this time (ms), i.e. `at <= dueBy`. */
  dueBy?: number;
  /** Only pending schedules. */
  pending?: boolean;
  /** Only schedules after this one in the order (the last of a page). */
  after?: ScheduleCursor;
  /** At most this many. */
  limit?: number;
}

/** A place in the order of schedules: soonest first, then by id. */
export interface ScheduleCursor {
  /** The time, ISO 8601. */
  at: string;
  /** The id. */
  id: string;
}

/** What firing one schedule did. */
export interface ScheduleFiring {
  /** The schedule as it was when it fired. */
  schedule: Schedule;
  /** The publish: `published` went public, or `conflicts` stopped it. */
  result: PublishResult;
  /** Set when nothing was published (the schedule is kept as failed). */
  failed?: ScheduleFailure;
}

/**
 * A {@linkcode DraftStore} that also keeps schedules. The memory, Deno KV
 * and PostgreSQL stores implement it. `fireSchedule` claims, publishes and
 * settles one schedule in ONE atomic operation, so a schedule publishes at
 * most once however many instances try, and a crash leaves it pending (to
 * fire at the next start) or settled, never half done.
 */
export interface ScheduleStore extends DraftStore {
  /** Stores a new pending schedule. */
  addSchedule(schedule: Schedule): Promise<void>;
  /**
   * The pending and failed schedules, soonest first (then by id), as
   * `query` narrows them: every one without a query. Stores read them
   * through an index by time, so a page or the due ones cost what they
   * hold, not what the store holds.
   */
  schedules(query?: ScheduleQuery): Promise<Schedule[]>;
  /** Schedule `id`, pending or failed; `null` when there is none. */
  schedule(id: string): Promise<Schedule | null>;
  /** How many schedules (pending and failed) the store keeps. */
  scheduleCount(): Promise<number>;
  /**
   * Marks schedule `id` failed with `failure` if it is still pending
   * (nothing of it is published): the scheduler's way to settle one whose
   * firing threw. The schedule as it now is; `null` when it is not pending.
   */
  failSchedule(id: string, failure: ScheduleFailure): Promise<Schedule | null>;
  /** Removes a pending or failed schedule; `false` when there is none. */
  cancelSchedule(id: string): Promise<boolean>;
  /**
   * Fires schedule `id` if it is pending and due at `now`: publishes its
   * fields (as {@linkcode DraftStore.publish} does, all or none) and, in
   * the same atomic operation, removes it; when it cannot publish (a
   * conflict, or no draft left) it is kept, marked failed with the reason.
   * `null` when it is not pending, not due, or another instance has it.
   */
  fireSchedule(id: string, now?: number): Promise<ScheduleFiring | null>;
}

/**
 * Whether `store` keeps schedules.
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "@inplace/cms";
 * import { isScheduleStore } from "./schedule.ts";
 * isScheduleStore(new MemoryContentStore()); // true
 * ```
 */
export function isScheduleStore(store: unknown): store is ScheduleStore {
  const s = store as Partial<ScheduleStore> | null;
  return typeof s?.addSchedule === "function" &&
    typeof s.schedules === "function" &&
    typeof s.cancelSchedule === "function" &&
    typeof s.fireSchedule === "function";
}

/**
 * Whether a schedule is pending and its time has come.
 *
 * @example
 * ```ts
 * import { isDue } from "./schedule.ts";
 * isDue({ id: "1", at: "2000-01-01T00:00:00Z", fields: [], editor: "Ada",
 *   created: "2000-01-01T00:00:00Z" }, Date.now()); // true
 * ```
 */
export function isDue(schedule: Schedule, now: number): boolean {
  return !schedule.failed && Date.parse(schedule.at) <= now;
}

/**
 * The outcome of firing a schedule from its publish result: `undefined`
 * when something went public, else the failure to record (a conflict, or
 * nothing left to publish).
 *
 * @example
 * ```ts
 * import { failureOf } from "./schedule.ts";
 * failureOf({ published: [], conflicts: [] }, "2030-01-01T00:00:00Z")?.reason;
 * // "Nothing to publish: the fields have no drafts"
 * ```
 */
export function failureOf(
  result: PublishResult,
  at: string = new Date().toISOString(),
): ScheduleFailure | undefined {
  if (result.conflicts.length) {
    const conflicts = result.conflicts.map(storedAddress);
    return {
      at,
      reason: `Conflict: ${conflicts.join(", ")} changed after scheduling`,
      conflicts,
    };
  }
  if (!result.published.length) {
    return { at, reason: "Nothing to publish: the fields have no drafts" };
  }
  return undefined;
}

/**
 * Soonest first, then by id (every store lists schedules in one order).
 *
 * @example
 * ```ts
 * import { bySchedule } from "./schedule.ts";
 * const s = (id: string, at: string) =>
 *   ({ id, at, fields: [], editor: "Ada", created: at });
 * [s("b", "2030-01-02T00:00:00Z"), s("a", "2030-01-01T00:00:00Z")]
 *   .sort(bySchedule).map((x) => x.id); // ["a", "b"]
 * ```
 */
export function bySchedule(a: ScheduleCursor, b: ScheduleCursor): number {
  const d = Date.parse(a.at) - Date.parse(b.at);
  return d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The schedules of `all` that `query` selects, in order: how a store that
 * holds its schedules in memory answers {@linkcode ScheduleStore.schedules}.
 *
 * @example
 * ```ts
 * import { selectSchedules } from "./schedule.ts";
 * selectSchedules([], { dueBy: Date.now(), limit: 10 }); // []
 * ```
 */
export function selectSchedules(
  all: Iterable<Schedule>,
  query: ScheduleQuery = {},
): Schedule[] {
  const { dueBy, after } = query;
  const pending = query.pending || dueBy !== undefined;
  const out = [...all].filter((s) =>
    !(pending && s.failed) &&
    !(dueBy !== undefined && Date.parse(s.at) > dueBy) &&
    !(after && bySchedule(s, after) <= 0)
  ).sort(bySchedule);
  return query.limit === undefined ? out : out.slice(0, query.limit);
}

/**
 * Checks a schedule before it is stored; throws a `TypeError` otherwise.
 *
 * @example
 * ```ts
 * import { checkSchedule } from "./schedule.ts";
 * checkSchedule({ id: "1", at: "2030-01-01T00:00:00.000Z", editor: "Ada",
 *   created: "2029-01-01T00:00:00.000Z",
 *   fields: [{ collection: "pages", key: "home", field: "title" }] });
 * ```
 */
export function checkSchedule(value: Schedule): Schedule {
  const ok = typeof value?.id === "string" && value.id !== "" &&
    typeof value.at === "string" && !Number.isNaN(Date.parse(value.at)) &&
    typeof value.created === "string" && typeof value.editor === "string" &&
    Array.isArray(value.fields) && value.fields.length > 0 &&
    value.fields.every((f) =>
      typeof f?.collection === "string" && typeof f.key === "string" &&
      typeof f.field === "string" &&
      (f.version === undefined || typeof f.version === "string")
    );
  if (!ok) throw new TypeError("invalid schedule");
  return value;
}
