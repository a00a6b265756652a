/**
 * In-place content editing for server-rendered Deno sites: the host side.
 *
 * The host keeps its schema, sessions and storage; this module gives it the
 * endpoints of the spec as Web-standard handlers
 * (`(req: Request) => Promise<Response>`), the browser client's files, the
 * shared sanitizer, and ready-made stores.
 *
 * - {@linkcode createCms}: the whole service in one call: every endpoint the
 *   options turn on (save, media, history, drafts, publish, discard,
 *   preview, schedules, events, the library), the client files and local
 *   media files, under one base path; `cms.handle(req)` answers its own
 *   paths and `null` for the rest.
 * - {@linkcode cmsField}, {@linkcode cmsList}, {@linkcode cmsImage},
 *   {@linkcode cmsScript} and friends: the markers as escaped markup for
 *   hosts without Preact; {@linkcode responsiveImage}: `srcset` and size of
 *   an uploaded image for visitors.
 * - {@linkcode defineContent}: one declaration of the editable content; it is
 *   the save endpoint's allowlist and types every field address.
 * - The parts `createCms` wires, for hosts that route them themselves:
 *   {@linkcode createSaveHandler}, {@linkcode createMediaHandler},
 *   {@linkcode createClientHandler}, {@linkcode createHistoryHandler},
 *   {@linkcode createDraftsHandler}, {@linkcode createPublishHandler},
 *   {@linkcode createDiscardHandler}, {@linkcode createScheduleHandler},
 *   {@linkcode createCancelScheduleHandler}, {@linkcode createPreviewHandler},
 *   {@linkcode Scheduler}, {@linkcode EditorEvents} (across processes on one
 *   Deno KV database with {@linkcode KvEventBus}),
 *   {@linkcode createMediaLibraryHandler}, {@linkcode createLinkCheckHandler};
 *   {@linkcode collectMedia} cleans up unused uploads.
 * - {@linkcode sanitizeHtml}: the one sanitizer policy, on the server;
 *   {@linkcode checkContent}: the content checks.
 * - {@linkcode HttpError} and {@linkcode endpoint}: the endpoint pipeline.
 * - Production: {@linkcode serveGracefully} (drain on SIGTERM),
 *   {@linkcode createLivenessHandler} and {@linkcode createReadinessHandler}
 *   (`/healthz`, `/readyz`), {@linkcode setLogger} (silent by default;
 *   `setLogger("json")` for request logs), {@linkcode setBodyBudget}.
 * - Content stores: {@linkcode KvContentStore}, {@linkcode MemoryContentStore};
 *   PostgreSQL in `@inplace/cms/postgres`.
 * - Media storage: {@linkcode LocalMediaStorage},
 *   {@linkcode MemoryMediaStorage}; S3 in `@inplace/cms/s3`.
 *
 * Guides: [wiring a host](./docs/wiring.md),
 * [content and addresses](./docs/content.md), [images](./docs/images.md),
 * [storage](./docs/storage.md), [security](./docs/security.md),
 * [production](./docs/production.md), the
 * [protocol reference](./docs/protocol.md); the map is in the
 * [README](./README.md#guides).
 *
 * @example
 * ```ts
 * import {
 *   cmsField,
 *   createCms,
 *   defineContent,
 *   type Editor,
 *   KvContentStore,
 *   LocalMediaStorage,
 * } from "@inplace/cms";
 *
 * const kv = await Deno.openKv("content.kv");
 * // The editor from YOUR server-side session store, or null.
 * async function authorize(req: Request): Promise<Editor | null> {
 *   const sid = req.headers.get("Cookie")?.match(/(?:^|;\s*)sid=(\w+)/)?.[1];
 *   return sid ? (await kv.get<Editor>(["sessions", sid])).value : null;
 * }
 * const content = defineContent({ pages: { title: "plain", body: "rich" } });
 * const store = new KvContentStore(kv);
 * const cms = createCms({
 *   authorize,
 *   allowlist: content,
 *   store,
 *   storage: new LocalMediaStorage({ dir: "media", publicUrl: "/media" }),
 *   publishMode: "draft",
 * });
 *
 * Deno.serve(async (req) => {
 *   const answer = await cms.handle(req); // /api/cms/…, /media/…
 *   if (answer) return answer;
 *   const editor = await authorize(req);
 *   const home = await store.get("pages", "home");
 *   const title = String(home?.title ?? "Hello");
 *   const html = cmsField({
 *     content,
 *     field: "pages:home:title",
 *     value: title,
 *     editing: !!editor,
 *     as: "h1",
 *   }) + (editor ? cms.editorScripts({ editor: editor.name }) : "");
 *   return new Response(html, { headers: { "Content-Type": "text/html" } });
 * });
 * ```
 *
 * @module
 */
