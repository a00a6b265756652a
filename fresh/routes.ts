/**
 * Route wrappers for Fresh 2.3: the save and media endpoints as catch-all
 * route handlers, with `authorize` receiving the Fresh context and the
 * cross-site check comparing against `ctx.url`.
 *
 * Each wrapper is one function taking the context. Fresh hands a function
 * handler every method, so the endpoint itself answers the methods it
 * doesn't serve: 405 with `Allow`. (A per-method object would let Fresh's
 * file routes fall through to 404, and `app.post()` answers 405 without
 * `Allow`.) Per request, the wrapper builds the Web-standard handler with
 * the context's view of the world (editor, origin) and runs it: no state
 * outlives the request.
 *
 * To add a wrapper for another endpoint, follow {@linkcode cmsSaveRoute}:
 * `perRequest(createXHandler, options)`.
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

/**
 * A plain handler's options turned into a Fresh wrapper's: `authorize`
 * receives the Fresh context instead of the request.
 */
export type FreshRouteOptions<Options, State> =
  & Omit<Options, "authorize">
  & {
    /** The editor from the Fresh context (e.g. `ctx.state.user`), or `null`. */
    authorize: FreshAuthorize<State>;
  };

/** Options of {@linkcode cmsSaveRoute}: the save handler's, with a ctx-aware `authorize`. */
export type CmsSaveRouteOptions<State> = FreshRouteOptions<
  SaveHandlerOptions,
  State
>;

/** Options of {@linkcode cmsMediaRoute}: the media handler's, with a ctx-aware `authorize`. */
export type CmsMediaRouteOptions<State> = FreshRouteOptions<
  MediaHandlerOptions,
  State
>;

/**
 * The save endpoint as a Fresh 2 route handler: `PATCH` (what the client
 * sends) and `POST`; every other method gets 405 with `Allow: PATCH, POST`.
 * All rules (allowlist, sanitizing, cross-site check, limits, conflicts) are
 * the Web-standard `createSaveHandler`'s; this hands `authorize` the Fresh
 * context, and makes the cross-site check compare `Origin` with
 * `ctx.url.origin`, exactly as Fresh's `csrf()` does. With
 * `new App({ trustProxy: true })` that is the forwarded origin.
 *
 * Export it as a file route's `handler`, or mount it for all methods
 * (`app.all(path, handler)`); `app.post(path, handler)` would let Fresh
 * answer other methods 405 without `Allow`.
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
): FreshHandler<State> {
  return perRequest(createSaveHandler, options);
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
  return perRequest(createMediaHandler, options);
}

/** What every plain endpoint's options have in common with the wrappers. */
interface PlainOptions {
  authorize: Authorize;
  allowedOrigins?: readonly string[];
}

/**
 * Adapts a plain endpoint factory to a Fresh catch-all handler: per
 * request, the plain handler is created with `authorize` bound to this
 * context and `ctx.url.origin` as the page's own origin, then run on
 * `ctx.req`. The function declares exactly one parameter, as Fresh
 * requires of route handlers.
 */
function perRequest<Options extends PlainOptions, State>(
  create: (options: Options) => (req: Request) => Promise<Response>,
  options: FreshRouteOptions<Options, State>,
): FreshHandler<State> {
  return (ctx: FreshContextLike<State>) => {
    const plain = {
      ...options,
      authorize: () => options.authorize(ctx),
      allowedOrigins: [ctx.url.origin, ...options.allowedOrigins ?? []],
    } as unknown as Options;
    return create(plain)(ctx.req);
  };
}
