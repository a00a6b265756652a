/**
 * The parts of Fresh 2's `Context` the wrappers use, typed structurally so
 * this package never imports Fresh.
 *
 * @module
 */
import type { Editor } from "../server/http/mod.ts";

/**
 * The shape of a Fresh 2 `Context` as far as this package needs it:
 * `req`, `url`, `params`, `state` and `next()`. Fresh's real context is
 * assignable to it.
 *
 * @example
 * ```ts
 * import type { FreshContextLike } from "@inplace/cms/fresh";
 * const ctx: FreshContextLike<{ user?: string }> = {
 *   req: new Request("http://localhost/"),
 *   url: new URL("http://localhost/"),
 *   params: {},
 *   state: {},
 *   next: () => Promise.resolve(new Response("ok")),
 * };
 * ```
 */
export interface FreshContextLike<State = Record<string, unknown>> {
  /** The incoming request. */
  readonly req: Request;
  /** The request URL, parsed. */
  readonly url: URL;
  /** Route parameters. */
  readonly params: Record<string, string>;
  /** Per-request state shared by middlewares (e.g. `state.user`). */
  readonly state: State;
  /** Runs the next middleware or the route. */
  next(): Promise<Response>;
}

/**
 * Resolves the editor from a Fresh context (typically from `ctx.state`, which
 * the host's session middleware filled), or `null` for nobody.
 *
 * @example
 * ```ts
 * import type { FreshAuthorize } from "@inplace/cms/fresh";
 * type State = { user?: { name: string; role: string } };
 * const authorize: FreshAuthorize<State> = (ctx) =>
 *   ctx.state.user?.role === "editor" ? { name: ctx.state.user.name } : null;
 * ```
 */
export type FreshAuthorize<State> = (
  ctx: FreshContextLike<State>,
) => Editor | null | undefined | Promise<Editor | null | undefined>;

/** A Fresh 2 handler or middleware: exactly one parameter, the context. */
export type FreshHandler<State> = (
  ctx: FreshContextLike<State>,
) => Promise<Response>;
