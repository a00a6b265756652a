import { csrf } from "fresh";
import { cmsEditMode } from "@inplace/cms/fresh";
import { localeOf, type State } from "../cms.ts";
import { define } from "../utils.ts";

// TOY SESSION, for this example only: a request is an editor's when its
// `session` cookie equals the EDITOR_TOKEN environment variable. Use your
// real authentication (sessions, OAuth, …) and put the user in ctx.state.
const session = define.middleware((ctx) => {
  const token = Deno.env.get("EDITOR_TOKEN");
  const cookies = ctx.req.headers.get("Cookie")?.split(/;\s*/) ?? [];
  if (token && cookies.includes(`session=${token}`)) {
    ctx.state.user = { name: "Editor" };
  }
  return ctx.next();
});

export default [
  // Fresh's own cross-site check; the CMS endpoints apply the same rule
  // against ctx.url, so the two always agree.
  csrf<State>(),
  session,
  // ?edit renders markers for a signed-in editor (private, no-store), and
  // ctx.state.cms.locale is the page's locale (Content-Language too).
  cmsEditMode<State>({
    authorize: (ctx) => ctx.state.user ?? null,
    locale: (ctx) => localeOf(ctx.url),
  }),
];
