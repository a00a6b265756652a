// Content, media and the allowlist, shared by the routes.
import {
  type Allowlist,
  KvContentStore,
  LocalMediaStorage,
  serveLocalMedia,
} from "@inplace/cms";
import type { FreshAuthorize } from "@inplace/cms/fresh";
import type { State } from "./utils.ts";

/** Writable fields; everything else is rejected with 400. */
export const allowlist: Allowlist = {
  pages: { title: "plain", body: "rich", features: "list" },
};

/** Who may edit: whoever the session middleware put in ctx.state.user. */
export const authorize: FreshAuthorize<State> = (ctx) => ctx.state.user ?? null;

await Deno.mkdir(".data/media", { recursive: true });
export const store = new KvContentStore(await Deno.openKv(".data/content.kv"));
export const media = new LocalMediaStorage({
  dir: ".data/media",
  publicUrl: "/media",
});
export const serveMedia = serveLocalMedia(media);

// Defaults on first run (list items must exist before they can be saved).
await store.update("pages", "home", (current) =>
  current ?? {
    title: "Hello from Fresh",
    body: "<p>Open this page with <code>?edit</code> as an editor.</p>",
    features: ["Plain text", "Rich text", "Lists"],
  });
