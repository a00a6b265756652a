/**
 * The wire protocol between the browser client and the two endpoints,
 * declared once: request and answer shapes, header names and status codes.
 *
 * - Save endpoint: `PATCH` (or `POST`) a JSON {@linkcode SaveBody}; success
 *   is `204` with the stored value's version in {@linkcode VERSION_HEADER};
 *   a stale `version` is `409` with a {@linkcode ConflictBody}.
 * - Media endpoint: `POST` raw image bytes; success is `200` with a
 *   {@linkcode MediaAnswer}.
 * - History endpoint: `GET ?field=…` → {@linkcode HistoryListing};
 *   `GET ?field=…&revision=…` → {@linkcode RevisionBody}; `POST` a
 *   {@linkcode RestoreBody} → `204` like a save.
 * - Draft endpoints: `GET` drafts → {@linkcode DraftsListing}; `POST` a
 *   {@linkcode PublishBody} → {@linkcode PublishAnswer} (`409`:
 *   {@linkcode PublishConflictBody}); `POST` a {@linkcode DiscardBody} to
 *   discard → `204`.
 * - Preview endpoint: `POST` a {@linkcode PreviewBody} →
 *   {@linkcode PreviewAnswer}.
 * - Every error is a short plain-text reason ({@linkcode ErrorBody}) with
 *   `Content-Type: text/plain; charset=utf-8`.
 *
 * @module
 */

/**
 * The JSON body of a save request: one field of one record.
 *
 * @example
 * ```ts
 * import type { SaveBody } from "./wire.ts";
 * const body: SaveBody = {
 *   collection: "pages",
 *   key: "home",
 *   field: "features.2",
 *   value: "Small",
 *   version: "1x2y3z",
 * };
 * ```
 */
export interface SaveBody {
  /** The record's collection (an address part). */
  collection: string;
  /** The record's key (an address part). */
  key: string;
  /** The field name, or `name.N` for item N of a list field. */
  field: string;
  /**
   * The new value: text for plain fields and list items (numbers and
   * booleans are stored as text), HTML for rich fields, a URL for image
   * fields.
   */
  value: string | number | boolean;
  /** The version the editor started from; a mismatch is a 409. */
  version?: string;
}

/**
 * The response header of a 204 save answer with the stored value's version
 * (`contentVersion` of it), to send back as the next save's `version`.
 *
 * @example
 * ```ts
 * import { VERSION_HEADER } from "./wire.ts";
 * const res = new Response(null, { status: 204, headers: { [VERSION_HEADER]: "abc" } });
 * res.headers.get(VERSION_HEADER); // "abc"
 * ```
 */
export const VERSION_HEADER = "CMS-Version";

/**
 * Header on a `204` save answer for a rich field: how many elements,
 * comments and attributes the sanitizer removed or unwrapped from the value
 * sent (absent when nothing was removed), so the editor can be told.
 *
 * @example
 * ```ts
 * import { REMOVED_HEADER } from "./wire.ts";
 * const res = new Response(null, { status: 204, headers: { [REMOVED_HEADER]: "2" } });
 * Number(res.headers.get(REMOVED_HEADER) ?? 0); // 2
 * ```
 */
export const REMOVED_HEADER = "CMS-Removed";

/**
 * The body of a 409 save answer: the value stored now and its version.
 *
 * @example
 * ```ts
 * import type { ConflictBody } from "./wire.ts";
 * const body: ConflictBody = { error: "conflict", value: "Theirs", version: "9k2" };
 * ```
 */
export interface ConflictBody {
  /** Always `"conflict"`. */
  error: "conflict";
  /** The value stored now. */
  value: string;
  /** Its version. */
  version: string;
}

/**
 * The 200 answer of the media endpoint: the stored image.
 *
 * @example
 * ```ts
 * import type { MediaAnswer } from "./wire.ts";
 * const answer: MediaAnswer = {
 *   key: "3f2c.png",
 *   url: "/media/3f2c.png",
 *   width: 640,
 *   height: 480,
 *   type: "image/png",
 *   variants: [
 *     { url: "/media/3f2c-480w.webp", width: 480, height: 360, type: "image/webp" },
 *   ],
 *   processed: true,
 * };
 * ```
 */
