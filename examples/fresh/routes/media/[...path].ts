import { cmsRoute } from "@inplace/cms/fresh";
import { cms, type State } from "../../cms.ts";

// Uploaded files (GET and HEAD), with their sniffed type and nosniff.
export const handler = cmsRoute<State>(cms);
