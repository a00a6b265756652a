/**
 * In-place content editing for server-rendered Deno sites: the host side.
 *
 * The host keeps its schema, sessions and storage; this module gives it the
 * endpoints of the spec as Web-standard handlers
 * (`(req: Request) => Promise<Response>`), the browser client's files, the
 * shared sanitizer, and ready-made stores.
 *
 * - {@linkcode createSaveHandler}: the save endpoint (one request per
 *   changed field, allowlist, rich-field set, 409 on conflicts).
 * - {@linkcode createMediaHandler}: the media endpoint (raw image bytes,
 *   size cap, type sniffed from the bytes).
 * - {@linkcode createClientHandler}: serves the browser client (entry and
 *   lazy chunks, cached right); no build step in the host.
 * - {@linkcode createHistoryHandler}, {@linkcode createDraftsHandler},
 *   {@linkcode createPublishHandler}, {@linkcode createDiscardHandler},
 *   {@linkcode createScheduleHandler}, {@linkcode createCancelScheduleHandler},
 *   {@linkcode createPreviewHandler}: history, drafts, scheduled publishing
 *   and preview links; {@linkcode Scheduler} fires the schedules.
 * - {@linkcode EditorEvents}: presence and live changes (Server-Sent Events).
 * - {@linkcode createMediaLibraryHandler} and {@linkcode collectMedia}: the
 *   media library and the cleanup of unused uploads.
 * - {@linkcode cmsField}, {@linkcode cmsList}, {@linkcode cmsImage},
 *   {@linkcode cmsScript} and friends: the markers as escaped markup for
 *   hosts without Preact; {@linkcode responsiveImage}: `srcset` and size of
 *   an uploaded image for visitors (docs/content.md, docs/images.md).
 * - {@linkcode defineContent}: one declaration of the editable content; it is
 *   the save endpoint's allowlist and types every field address.
 * - {@linkcode sanitizeHtml}: the one sanitizer policy, on the server.
 * - {@linkcode HttpError} and {@linkcode endpoint}: the endpoint pipeline.
 * - Production: {@linkcode serveGracefully} (drain on SIGTERM),
 *   {@linkcode createLivenessHandler} and {@linkcode createReadinessHandler}
 *   (`/healthz`, `/readyz`), {@linkcode setLogger} (silent by default;
 *   `setLogger("json")` for request logs), {@linkcode setBodyBudget}.
 * - Content stores: {@linkcode KvContentStore}, {@linkcode MemoryContentStore};
 *   PostgreSQL in `@inplace/cms/postgres`.
 * - Media storage: {@linkcode LocalMediaStorage} (with
 *   {@linkcode serveLocalMedia}), {@linkcode MemoryMediaStorage}; S3 in
 *   `@inplace/cms/s3`.
 *
 * Guides: [wiring a host](./docs/wiring.md) (`createCms` wires every
 * endpoint in one call), [content and addresses](./docs/content.md),
 * [storage](./docs/storage.md), [security](./docs/security.md),
 * [production](./docs/production.md), the
 * [protocol reference](./docs/protocol.md); the map is in the
 * [README](./README.md#guides).
 *
 * @example
 * ```ts
 * import {
 *   createClientHandler,
 *   createMediaHandler,
 *   createSaveHandler,
 *   defineContent,
 *   type Editor,
 *   KvContentStore,
 *   list,
 *   LocalMediaStorage,
 *   serveLocalMedia,
 * } from "@inplace/cms";
 *
 * const kv = await Deno.openKv("content.kv");
 * // The editor from YOUR server-side session store, or null: here a
 * // `sid` cookie whose session your login wrote to ["sessions", sid].
 * async function authorize(req: Request): Promise<Editor | null> {
 *   const sid = req.headers.get("Cookie")?.match(/(?:^|;\s*)sid=([\w-]+)/)?.[1];
 *   if (!sid) return null;
 *   const session = await kv.get<{ name: string }>(["sessions", sid]);
 *   return session.value ? { name: session.value.name } : null;
 * }
 * const storage = new LocalMediaStorage({ dir: "media", publicUrl: "/media" });
 * const cms = {
 *   authorize,
 *   allowlist: defineContent({
 *     pages: { title: "plain", body: "rich", features: list() },
 *   }),
 *   store: new KvContentStore(kv),
 *   storage,
 *   // Behind a proxy, your public origin; unset, the request's own origin
 *   // (so it works on localhost).
 *   publicOrigin: Deno.env.get("PUBLIC_ORIGIN") || undefined,
 * };
 * const save = createSaveHandler(cms);
 * const media = createMediaHandler(cms);
 * const files = serveLocalMedia(storage);
 * const client = createClientHandler(); // /cms/mod.js and its chunks
 *
 * Deno.serve((req) => {
 *   const { pathname } = new URL(req.url);
 *   if (pathname === "/api/cms/save") return save(req);
 *   if (pathname === "/api/cms/media") return media(req);
 *   if (pathname.startsWith("/media/")) return files(req);
 *   if (pathname.startsWith(client.base)) return client(req);
 *   return new Response("Not found", { status: 404 });
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
  type JobOptions,
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
// Editor events: presence and live changes (PostgreSQL bus:
// `@inplace/cms/postgres`).
export {
  EditorEvents,
  type EditorEventsOptions,
  type EditorEventsStats,
} from "./server/events/mod.ts";
export {
  type BusMessage,
  type CommentsMessage,
  type DraftsMessage,
  type EventBus,
  MemoryEventBus,
  type PresenceMessage,
  type PublishedMessage,
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
