/**
 * Scheduled publishing: `POST /api/cms/publish` with `at` is accepted for
 * later ({@linkcode SCHEDULED}, a {@linkcode ScheduleAnswer});
 * `GET /api/cms/schedule` → {@linkcode ScheduleListing}, the pending and
 * failed schedules, a page at a time. A schedule of more than 100 fields is
 * refused (413), and so is one more when the site keeps 500 (409, plain
 * text, not a publish conflict).
 *
 * @module
 */

/** The status of a publish accepted for later (`at` given): 202 Accepted. */
export const SCHEDULED = 202;

/**
 * The 202 answer of `POST /api/cms/publish` with `at`: the schedule made.
 *
 * @example
 * ```ts
 * import type { ScheduleAnswer } from "./schedule.ts";
 * const answer: ScheduleAnswer = {
 *   id: "0c8e…",
 *   at: "2030-01-01T09:00:00.000Z",
 *   fields: ["pages:home:title"],
 * };
 * ```
 */
export interface ScheduleAnswer {
  /** The schedule's id (to cancel it). */
  id: string;
  /** When it fires, ISO 8601 in UTC. */
  at: string;
  /** The field addresses it publishes. */
  fields: string[];
}

/** One schedule in a {@linkcode ScheduleListing}. */
export interface ScheduleEntry extends ScheduleAnswer {
  /** Who scheduled it. */
  editor: string;
  /** When it was made, ISO 8601. */
  created: string;
  /** `pending` until it fires; `failed` when it fired and could not publish. */
  state: "pending" | "failed";
  /** Why it failed (state `failed`). */
  reason?: string;
  /** The addresses whose draft changed after scheduling (state `failed`). */
  conflicts?: string[];
}

/**
 * The 200 answer of `GET /api/cms/schedule`: pending and failed schedules,
 * soonest first.
 *
 * @example
 * ```ts
 * import type { ScheduleListing } from "./schedule.ts";
 * const listing: ScheduleListing = { schedules: [] };
 * ```
 */
export interface ScheduleListing {
  /** Soonest first. */
  schedules: ScheduleEntry[];
  /**
   * When there may be more: the `cursor` of the next page
   * (`GET /api/cms/schedule?cursor=…`; a page holds at most `limit`,
   * 1–100, default 100).
   */
  next?: string;
}
