/**
 * In-place content editing for server-rendered Deno sites: the host side.
 *
 * The host keeps its schema, sessions and storage; this module gives it the
 * two endpoints of the spec as Web-standard handlers
 * (`(req: Request) => Promise<Response>`), the shared sanitizer, and
 * ready-made stores.
 *
 * - {@linkcode createSaveHandler}: the save endpoint (one request per
 *   changed field, allowlist, rich-field set, 409 on conflicts).
 * - {@linkcode createMediaHandler}: the media endpoint (raw image bytes,
 *   size cap, type sniffed from the bytes).
 * - {@linkcode defineContent}: one declaration of the editable content; it is
 *   the save endpoint's allowlist and types every field address.
 * - {@linkcode sanitizeHtml}: the one sanitizer policy, on the server.
 * - {@linkcode HttpError} and {@linkcode endpoint}: the endpoint pipeline.
 * - Production: {@linkcode serveGracefully} (drain on SIGTERM),
 *   {@linkcode createLivenessHandler} and {@linkcode createReadinessHandler}
 *   (`/healthz`, `/readyz`), {@linkcode setLogger} (JSON-lines logs),
 *   {@linkcode setBodyBudget} (memory for bodies in flight).
 * - Content stores: {@linkcode KvContentStore}, {@linkcode MemoryContentStore}.
 * - Media storage: {@linkcode S3MediaStorage}, {@linkcode LocalMediaStorage}
 *   (with {@linkcode serveLocalMedia}), {@linkcode MemoryMediaStorage}.
 *
 * @example
 * ```ts
 * import {
 *   createMediaHandler,
 *   createSaveHandler,
 *   defineContent,
 *   KvContentStore,
 *   list,
 *   LocalMediaStorage,
 *   serveLocalMedia,
 * } from "@inplace/cms";
 *
 * const cms = {
 *   // The editor from YOUR server-side session, or null.
 *   authorize: (req: Request) =>
 *     req.headers.get("Cookie")?.includes("session=") ? { name: "Ada" } : null,
 *   allowlist: defineContent({
 *     pages: { title: "plain", body: "rich", features: list() },
 *   }),
 *   store: new KvContentStore(await Deno.openKv("content.kv")),
 *   storage: new LocalMediaStorage({ dir: "media", publicUrl: "/media" }),
 *   publicOrigin: "https://www.example.com",
 * } as const;
 * const save = createSaveHandler(cms);
 * const media = createMediaHandler(cms);
 * const files = serveLocalMedia(cms.storage);
 *
 * Deno.serve((req) => {
 *   const { pathname } = new URL(req.url);
 *   if (pathname === "/api/cms/save") return save(req);
 *   if (pathname === "/api/cms/media") return media(req);
 *   if (pathname.startsWith("/media/")) return files(req);
 *   return new Response("Not found", { status: 404 });
 * });
 * ```
 *
 * @module
 */
export * from "./core/address.ts";
export * from "./core/content.ts";
export * from "./core/wire.ts";
export * from "./server/types.ts";
export {
  endpoint,
  type EndpointContext,
  errorResponse,
  type Handler,
  HttpError,
  REQUEST_ID_HEADER,
  type RequestFacts,
  requestIdOf,
} from "./server/http.ts";
export * from "./server/serve.ts";
export * from "./server/health.ts";
export * from "./server/log.ts";
export {
  bodyBytesInFlight,
  type BodyTimeouts,
  DEFAULT_BODY_BUDGET,
  readBody,
  setBodyBudget,
} from "./server/body.ts";
export * from "./server/version.ts";
export * from "./server/save.ts";
export * from "./server/history.ts";
export * from "./server/publish.ts";
export * from "./server/preview.ts";
export * from "./server/media.ts";
export * from "./server/sniff.ts";
export * from "./server/image/pipeline.ts";
export type {
  ImageFile,
  PreparedImage,
  VariantFormat,
} from "./server/image/process.ts";
export * from "./server/image/queue.ts";
export { importSharp, type SharpLoader } from "./server/image/sharp.ts";
export * from "./server/image/store.ts";
export * from "./server/origin.ts";
export * from "./server/sanitize.ts";
export * from "./server/store/memory.ts";
export * from "./server/store/kv.ts";
export * from "./server/store/postgres.ts";
export * from "./server/media/memory.ts";
export * from "./server/media/local.ts";
export * from "./server/media/s3.ts";
// Scheduled publishing and the media library (issue 23).
export { Scheduler, type SchedulerOptions } from "./server/schedule.ts";
export {
  isScheduleStore,
  type Schedule,
  type ScheduleFailure,
  type ScheduleFiring,
  type ScheduleStore,
} from "./server/store/schedule.ts";
export {
  collectMedia,
  type CollectMediaOptions,
  createMediaLibraryHandler,
  groupUploads,
  listUploads,
  type MediaGcReport,
  type MediaLibraryHandlerOptions,
  type MediaScanOptions,
  type Upload,
} from "./server/media_library.ts";
