/**
 * Route wrappers for Fresh 2.3: the save and media endpoints as catch-all
 * route handlers, with `authorize` (and `canEdit`) receiving the Fresh
 * context, and the cross-site check comparing against `ctx.url`.
 *
 * Each wrapper is one function taking the context. Fresh hands a function
 * handler every method, so the endpoint itself answers the methods it
 * doesn't serve: 405 with `Allow`. (A per-method object would let Fresh's
 * file routes fall through to 404, and `app.post()` answers 405 without
 * `Allow`.) The Web-standard handler is created once; per request it gets
 * the request as Fresh sees it (at `ctx.url`) and the context as its
 * {@linkcode EndpointCall} `context`. No state outlives the request.
 *
 * To add a wrapper for another endpoint, follow {@linkcode cmsSaveRoute}:
 * `freshRoute(createXHandler({ ...options, authorize: fromContext(...) }))`.
 *
 * @module
 */
import type { FieldAddress } from "../core/address.ts";
import {
  createSaveHandler,
  type SaveHandlerOptions,
} from "../server/save/mod.ts";
import {
  createHistoryHandler,
  type HistoryHandlerOptions,
} from "../server/history/mod.ts";
import {
  createMediaHandler,
  type MediaHandlerOptions,
} from "../server/media/mod.ts";
import {
  createCancelScheduleHandler,
  createDiscardHandler,
  createDraftsHandler,
  createPreviewHandler,
  createPublishHandler,
  createScheduleHandler,
  type DraftHandlerOptions,
  type PreviewHandlerOptions,
} from "../server/drafts/mod.ts";
import {
  type ClientHandler,
  type ClientHandlerOptions,
  createClientHandler,
} from "../server/bundle/mod.ts";
import type {
  Authorize,
  CanEdit,
  Editor,
  EndpointCall,
  Handler,
} from "../server/http/mod.ts";
import type {
  FreshAuthorize,
  FreshContextLike,
  FreshHandler,
} from "./context.ts";

/**
 * Per-record rule with the Fresh context: runs once the field is known,
 * with the editor `authorize` returned; `false` gets 403.
 *
 * @example
 * ```ts
 * import type { FreshCanEdit } from "@inplace/cms/fresh";
 * type State = { user?: { name: string; id: string } };
 * // Authors may edit only their own posts.
 * const canEdit: FreshCanEdit<State> = (ctx, field) =>
 *   field.collection !== "posts" ||
 *   field.key.startsWith(`${ctx.state.user?.id}-`);
 * ```
 */
export type FreshCanEdit<State> = (
  ctx: FreshContextLike<State>,
  field: FieldAddress,
  editor: Editor,
) => boolean | Promise<boolean>;

/** Options of {@linkcode cmsSaveRoute}: the save handler's, with ctx-aware hooks. */
export type CmsSaveRouteOptions<State> =
  & Omit<SaveHandlerOptions, "authorize" | "canEdit">
  & {
    /** The editor from the Fresh context (e.g. `ctx.state.user`), or `null`. */
    authorize: FreshAuthorize<State>;
    /** Per-record rule with the Fresh context; `false` → 403. */
    canEdit?: FreshCanEdit<State>;
  };

/** Options of {@linkcode cmsMediaRoute}: the media handler's, with ctx-aware hooks. */
export type CmsMediaRouteOptions<State> =
  & Omit<MediaHandlerOptions, "authorize" | "authorizeMedia">
  & {
    /** The editor allowed to upload, from the Fresh context, or `null`. */
    authorize: FreshAuthorize<State>;
    /** A stricter gate for uploads than `authorize`, if you want one. */
    authorizeMedia?: FreshAuthorize<State>;
  };

