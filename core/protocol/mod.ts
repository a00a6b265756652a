/**
 * The wire protocol between the browser client and the server's endpoints,
 * declared once: request and answer shapes, header names and status codes,
 * one module per endpoint (or group of endpoints):
 *
 * - Save (`save.ts`): `PATCH` (or `POST`) a JSON {@linkcode SaveBody} (a
 *   {@linkcode ListSaveBody} for a whole list); success is `204` with the
 *   stored value's version in {@linkcode VERSION_HEADER}; a stale `version`
 *   is `409` with a {@linkcode ConflictBody}.
 * - Media (`media.ts`): `POST` raw image bytes; success is `200` with a
 *   {@linkcode MediaAnswer}.
 * - Media library (`library.ts`): `GET` → {@linkcode MediaLibraryPage}.
 * - History (`history.ts`): `GET ?field=…` → {@linkcode HistoryListing};
 *   `GET ?field=…&revision=…` → {@linkcode RevisionBody}; `POST` a
 *   {@linkcode RestoreBody} → `204` like a save.
 * - Drafts, publish, discard and preview (`drafts.ts`): `GET` drafts →
 *   {@linkcode DraftsListing}; `POST` a {@linkcode PublishBody} →
 *   {@linkcode PublishAnswer} (`409`: {@linkcode PublishConflictBody});
 *   `POST` a {@linkcode DiscardBody} → `204`; `POST` a
 *   {@linkcode PreviewBody} → {@linkcode PreviewAnswer}.
 * - Schedule (`schedule.ts`): a publish with `at` → `202`
 *   {@linkcode ScheduleAnswer}; `GET` → {@linkcode ScheduleListing}.
 * - Events (`events.ts`): the Server-Sent Events stream (its event data,
 *   e.g. {@linkcode SavedEventData}) and the presence report
 *   ({@linkcode PresenceBody}).
 * - Review (`review.ts`): comments anchored to a field's text
 *   ({@linkcode Comment}, {@linkcode TextAnchor}), review links and
 *   approvals ({@linkcode Approval}), with their limits.
 * - Link check (`checks.ts`): `POST` a {@linkcode LinkCheckBody} →
 *   {@linkcode LinkCheckAnswer}.
 * - Every error is a short plain-text reason ({@linkcode ErrorBody}) with
 *   `Content-Type: text/plain; charset=utf-8` (`http.ts`, with the
 *   {@linkcode Status} codes).
 *
 * @example
 * ```ts
 * import { type SaveBody, Status, VERSION_HEADER } from "./mod.ts";
 * const body: SaveBody = { collection: "pages", key: "home", field: "title", value: "Hi" };
 * const res = new Response(null, { status: Status.NoContent, headers: { [VERSION_HEADER]: "1x" } });
 * ```
 *
 * @module
 */
export {
  ERROR_CONTENT_TYPE,
  type ErrorBody,
  Status,
  type StatusCode,
  type StatusCodes,
} from "./http.ts";
export {
  type ConflictBody,
  type ListConflictBody,
  type ListSaveBody,
  REMOVED_HEADER,
  type SaveBody,
  VERSION_HEADER,
} from "./save.ts";
export type { MediaAnswer, MediaVariant } from "./media.ts";
export type { LinkCheckAnswer, LinkCheckBody } from "./checks.ts";
export type { MediaLibraryItem, MediaLibraryPage } from "./library.ts";
export type {
  HistoryListing,
  RestoreBody,
  RevisionBody,
  RevisionSummary,
} from "./history.ts";
export type {
  DiscardBody,
  DraftsListing,
  PreviewAnswer,
  PreviewBody,
  PublishAnswer,
  PublishBody,
  PublishConflictBody,
} from "./drafts.ts";
export {
  type ScheduleAnswer,
  SCHEDULED,
  type ScheduleEntry,
  type ScheduleListing,
} from "./schedule.ts";
export type {
  DraftsEventData,
  PresenceBody,
  PresenceEntry,
  PresenceEventData,
  PublishedEventData,
  SavedEventData,
  ScheduleEventData,
} from "./events.ts";
export {
  ANCHOR_CONTEXT_CHARS,
  type Approval,
  type ApproveBody,
  type Comment,
  type CommentAuthor,
  type CommentCreateBody,
  type CommentPatchBody,
  type CommentsAnswer,
  type CommentsEventData,
  MAX_APPROVALS_PER_PAGE,
  MAX_COMMENT_CHARS,
  MAX_COMMENTS_PER_PAGE,
  MAX_NAME_CHARS,
  MAX_QUOTE_CHARS,
  REVIEW_HEADER,
  REVIEW_LINK_DEFAULT_SECONDS,
  REVIEW_LINK_MAX_SECONDS,
  REVIEW_PARAM,
  type ReviewLinkAnswer,
  type ReviewLinkBody,
  type ReviewNameBody,
  type TextAnchor,
} from "./review.ts";
