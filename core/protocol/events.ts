/**
 * Editor events: the event stream `GET /api/cms/events?page=PATH`
 * (Server-Sent Events; the data of each event is JSON, see
 * {@linkcode SavedEventData} for the list of events) and its presence
 * report `POST /api/cms/events` (a {@linkcode PresenceBody}).
 *
 * @module
 */

/**
 * The JSON body of a presence report (`POST /api/cms/events`): what the
 * editor of one stream has focused and changed but not saved.
 *
 * @example
 * ```ts
 * import type { PresenceBody } from "./events.ts";
 * const body: PresenceBody = {
 *   stream: "3fa2c91d07b6e5a4",
 *   focus: "pages:home:title",
 *   dirty: ["pages:home:title"],
 * };
 * ```
 */
export interface PresenceBody {
  /** The stream's id, from its `hello` event. */
  stream: string;
  /** The field address focused, or `null`. */
  focus: string | null;
  /** Field addresses changed but not saved (at most 32). */
  dirty: string[];
}

/**
 * One editor on the page in a `presence` event. `focus` and `dirty` name
 * only fields the listener may edit.
 */
export interface PresenceEntry {
  /** The stream's id (one per open page). */
  stream: string;
  /** The editor's id (their name when the host has no id). */
  editor: string;
  /** The editor's display name. */
  name: string;
  /** The field focused, or `null`. */
  focus: string | null;
  /** Fields changed but not saved. */
  dirty: string[];
}

/**
 * The data of an event of the stream, by event name:
 * - `hello`: `{ stream }`, this stream's id (for presence reports);
 * - `presence`: `{ editors }`, everybody on the page, this stream included,
 *   first; then `{ set, gone }`, the editors who came, changed or left;
 * - `saved`: a field the listener may edit was saved or restored;
 * - `published`: drafts went live (draft mode), fields the listener may edit;
 * - `drafts`: the drafted fields the listener may edit, after a change;
 * - `schedule`: a schedule fired (published, or failed and kept with its
 *   reason): re-read the schedules;
 * - `resync`: events were missed; re-read the page's values.
 *
 * @example
 * ```ts
 * import type { SavedEventData } from "./events.ts";
 * const saved: SavedEventData = {
 *   field: "pages:home:title",
 *   value: "Hello",
 *   version: "1x2y3z",
 *   by: "Ada",
 * };
 * ```
 */
export interface SavedEventData {
  /** The field address. */
  field: string;
  /** The value now stored (in draft mode: the draft). */
  value: string | string[];
  /** Its version (`contentVersion`). */
  version: string;
  /** Who saved it. */
  by: string;
}

/**
 * The data of a `presence` event: the whole board (`editors`, first and
 * after a reader fell behind), or what changed since (`set`, `gone`).
 */
export interface PresenceEventData {
  /**
   * Everybody on the page, this stream included (at most 100: those with a
   * focus or unsaved fields first; the rest arrive as they change).
   */
  editors?: PresenceEntry[];
  /** Editors who came or changed: replace the entry of their stream. */
  set?: PresenceEntry[];
  /** Streams that left. */
  gone?: string[];
}

/** The data of a `published` event. */
export interface PublishedEventData {
  /** The fields that went live. */
  fields: string[];
  /** Who published them. */
  by: string;
}

/** The data of a `drafts` event. */
export interface DraftsEventData {
  /** The drafted fields now. */
  fields: string[];
}

/**
 * The data of a `schedule` event: a schedule fired. Its fields that went
 * live come as a `published` event; a failed one is kept, and its reason
 * is in the schedule listing (`GET /api/cms/schedule`).
 */
export interface ScheduleEventData {
  /** The schedule's id. */
  id: string;
  /** Its fields the listener may edit. */
  fields: string[];
  /** `true` when it could not publish (nothing of it went live). */
  failed: boolean;
}
