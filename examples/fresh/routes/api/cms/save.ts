import { cmsSaveRoute } from "@inplace/cms/fresh";
import { allowlist, authorize, store } from "../../../cms.ts";
import type { State } from "../../../utils.ts";

// PATCH (what the client sends) and POST; Fresh answers other methods 405.
export const handler = cmsSaveRoute<State>({ authorize, allowlist, store });
