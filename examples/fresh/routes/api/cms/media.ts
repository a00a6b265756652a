import { cmsMediaRoute } from "@inplace/cms/fresh";
import { authorize, media } from "../../../cms.ts";
import type { State } from "../../../utils.ts";

// POST raw image bytes → {key, url, width, height, type}; every other
// method gets 405 with `Allow: POST`.
export const handler = cmsMediaRoute<State>({ authorize, storage: media });