export interface MediaAnswer {
  /** Storage key of the stored object. */
  key: string;
  /** Public URL: the storage's public base, a slash, then the key. */
  url: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** The verified MIME type the object was stored with. */
  type: string;
  /**
   * Smaller copies beside the original (`<key stem>-<width>w.<ext>`), by
   * ascending width; never wider than the original. Empty when none.
   */
  variants: MediaVariant[];
  /**
   * `true`: decoded and normalized (orientation applied, metadata
   * stripped). `false`: the server could not load its image decoder, so
   * only the headers were checked and the bytes are stored as uploaded.
   */
  processed: boolean;
}

/** One responsive variant in a {@linkcode MediaAnswer}. */
export interface MediaVariant {
  /** Public URL, under the same media base as the original. */
  url: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** MIME type, e.g. `image/webp`. */
  type: string;
}

/** One entry of a {@linkcode HistoryListing}. */
export interface RevisionSummary {
  /** The revision's id. */
  id: string;
  /** When it was written, ISO 8601. */
  at: string;
  /** Who wrote it; `null` for the value from before history began. */
  editor: string | null;
  /** Size of the value in UTF-8 bytes. */
  bytes: number;
  /** When this value went public, ISO 8601; absent for a draft. */
  published?: string;
}

/** History endpoint, `GET ?field=…[&limit=N]`: the field's revisions. */
export interface HistoryListing {
  /** The field's address, as asked. */
  field: string;
  /** Newest first; the first is the field's current value. */
  revisions: RevisionSummary[];
}

/** History endpoint, `GET ?field=…&revision=…`: one revision with its value. */
export interface RevisionBody {
  /** The revision's id. */
  id: string;
  /** When it was written, ISO 8601. */
  at: string;
  /** Who wrote it; `null` for the value from before history began. */
  editor: string | null;
  /** The stored value. */
  value: string | string[];
}

/**
 * History endpoint, `POST`: restore a revision of a field (answered like a
 * save: `204` with {@linkcode VERSION_HEADER}, `409` on a stale `version`).
 */
export interface RestoreBody {
  /** The field's address, e.g. `pages:home:title`. */
  field: string;
  /** The revision to restore. */
  revision: string;
  /** The field's version the editor saw; a mismatch is a 409. */
  version?: string;
}

/** Drafts endpoint, `GET`: one entry per unpublished field, oldest first. */
export interface DraftsListing {
  /** Oldest first. */
  drafts: { field: string; at: string; editor: string }[];
}

/**
 * Publish endpoint, `POST`: the fields to publish (all the editor may
 * publish when absent), with the draft versions the editor saw.
 */
export interface PublishBody {
  /** Field addresses; absent: every draft the editor may publish. */
  fields?: string[];
  /** Address → draft version seen; a changed draft is a 409. */
  versions?: Record<string, string>;
}

/** Publish endpoint, `200`: what went public. */
export interface PublishAnswer {
  /** The addresses published, in the order published. */
  published: string[];
}

/** Publish endpoint, `409`: nothing was published. */
export interface PublishConflictBody {
  /** Always `"conflict"`. */
  error: "conflict";
  /** Fields whose draft changed since the editor saw it. */
  conflicts: { field: string; value: string | string[]; version: string }[];
}

/** Discard endpoint, `POST`: drop one field's draft (`204`). */
export interface DiscardBody {
  /** The field's address. */
  field: string;
}

/** Preview endpoint, `POST`: the page to make a preview link for. */
export interface PreviewBody {
  /** A plain site path, e.g. `/about`. */
  path: string;
}

/** Preview endpoint, `200`: the link and when it stops working. */
export interface PreviewAnswer {
  /** Absolute URL of the page with `?preview=TOKEN`. */
  url: string;
  /** When the link expires, ISO 8601. */
  expires: string;
}

/**
 * The body of every error answer: a short plain-text reason, for people.
 * A 5xx carries an error id that the server logged with the error.
 *
 * @example
 * ```ts
 * import type { ErrorBody } from "./wire.ts";
 * const reason: ErrorBody = "Field not allowed";
 * ```
 */
