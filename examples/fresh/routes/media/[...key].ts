import { serveMedia } from "../../cms.ts";
import { define } from "../../utils.ts";

// Uploaded files, with their sniffed type and nosniff.
export const handler = define.handlers({
  GET: (ctx) => serveMedia(ctx.req),
});
