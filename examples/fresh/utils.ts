import { createDefine } from "fresh";
import type { State } from "./cms.ts";

export type { State };

// The type of ctx.state, shared by middlewares, layouts and routes.
export const define = createDefine<State>();