export type ErrorBody = string;

/** The `Content-Type` of every error answer. */
export const ERROR_CONTENT_TYPE = "text/plain; charset=utf-8";

/** The status codes of the wire protocol, by name (see {@linkcode Status}). */
export interface StatusCodes {
  /** Media stored; the body is a {@linkcode MediaAnswer}. */
  readonly OK: 200;
  /** Field saved; see {@linkcode VERSION_HEADER}. */
  readonly NoContent: 204;
  /** Malformed body, unknown field or address, invalid value. */
  readonly BadRequest: 400;
  /** Cross-site, not signed in, or not allowed to edit this field. */
  readonly Forbidden: 403;
  /** The method is not handled; the answer carries `Allow`. */
  readonly MethodNotAllowed: 405;
  /** The field changed since the editor's version; a {@linkcode ConflictBody}. */
  readonly Conflict: 409;
  /** The body is larger than the endpoint's limit. */
  readonly ContentTooLarge: 413;
  /** The upload is not a supported image. */
  readonly UnsupportedMediaType: 415;
  /** The request's Host is not one of the site's hosts. */
  readonly MisdirectedRequest: 421;
  /** The image is over the pixel budget. */
  readonly UnprocessableContent: 422;
  /** Too many requests; retry after the `Retry-After` header. */
  readonly TooManyRequests: 429;
  /** A server fault; the body holds an error id that the server logged. */
  readonly InternalServerError: 500;
  /** Busy; retry after the `Retry-After` header. */
  readonly ServiceUnavailable: 503;
}

/**
 * The status codes the endpoints answer with, by name.
 *
 * @example
 * ```ts
 * import { Status } from "./wire.ts";
 * const res = new Response(null, { status: Status.NoContent });
 * res.status === Status.NoContent; // true
 * ```
 */
export const Status: StatusCodes = /* @__PURE__ */ Object.freeze({
  OK: 200,
  NoContent: 204,
  BadRequest: 400,
  Forbidden: 403,
  MethodNotAllowed: 405,
  Conflict: 409,
  ContentTooLarge: 413,
  UnsupportedMediaType: 415,
  MisdirectedRequest: 421,
  UnprocessableContent: 422,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
});

/** One of the {@linkcode Status} codes. */
export type StatusCode = StatusCodes[keyof StatusCodes];

// ---------------------------------------------------------------------------
// Editor events (issue 21): the event stream `GET /api/cms/events?page=PATH`
// (Server-Sent Events) and its presence report `POST /api/cms/events`.
// ---------------------------------------------------------------------------

