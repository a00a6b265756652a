/**
 * The edit-mode middleware: decides per request whether the page renders
 * with markers, and keeps those responses out of shared caches.
 *
 * @module
 */
import type { Editor } from "../server/http/mod.ts";
import type { FreshAuthorize, FreshContextLike } from "./context.ts";

/** What {@linkcode cmsEditMode} puts in `ctx.state.cms`. */
export interface CmsState {
  /** `true` only for an authorized editor who asked for edit mode. */
  editing: boolean;
  /** The editor when `editing`, otherwise `null`. */
  editor: Editor | null;
  /**
   * The page's locale, when the `locale` option gave one: pass it to
   * `<CmsField locale>` and `readLocalized`.
   */
  locale?: string;
}

/** Options of {@linkcode cmsEditMode}. */
export interface CmsEditModeOptions<State> {
  /** The editor from the Fresh context (your session), or `null`. */
  authorize: FreshAuthorize<State>;
  /** The query parameter that asks for edit mode. Default `"edit"`. */
  param?: string;
  /**
   * The page's locale on a site with several (e.g. from the path prefix),
   * or `null`/`undefined` for none. It goes to `ctx.state.cms.locale`, and
   * the response gets `Content-Language` (unless the route set one).
   */
  locale?: (ctx: FreshContextLike<State>) => string | null | undefined;
}

/**
 * Middleware that sets `ctx.state.cms = { editing, editor }`.
 *
 * Mechanism: edit mode is asked for with the query parameter `?edit` (any
 * value, or none) and granted only when `authorize(ctx)` returns an editor.
 * Everyone else, including a visitor who adds `?edit`, gets
 * `editing: false` and the ordinary page. `authorize` runs only on requests
 * that ask, so visitors pay nothing.
 *
 * Responses to requests that ask get `Vary: Cookie`; responses rendered in
 * edit mode also get `Cache-Control: private, no-store`, so no shared cache
 * ever serves markers to a visitor. Edit mode is a rendering choice only:
 * the save and media endpoints authorize every write from the session.
 *
 * @example
 * ```ts
 * // routes/_middleware.ts (Fresh 2: the default export, after your session
 * // middleware, which puts the signed-in user in ctx.state.user)
 * import { cmsEditMode } from "@inplace/cms/fresh";
 * type State = { user?: { name: string } };
 * export default [
 *   cmsEditMode<State>({ authorize: (ctx) => ctx.state.user ?? null }),
 * ];
 * // routes/index.tsx then reads ctx.state.cms.editing
 * ```
 *
 * @example On a site with locales (German under `/de/`)
 * ```ts
 * import { cmsEditMode } from "@inplace/cms/fresh";
 * type State = { user?: { name: string } };
 * export default [
 *   cmsEditMode<State>({
 *     authorize: (ctx) => ctx.state.user ?? null,
 *     locale: (ctx) => ctx.url.pathname.startsWith("/de/") ? "de" : "en",
 *   }),
 * ];
 * // routes read ctx.state.cms.locale; responses get Content-Language
 * ```
 */
export function cmsEditMode<State>(
  options: CmsEditModeOptions<State>,
): (ctx: FreshContextLike<State>) => Promise<Response> {
  const param = options.param ?? "edit";
  return async (ctx) => {
    const asked = ctx.url.searchParams.has(param);
    const editor = asked ? (await options.authorize(ctx)) ?? null : null;
    const locale = options.locale?.(ctx) ?? undefined;
    const cms: CmsState = { editing: editor !== null, editor };
    if (locale !== undefined) cms.locale = locale;
    (ctx.state as { cms?: CmsState }).cms = cms;
    const res = await ctx.next();
    if (!asked && locale === undefined) return res;
    return withHeaders(res, (headers) => {
      if (locale !== undefined && !headers.has("Content-Language")) {
        headers.set("Content-Language", locale);
      }
      if (!asked) return;
      headers.append("Vary", "Cookie");
      if (cms.editing) headers.set("Cache-Control", "private, no-store");
    });
  };
}

/** Applies `edit` to the response headers, copying the response if they are immutable. */
function withHeaders(
  res: Response,
  edit: (headers: Headers) => void,
): Response {
  try {
    edit(res.headers);
    return res;
  } catch {
    const copy = new Response(res.body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
    edit(copy.headers);
    return copy;
  }
}