// Core: the content declaration and field addresses (also in
// `@inplace/cms/core`, with the wire protocol and the sanitizer policy).
export {
  type FieldAddress,
  fieldPath,
  formatAddress,
  parseAddress,
} from "./core/address.ts";
export {
  type Allowlist,
  type Content,
  defineContent,
  type FieldAddressOf,
  type FieldDecl,
  type FieldKind,
  type FieldSpec,
  image,
  list,
  type ListOptions,
  type LocaleOptions,
  plain,
  rich,
  shared,
  type TextLimits,
} from "./core/content.ts";
export { readLocale } from "./core/locale.ts";
export type { MediaLibraryItem } from "./core/protocol/library.ts";
export {
  checkAlt,
  checkContent,
  type CheckOptions,
  type CheckRule,
  type Finding,
} from "./core/checks.ts";
export { type LocalizedRecord, readLocalized } from "./server/store/mod.ts";
// What a host implements or receives: editors, stores, storage.
export type {
  ContentRecord,
  ContentStore,
  ContentValue,
  Draft,
  DraftConflict,
  DraftRef,
  DraftStore,
  HistoryStore,
  PublishMode,
  PublishResult,
  Retention,
  Revision,
  RevisionInput,
  StoreLine,
} from "./server/store/mod.ts";
export type {
  Authorize,
  CanEdit,
  Editor,
  EndpointCall,
} from "./server/http/mod.ts";
export type {
  ListableMediaStorage,
  MediaObjectInfo,
  MediaStorage,
} from "./server/media/mod.ts";
// The whole service in one call.
export {
  type Cms,
  type CmsEventsOptions,
  type CmsOptions,
  type CmsPreviewOptions,
  type CmsReviewOptions,
  type CmsRoute,
  createCms,
  type PageConfig,
  type PageFacts,
} from "./server/app/mod.ts";
// The endpoints.
export {
  createSaveHandler,
  type SaveEvent,
  type SaveHandlerOptions,
} from "./server/save/mod.ts";
export {
  createMediaHandler,
  type MediaHandlerOptions,
} from "./server/media/mod.ts";
export type { ImageOptions } from "./server/image/mod.ts";
export {
  defaultMemoryBudget,
  type JobOptions,
  memoryLimit,
  WorkQueue,
  type WorkQueueOptions,
} from "./server/image/mod.ts";
export type { VariantFormat } from "./server/image/mod.ts";
export type { SharpLoader } from "./server/image/mod.ts";
export type { ImageInfo } from "./server/image/mod.ts";
export {
  createHistoryHandler,
  type HistoryHandlerOptions,
} from "./server/history/mod.ts";
export {
  createCancelScheduleHandler,
  createDiscardHandler,
  createDraftsHandler,
  createPublishHandler,
  createScheduleHandler,
  type DraftHandlerOptions,
  type PublishHandlerOptions,
} from "./server/drafts/mod.ts";
export {
  createLinkCheckHandler,
  type LinkCheckHandlerOptions,
  type PublishChecks,
} from "./server/checks/mod.ts";
export {
  createPreviewHandler,
  PREVIEW_PARAM,
  type PreviewHandlerOptions,
  PreviewSigner,
} from "./server/drafts/mod.ts";
// Review in place: comments, review links, approvals.
export type {
  Approval,
  Comment,
  CommentAuthor,
  CommentsAnswer,
  TextAnchor,
} from "./core/protocol/review.ts";
export {
  createReviewHandlers,
  REVIEW_COOKIE,
  type ReviewHandlerOptions,
  type ReviewHandlers,
  reviewOf,
  reviewSigner,
  type ReviewVisit,
  type StreamAccess,
  withReviewers,
} from "./server/review/mod.ts";
export {
  type ClientHandler,
  type ClientHandlerOptions,
  createClientHandler,
} from "./server/bundle/mod.ts";
export {
  isCrossSite,
  type OriginOptions,
  requestUrl,
} from "./server/http/mod.ts";
export {
  type HtmlLimits,
  sanitizeHtml,
  type SanitizeOptions,
} from "./server/sanitize/mod.ts";
export type { SanitizeResult, SanitizerOptions } from "./core/sanitizer.ts";
export { contentVersion } from "./core/version.ts";
// Custom endpoints through the same pipeline.
export {
  endpoint,
  type EndpointContext,
  type Handler,
  HttpError,
  REQUEST_ID_HEADER,
  type RequestFacts,
  requestIdOf,
} from "./server/http/mod.ts";
// Production.
export {
  type GracefulServer,
  serveGracefully,
  type ServeGracefullyOptions,
  type ServeHandler,
} from "./server/ops/mod.ts";
export {
  contentStoreCheck,
  createLivenessHandler,
  createReadinessHandler,
  type HealthCheck,
  mediaStorageCheck,
  type ReadinessOptions,
} from "./server/health/mod.ts";
export {
  type Logger,
  type LogLevel,
  type LogLine,
  type LogRecord,
  setLogger,
} from "./server/ops/mod.ts";
export { bodyBytesInFlight, setBodyBudget } from "./server/http/mod.ts";
// Content stores (PostgreSQL: `@inplace/cms/postgres`).
export {
  MemoryContentStore,
  type MemoryContentStoreOptions,
} from "./server/store/mod.ts";
export {
  KeyTooLargeError,
  KvContentStore,
  type KvContentStoreOptions,
  PublishTooLargeError,
  RecordTooLargeError,
} from "./server/store/mod.ts";
// Media storage (S3: `@inplace/cms/s3`).
export {
  LocalMediaStorage,
  type LocalMediaStorageOptions,
  type OpenedMedia,
  serveLocalMedia,
  type ServeLocalMediaOptions,
} from "./server/media/mod.ts";
export {
  MemoryMediaStorage,
  type MemoryMediaStorageOptions,
  type StoredMedia,
} from "./server/media/mod.ts";
// Editor events: presence and live changes (across processes on one Deno KV
// database: KvEventBus; PostgreSQL bus: `@inplace/cms/postgres`).
export {
  EditorEvents,
  type EditorEventsOptions,
  type EditorEventsStats,
} from "./server/events/mod.ts";
export {
  type BusListener,
  type BusMessage,
  type CommentsMessage,
  type DraftsMessage,
  type EventBus,
  KvEventBus,
  type KvEventBusOptions,
  type LogPosition,
  MemoryEventBus,
  type PresenceMessage,
  type PublishedMessage,
  type ReportMessage,
  type SavedMessage,
  type ScheduleMessage,
} from "./server/events/mod.ts";
// Scheduled publishing and the media library.
export { Scheduler, type SchedulerOptions } from "./server/drafts/mod.ts";
export type {
  Schedule,
  ScheduleCursor,
  ScheduleFailure,
  ScheduleFiring,
  ScheduleQuery,
  ScheduleStore,
} from "./server/store/mod.ts";
// Review in place: the store contract of comments and verdicts.
export {
  type CommentExpect,
  type CommentUpdate,
  isReviewStore,
  ReviewRefusal,
  type ReviewStore,
} from "./server/store/mod.ts";
export {
  collectMedia,
  type CollectMediaOptions,
  createMediaLibraryHandler,
  type MediaGcReport,
  type MediaLibraryHandlerOptions,
  type MediaScanOptions,
  type Upload,
} from "./server/media/mod.ts";
// Markers without Preact: escaped markup for template-string hosts, and
// images for visitors (the Preact components are in `@inplace/cms/fresh`).
export {
  type Attributes,
  type AttributeValue,
  cmsAlternates,
  type CmsAlternatesOptions,
  cmsConfig,
  type CmsConfigOptions,
  cmsField,
  cmsFieldAttributes,
  cmsImage,
  cmsItemAttributes,
  cmsList,
  cmsListAttributes,
  type CmsPageConfig,
  cmsScript,
  type CmsScriptOptions,
  escapeHtml,
  type FieldMarkerOptions,
  fieldMarkers,
  type FieldMarkupCommon,
  type FieldMarkupOptions,
  type FieldName,
  type ImageMarkupOptions,
  itemMarkers,
  listMarkers,
  type ListMarkupOptions,
  type ResponsiveImage,
  responsiveImage,
  type ResponsiveImageOptions,
  scriptJson,
} from "./server/markup/mod.ts";
