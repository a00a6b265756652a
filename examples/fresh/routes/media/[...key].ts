import { serveMedia } from "../../cms.ts";
import { define } from "../../utils.ts";

// Uploaded files (GET and HEAD), with their sniffed type and nosniff.
export const handler = define.handlers((ctx) => serveMedia(ctx.req));
