import { cmsSaveRoute } from "@inplace/cms/fresh";
import { authorize, content, store } from "../../../cms.ts";
import type { State } from "../../../utils.ts";

// One catch-all handler: PATCH (what the client sends) and POST save; every
// other method gets 405 with `Allow: PATCH, POST`.
export const handler = cmsSaveRoute<State>({
  authorize,
  allowlist: content,
  store,
});
