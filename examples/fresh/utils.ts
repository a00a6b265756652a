import { createDefine } from "fresh";
import type { CmsState } from "@inplace/cms/fresh";

// This specifies the type of "ctx.state" which is used to share
// data among middlewares, layouts and routes.
export interface State {
  /** Set by the session middleware for a signed-in editor. */
  user?: { name: string };
  /** Set by cmsEditMode(): `{ editing, editor }`. */
  cms?: CmsState;
}

export const define = createDefine<State>();
