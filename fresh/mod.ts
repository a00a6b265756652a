/**
 * Fresh 2 integration: route wrappers for the save and media endpoints, the
 * edit-mode middleware, and Preact helpers that render markers and load the
 * client only in edit mode. Typed structurally against Fresh 2.3; Fresh is
 * never imported.
 *
 * @example
 * ```ts
 * // routes/api/cms/save.ts
 * import { cmsSaveRoute } from "@inplace/cms/fresh";
 * import { MemoryContentStore } from "@inplace/cms";
 * export const handler = cmsSaveRoute<{ user?: { name: string } }>({
 *   authorize: (ctx) => ctx.state.user ?? null,
 *   allowlist: { pages: { title: "plain" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 *
 * @module
 */
export * from "./context.ts";
export * from "./routes.ts";
export * from "./edit_mode.ts";
export * from "./components.tsx";
export type {
  Allowlist,
  Authorize,
  CanEdit,
  Editor,
  EndpointCall,
  FieldKind,
} from "../server/http/mod.ts";
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
} from "../server/store/mod.ts";
export type {
  ListableMediaStorage,
  MediaObjectInfo,
  MediaStorage,
} from "../server/media/mod.ts";
export type { SaveEvent, SaveHandlerOptions } from "../server/save/mod.ts";
export type { MediaHandlerOptions } from "../server/media/mod.ts";
export type { OriginOptions } from "../server/http/mod.ts";
export type { ImageOptions } from "../server/image/mod.ts";
export type { ImageInfo } from "../server/image/mod.ts";
export type { FieldAddress } from "../core/address.ts";
export type {
  ResponsiveImage,
  ResponsiveImageOptions,
} from "../server/markup/mod.ts";
export type { Content, FieldAddressOf } from "../core/content.ts";
export type {
  ClientHandler,
  ClientHandlerOptions,
} from "../server/bundle/mod.ts";