/**
 * The save endpoint as a Fresh 2 route handler: `PATCH` (what the client
 * sends) and `POST`; every other method gets 405 with `Allow: PATCH, POST`.
 * All rules (allowlist, sanitizing, cross-site check, limits, conflicts) are
 * the Web-standard `createSaveHandler`'s; this hands `authorize` and
 * `canEdit` the Fresh context, and makes the cross-site check follow
 * Fresh's `csrf()` exactly: `Sec-Fetch-Site: same-origin` or `none` passes,
 * else `Origin` must be `ctx.url.origin` (or one of `allowedOrigins`). With
 * `new App({ trustProxy: true })`, `ctx.url` carries the forwarded origin.
 * An explicit `publicOrigin` option still wins over `ctx.url`.
 *
 * Export it as a file route's `handler`, or mount it for all methods
 * (`app.all(path, handler)`); `app.post(path, handler)` would let Fresh
 * answer other methods 405 without `Allow`.
 *
 * @example
 * ```ts
 * // routes/api/cms/save.ts
 * import { cmsSaveRoute } from "@inplace/cms/fresh";
 * import { defineContent, list, MemoryContentStore } from "@inplace/cms";
 *
 * type State = { user?: { name: string } };
 * export const handler = cmsSaveRoute<State>({
 *   authorize: (ctx) => ctx.state.user ?? null,
 *   allowlist: defineContent({ pages: { title: "plain", body: "rich", features: list() } }),
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function cmsSaveRoute<State>(
  options: CmsSaveRouteOptions<State>,
): FreshHandler<State> {
  const { canEdit } = options;
  return freshRoute(createSaveHandler({
    ...options,
    authorize: fromContext(options.authorize),
    canEdit: canEdit &&
      ((_req, field, editor, context) =>
        canEdit(context as FreshContextLike<State>, field, editor)),
  }));
}

/**
 * The media endpoint as a Fresh 2 route handler: `POST` raw image bytes in,
 * `{key, url, width, height, type}` out; every other method gets 405 with
 * `Allow: POST`. The rules are `createMediaHandler`'s; `authorize` receives
 * the Fresh context and the cross-site check uses `ctx.url`, as in
 * {@linkcode cmsSaveRoute}.
 *
 * @example
 * ```ts
 * // routes/api/cms/media.ts
 * import { cmsMediaRoute } from "@inplace/cms/fresh";
 * import { MemoryMediaStorage } from "@inplace/cms";
 *
 * type State = { user?: { name: string; admin: boolean } };
 * export const handler = cmsMediaRoute<State>({
 *   authorize: (ctx) => ctx.state.user?.admin ? ctx.state.user : null,
 *   storage: new MemoryMediaStorage(),
 * });
 * ```
 */
export function cmsMediaRoute<State>(
  options: CmsMediaRouteOptions<State>,
): FreshHandler<State> {
  const { authorizeMedia } = options;
  return freshRoute(createMediaHandler({
    ...options,
    authorize: fromContext(options.authorize),
    authorizeMedia: authorizeMedia && fromContext(authorizeMedia),
  }));
}

/** Options of {@linkcode cmsHistoryRoute}: the history handler's, with ctx-aware hooks. */
export type CmsHistoryRouteOptions<State> =
  & Omit<HistoryHandlerOptions, "authorize" | "canEdit">
  & Pick<CmsSaveRouteOptions<State>, "authorize" | "canEdit">;

/**
 * The history endpoint as a Fresh 2 route handler: `GET` a field's
 * revisions or one revision, `POST` a restore; other methods get 405. The
 * rules are `createHistoryHandler`'s (the save endpoint's session, origin,
 * allowlist and `canEdit`); the hooks receive the Fresh context, as in
 * {@linkcode cmsSaveRoute}.
 *
 * @example
 * ```ts
 * // routes/api/cms/history.ts
 * import { cmsHistoryRoute } from "@inplace/cms/fresh";
 * import { defineContent, MemoryContentStore } from "@inplace/cms";
 *
 * type State = { user?: { name: string } };
 * export const handler = cmsHistoryRoute<State>({
 *   authorize: (ctx) => ctx.state.user ?? null,
 *   allowlist: defineContent({ pages: { title: "plain", body: "rich" } }),
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function cmsHistoryRoute<State>(
  options: CmsHistoryRouteOptions<State>,
): FreshHandler<State> {
  const { canEdit } = options;
  return freshRoute(createHistoryHandler({
    ...options,
    authorize: fromContext(options.authorize),
    canEdit: canEdit &&
      ((_req, field, editor, context) =>
        canEdit(context as FreshContextLike<State>, field, editor)),
  }));
}

/** A ctx-aware `authorize` as the plain handlers' `(req, context)` one. */
function fromContext<State>(authorize: FreshAuthorize<State>): Authorize {
  return (_req, context) => authorize(context as FreshContextLike<State>);
}

