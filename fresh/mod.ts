/**
 * Fresh 2 integration: `cmsRoute(cms)` for one catch-all route file that
 * serves every endpoint of `createCms`, the edit-mode middleware, and
 * Preact components that render markers (`CmsField`, `CmsList`,
 * `CmsImage`) and load the client (`CmsScript`) only in edit mode, through
 * the same marker helpers as `@inplace/cms`. Typed structurally against
 * Fresh 2.3; Fresh is never imported. Guide: docs/fresh.md ("Fresh: the
 * full site").
 *
 * Guide: [Fresh 2: the full site](../docs/fresh.md).
 *
 * @example
 * ```ts
 * // routes/api/cms/[...path].ts
 * import { cmsRoute, freshAuthorize } from "@inplace/cms/fresh";
 * import { createCms, MemoryContentStore } from "@inplace/cms";
 * type State = { user?: { name: string } };
 * export const cms = createCms({
 *   authorize: freshAuthorize<State>((ctx) => ctx.state.user ?? null),
 *   allowlist: { pages: { title: "plain" } },
 *   store: new MemoryContentStore(),
 * });
 * export const handler = cmsRoute<State>(cms);
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
  FieldName,
  ResponsiveImage,
  ResponsiveImageOptions,
} from "../server/markup/mod.ts";
export type { Content, FieldAddressOf } from "../core/content.ts";
export type {
  ClientHandler,
  ClientHandlerOptions,
} from "../server/bundle/mod.ts";
