import { cmsRoute } from "@inplace/cms/fresh";
import { cms, type State } from "../../../cms.ts";

// Save, media, the library, history, drafts, publish, discard, schedules
// and the client's files: every path under /api/cms, every method. A path
// the service doesn't route falls through to Fresh's 404.
export const handler = cmsRoute<State>(cms);