/**
 * Runs a Web-standard endpoint as a Fresh catch-all handler (one
 * parameter, as Fresh requires): the request at `ctx.url`, so the origin
 * check compares against what Fresh (and its `csrf()`) sees, and the
 * context for the hooks.
 */
function freshRoute<State>(handle: Handler<EndpointCall>): FreshHandler<State> {
  return (ctx) => {
    const { req, url } = ctx;
    const seen = req.url === url.href ? req : new Request(url, req);
    return handle(seen, { context: ctx });
  };
}

/** Options of the draft routes: the draft handlers', with ctx-aware hooks. */
export type CmsDraftRouteOptions<State> =
  & Omit<DraftHandlerOptions, "authorize" | "canEdit">
  & Pick<CmsSaveRouteOptions<State>, "authorize" | "canEdit">;

/** The draft handlers' options with the Fresh hooks adapted. */
function draftOptions<State>(
  options: CmsDraftRouteOptions<State>,
): DraftHandlerOptions {
  const { canEdit } = options;
  return {
    ...options,
    authorize: fromContext(options.authorize),
    canEdit: canEdit &&
      ((_req, field, editor, context) =>
        canEdit(context as FreshContextLike<State>, field, editor)),
  };
}

/**
 * The draft endpoints of publish mode `draft` as Fresh 2 route handlers:
 * `drafts` (`GET`), `publish` (`POST {fields?, versions?, at?}`), `discard`
 * (`POST {field}`), and for scheduled publishes `schedule` (`GET`) and
 * `cancelSchedule` (`POST {id}`); other methods get 405. The rules are
 * `createDraftsHandler`'s, `createPublishHandler`'s and
 * `createDiscardHandler`'s (the save endpoint's session, origin, allowlist
 * and `canEdit`), with the hooks receiving the Fresh context.
 *
 * @example
 * ```ts
 * // routes/api/cms/[action].ts — drafts, publish, discard
 * import { cmsDraftRoutes } from "@inplace/cms/fresh";
 * import { defineContent, MemoryContentStore } from "@inplace/cms";
 *
 * type State = { user?: { name: string } };
 * export const handler = cmsDraftRoutes<State>({
 *   authorize: (ctx) => ctx.state.user ?? null,
 *   allowlist: defineContent({ pages: { title: "plain", body: "rich" } }),
 *   store: new MemoryContentStore(),
 * }).publish;
 * ```
 */
export function cmsDraftRoutes<State>(
  options: CmsDraftRouteOptions<State>,
): {
  drafts: FreshHandler<State>;
  publish: FreshHandler<State>;
  discard: FreshHandler<State>;
  schedule: FreshHandler<State>;
  cancelSchedule: FreshHandler<State>;
} {
  const opts = draftOptions(options);
  return {
    drafts: freshRoute(createDraftsHandler(opts)),
    publish: freshRoute(createPublishHandler(opts)),
    discard: freshRoute(createDiscardHandler(opts)),
    // Scheduled publishes: `schedule` (GET, the listing), `cancelSchedule`
    // (POST).
    schedule: freshRoute(createScheduleHandler(opts)),
    cancelSchedule: freshRoute(createCancelScheduleHandler(opts)),
  };
}

/** Options of {@linkcode cmsPreviewRoute}: the preview handler's, ctx-aware. */
export type CmsPreviewRouteOptions<State> =
  & Omit<PreviewHandlerOptions, "authorize">
  & Pick<CmsSaveRouteOptions<State>, "authorize">;

/**
 * The preview endpoint as a Fresh 2 route handler: `POST {"path"}` → 200
 * `{url, expires}`. Check the token on the page itself with
 * `signer.verify(ctx.url.searchParams.get("preview"), ctx.url.pathname)`
 * and render drafts (`store.getDrafted`) only when it is `true`.
 *
 * @example
 * ```ts
 * // routes/api/cms/preview.ts
 * import { cmsPreviewRoute } from "@inplace/cms/fresh";
 * import { PreviewSigner } from "@inplace/cms";
 *
 * type State = { user?: { name: string } };
 * export const handler = cmsPreviewRoute<State>({
 *   authorize: (ctx) => ctx.state.user ?? null,
 *   signer: new PreviewSigner(Deno.env.get("CMS_PREVIEW_SECRET")!),
 * });
 * ```
 */
export function cmsPreviewRoute<State>(
  options: CmsPreviewRouteOptions<State>,
): FreshHandler<State> {
  return freshRoute(createPreviewHandler({
    ...options,
    authorize: fromContext(options.authorize),
  }));
}

