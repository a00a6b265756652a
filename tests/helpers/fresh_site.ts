/**
 * The front of a Fresh site in the Fresh chain model, as a host wires it
 * before the CMS routes: `csrf()` (optional), then a toy session.
 *
 * @module
 */
import type { Editor } from "../../server/http/auth.ts";
import { csrf, FreshModelApp } from "./fresh_chain.ts";

/** What the toy session puts in `ctx.state`. */
export interface SessionState {
  /** The signed-in editor, if any. */
  user?: Editor;
}

/** The editor the toy session signs in (`Cookie: session=ada`). */
export const ADA: Editor = { name: "Ada" };

/** Options of {@linkcode sessionApp}. */
export interface SessionAppOptions {
  /** Fresh's `trustProxy`. Default `false`. */
  trustProxy?: boolean;
  /** Put Fresh's `csrf()` first. Default `true`. */
  withCsrf?: boolean;
}

/**
 * A Fresh-model app with `csrf()` (unless `withCsrf` is `false`) and the
 * toy session, where `Cookie: session=ada` makes {@linkcode ADA} the
 * editor in `ctx.state.user`. Add the routes to it.
 *
 * @example
 * ```ts
 * import { sessionApp } from "./fresh_site.ts";
 * const app = sessionApp({ trustProxy: true });
 * app.fsRoute("/hello", { handler: () => new Response("hi") });
 * ```
 */
export function sessionApp<S extends SessionState>(
  options: SessionAppOptions = {},
): FreshModelApp<S> {
  const app = new FreshModelApp<S>({ trustProxy: options.trustProxy });
  if (options.withCsrf ?? true) app.use(csrf());
  app.use((ctx) => {
    if (ctx.req.headers.get("Cookie") === "session=ada") ctx.state.user = ADA;
    return ctx.next();
  });
  return app;
}
