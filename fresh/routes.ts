/**
 * Route wrappers for Fresh 2: the save and media endpoints as the method
 * objects a route file exports, with `authorize` receiving the Fresh context.
 *
 * @module
 */
import { createSaveHandler, type SaveHandlerOptions } from "../server/save.ts";
import {
  createMediaHandler,
  type MediaHandlerOptions,
} from "../server/media.ts";
import type { Authorize } from "../server/types.ts";
import type {
  FreshAuthorize,
  FreshContextLike,
  FreshHandler,
} from "./context.ts";

/** Options of {@linkcode cmsSaveRoute}: the save handler's, with a ctx-aware `authorize`. */
export type CmsSaveRouteOptions<State> =
  & Omit<SaveHandlerOptions, "authorize">
  & {
    /** The editor from the Fresh context (e.g. `ctx.state.user`), or `null`. */
    authorize: FreshAuthorize<State>;
  };

/** Options of {@linkcode cmsMediaRoute}: the media handler's, with a ctx-aware `authorize`. */
export type CmsMediaRouteOptions<State> =
  & Omit<MediaHandlerOptions, "authorize">
  & {
    /** The editor allowed to upload, from the Fresh context, or `null`. */
    authorize: FreshAuthorize<State>;
  };

/** What a save route file exports as `handler`. */
export interface CmsSaveRoute<State> {
  /** The client's method. */
  PATCH: FreshHandler<State>;
  /** Also accepted. */
  POST: FreshHandler<State>;
}

/** What a media route file exports as `handler`. */
export interface CmsMediaRoute<State> {
  /** Raw image bytes in, `{key, url, width, height, type}` out. */
  POST: FreshHandler<State>;
}

/**
 * The save endpoint as a Fresh 2 route handler. All rules (allowlist,
 * sanitizing, cross-site check, limits, conflicts) are the Web-standard
 * `createSaveHandler`'s; this only hands `authorize` the Fresh context.
 * Fresh answers other methods with 405 itself.
 *
 * It works behind Fresh's own `csrf()` middleware: both apply the same rule,
 * so a request `csrf()` let through passes here too, provided the same extra
 * origins are given as `allowedOrigins`.
 *
 * @example
 * ```ts
 * // routes/api/cms/save.ts
 * import { cmsSaveRoute } from "@inplace/cms/fresh";
 * import { MemoryContentStore } from "@inplace/cms";
 *
 * type State = { user?: { name: string } };
 * export const handler = cmsSaveRoute<State>({
 *   authorize: (ctx) => ctx.state.user ?? null,
 *   allowlist: { pages: { title: "plain", body: "rich", features: "list" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function cmsSaveRoute<State>(
  options: CmsSaveRouteOptions<State>,
): CmsSaveRoute<State> {
  const bridge = contextBridge(options.authorize);
  const handle = createSaveHandler({ ...options, authorize: bridge.authorize });
  const run = (ctx: FreshContextLike<State>) => bridge.run(ctx, handle);
  return { PATCH: run, POST: run };
}

/**
 * The media endpoint as a Fresh 2 route handler (`POST` only). The rules are
 * `createMediaHandler`'s; `authorize` receives the Fresh context.
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
): CmsMediaRoute<State> {
  const bridge = contextBridge(options.authorize);
  const handle = createMediaHandler({
    ...options,
    authorize: bridge.authorize,
  });
  return { POST: (ctx) => bridge.run(ctx, handle) };
}

/**
 * Lets a request-based `authorize` reach the Fresh context of the request
 * being handled. Unknown requests (never the case in practice) get `null`,
 * so the bridge fails closed.
 */
function contextBridge<State>(authorize: FreshAuthorize<State>) {
  const contexts = new WeakMap<Request, FreshContextLike<State>>();
  const requestAuthorize: Authorize = (req) => {
    const ctx = contexts.get(req);
    return ctx ? authorize(ctx) : null;
  };
  return {
    authorize: requestAuthorize,
    async run(
      ctx: FreshContextLike<State>,
      handle: (req: Request) => Promise<Response>,
    ): Promise<Response> {
      const req = ctx.req;
      contexts.set(req, ctx);
      try {
        return await handle(req);
      } finally {
        contexts.delete(req);
      }
    },
  };
}