/** {@linkcode cmsClientRoute}'s handler, with the client's paths. */
export type FreshClientRoute<State> =
  & FreshHandler<State>
  & Pick<ClientHandler, "entry" | "mount" | "base">;

/**
 * The browser client's files as a Fresh 2 route (see `createClientHandler`
 * in `@inplace/cms`): mount it as a catch-all file route under the same
 * `base` (default `/cms/`), then load `entry` from an island or put
 * `<script type="module" src={handler.mount}>` in edit mode, which needs
 * no inline script (`script-src 'self'`).
 *
 * @example
 * ```ts
 * // routes/cms/[...path].ts
 * import { cmsClientRoute } from "@inplace/cms/fresh";
 * export const handler = cmsClientRoute(); // /cms/mod.js, /cms/mount.js, …
 * ```
 */
export function cmsClientRoute<State>(
  options: ClientHandlerOptions = {},
): FreshClientRoute<State> {
  const client = createClientHandler(options);
  const route = (ctx: FreshContextLike<State>) => client(ctx.req);
  const { entry, mount, base } = client;
  return Object.assign(route, { entry, mount, base });
}

/**
 * The whole service of `createCms` as one Fresh 2 catch-all route: export
 * it from `routes/api/cms/[...path].ts` (under the service's `basePath`).
 * Each request reaches the service at `ctx.url` (so the origin check
 * follows Fresh's `csrf()` and `trustProxy`), with `ctx` as the context of
 * `authorize` and `canEdit` (see {@linkcode freshAuthorize}). A path the
 * service doesn't route goes on with `ctx.next()`. A `LocalMediaStorage`
 * outside the base path (e.g. `/media`) needs its own catch-all file
 * (`routes/media/[...path].ts`) exporting the same handler.
 *
 * @example
 * ```ts
 * // routes/api/cms/[...path].ts
 * import { cmsRoute, freshAuthorize } from "@inplace/cms/fresh";
 * import { createCms, defineContent, MemoryContentStore } from "@inplace/cms";
 *
 * type State = { user?: { name: string } };
 * // In a real site, `cms` lives in one module (e.g. `cms.ts`) that the
 * // pages import too, for `cms.pageConfig()` and `cms.mount`.
 * export const handler = cmsRoute<State>(createCms({
 *   authorize: freshAuthorize<State>((ctx) => ctx.state.user ?? null),
 *   allowlist: defineContent({ pages: { title: "plain", body: "rich" } }),
 *   store: new MemoryContentStore(),
 *   publishMode: "draft",
 * }));
 * ```
 */
export function cmsRoute<State>(
  cms: {
    handle(req: Request, call?: EndpointCall): Promise<Response | null>;
  },
): FreshHandler<State> {
  return async (ctx) => {
    const { req, url } = ctx;
    const seen = req.url === url.href ? req : new Request(url, req);
    return await cms.handle(seen, { context: ctx }) ?? await ctx.next();
  };
}

/**
 * A Fresh-context `authorize` (the editor from `ctx.state`) as the
 * `authorize` option of `createCms`, for a service mounted with
 * {@linkcode cmsRoute}.
 *
 * @example
 * ```ts
 * import { freshAuthorize } from "@inplace/cms/fresh";
 * type State = { user?: { name: string } };
 * const authorize = freshAuthorize<State>((ctx) => ctx.state.user ?? null);
 * ```
 */
export function freshAuthorize<State>(
  authorize: FreshAuthorize<State>,
): Authorize {
  return fromContext(authorize);
}

/**
 * A Fresh-context `canEdit` as the `canEdit` option of `createCms`, for a
 * service mounted with {@linkcode cmsRoute}.
 *
 * @example
 * ```ts
 * import { freshCanEdit } from "@inplace/cms/fresh";
 * type State = { user?: { name: string; id: string } };
 * const canEdit = freshCanEdit<State>((ctx, field) =>
 *   field.collection !== "posts" ||
 *   field.key.startsWith(`${ctx.state.user?.id}-`)
 * );
 * ```
 */
export function freshCanEdit<State>(canEdit: FreshCanEdit<State>): CanEdit {
  return (_req, field, editor, context) =>
    canEdit(context as FreshContextLike<State>, field, editor);
}