/**
 * The JSON body of a presence report (`POST /api/cms/events`): what the
 * editor of one stream has focused and changed but not saved.
 *
 * @example
 * ```ts
 * import type { PresenceBody } from "./wire.ts";
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
 * - `presence`: `{ editors }`, everybody on the page, this stream included;
 * - `saved`: a field the listener may edit was saved or restored;
 * - `published`: drafts went live (draft mode), fields the listener may edit;
 * - `drafts`: the drafted fields the listener may edit, after a change;
 * - `schedule`: a schedule fired (published, or failed and kept with its
 *   reason): re-read the schedules;
 * - `resync`: events were missed; re-read the page's values.
 *
 * @example
 * ```ts
 * import type { SavedEventData } from "./wire.ts";
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

/** The data of a `presence` event. */
export interface PresenceEventData {
  /** Everybody on the page, this stream included. */
  editors: PresenceEntry[];
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

// ---------------------------------------------------------------------------
// Scheduled publishing and the media library (issue 23). Kept together in
// this block so the wire types of other work merge around it.
// ---------------------------------------------------------------------------

/** The status of a publish accepted for later (`at` given): 202 Accepted. */
export const SCHEDULED = 202;

/**
 * The 202 answer of `POST /api/cms/publish` with `at`: the schedule made.
 *
 * @example
 * ```ts
 * import type { ScheduleAnswer } from "./wire.ts";
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
 * import type { ScheduleListing } from "./wire.ts";
 * const listing: ScheduleListing = { schedules: [] };
 * ```
 */
export interface ScheduleListing {
  /** Soonest first. */
  schedules: ScheduleEntry[];
}

/** One upload in a {@linkcode MediaLibraryPage}: an original and its variants. */
export interface MediaLibraryItem {
  /** The original's storage key. */
  key: string;
  /** The file's name as the editor's browser sent it (else the key's last segment). */
  name: string;
  /** The original's public URL (what an image field stores). */
  url: string;
  /** Bytes of the original and its variants. */
  size: number;
  /** The variants stored beside it, with their width (from the key). */
  variants: { key: string; url: string; size: number; width: number }[];
  /** When the original was stored, ISO 8601. */
  uploaded: string;
  /**
   * Who uploaded it (the media endpoint's record), else the editor who first
   * used it in content; `null` when neither is known.
   */
  uploader: string | null;
  /** The alt texts it is shown with in rich fields, sorted. */
  alts: string[];
  /** Whether a current value, draft or kept revision uses it. */
  used: boolean;
}

/**
 * The 200 answer of `GET /api/cms/media/library?q=&cursor=&limit=`: one
 * page of uploads, newest first.
 *
 * @example
 * ```ts
 * import type { MediaLibraryPage } from "./wire.ts";
 * const page: MediaLibraryPage = { uploads: [], next: null, total: 0 };
 * ```
 */
export interface MediaLibraryPage {
  /** This page, newest first. */
  uploads: MediaLibraryItem[];
  /** The `cursor` of the next page, or `null` on the last. */
  next: string | null;
  /** How many uploads match the search. */
  total: number;
}

// --- Whole-list writes (issue 20: lists that grow) -------------------------

/**
 * The JSON body of a whole-list write: the save endpoint's body with the
 * bare address of a list field (`field: "features"`, no index) and every
 * item, in order. It adds, removes and reorders items in one write; the
 * length must be within the field's `min` and `max` (else 400, nothing
 * stored). `version` is the whole list's (`contentVersion(list)`); a
 * mismatch is a 409 {@linkcode ListConflictBody}. Per-item saves
 * (`features.2`, {@linkcode SaveBody}) keep working beside it.
 *
 * @example
 * ```ts
 * import type { ListSaveBody } from "./wire.ts";
 * const body: ListSaveBody = {
 *   collection: "pages",
 *   key: "home",
 *   field: "features",
 *   value: ["Small", "Fast", "Safe"],
 *   version: "2k9x",
 * };
 * ```
 */
export interface ListSaveBody extends Omit<SaveBody, "value"> {
  /** Every item of the list, in order (plain texts). */
  value: string[];
}

/**
 * The body of a 409 answer to a whole-list write: the list stored now and
 * its version.
 *
 * @example
 * ```ts
 * import type { ListConflictBody } from "./wire.ts";
 * const body: ListConflictBody = { error: "conflict", value: ["A"], version: "7q" };
 * ```
 */
export interface ListConflictBody extends Omit<ConflictBody, "value"> {
  /** The list stored now. */
  value: string[];
}

// --- Content in several languages (issue 22) -------------------------------
// The locale of an address (see `core/locale.ts`). These declarations merge
// into the interfaces above, so the wire types of other work merge around
// this block.

// The marker attributes of localized fields (`data-cms-locale`,
// `data-cms-fallback`) are in `core/locale_markers.ts`: the browser's
// opt-in locale chunk reads one of them, and a module of their own keeps
// this one out of the chunks the two share.

/** A save of one locale's value. */
export interface SaveBody {
  /**
   * The locale whose value is saved (a declared locale). Absent: the
   * default locale's, or the one value of a shared field. A locale on a
   * shared field, or an undeclared one, is 400.
   */
  locale?: string;
}

/** A publish of one locale's drafts. */
export interface PublishBody {
  /**
   * Without `fields`: publish only the drafts of this locale's values
   * (`name@locale` addresses; the default locale's are the plain ones).
   * Shared fields' drafts go with a publish of every locale.
   */
  locale?: string;
}
