import { createDefine } from "fresh";
import type { CmsState } from "@inplace/cms/fresh";

export interface State {
  /** Set by the session middleware for a signed-in editor. */
  user?: { name: string };
  /** Set by cmsEditMode(): `{ editing, editor }`. */
  cms?: CmsState;
}

export const define = createDefine<State>();
