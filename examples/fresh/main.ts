import { App, staticFiles } from "fresh";
import type { State } from "./utils.ts";

export const app = new App<State>();

app.use(staticFiles());

// csrf(), the session and edit mode run in routes/_middleware.ts, so they
// cover every file route, including /api/cms/save and /api/cms/media.
app.fsRoutes();
