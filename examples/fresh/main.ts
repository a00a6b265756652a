import { App, staticFiles } from "fresh";
import type { State } from "./utils.ts";

// Behind a reverse proxy that sets X-Forwarded-Proto and X-Forwarded-Host,
// use `new App<State>({ trustProxy: true })`: ctx.url then carries the
// public origin, which csrf() and the save and media routes compare Origin
// with. Send the port in X-Forwarded-Host if the public one differs from
// the port this server listens on (Fresh keeps the internal port otherwise).
export const app = new App<State>();

app.use(staticFiles());

// csrf(), the session and edit mode run in routes/_middleware.ts, so they
// cover every file route, including /api/cms/save and /api/cms/media.
app.fsRoutes();
