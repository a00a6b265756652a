// The editable content, its storage and who may edit, shared by the routes.
import {
  defineContent,
  KvContentStore,
  list,
  LocalMediaStorage,
  plain,
  serveLocalMedia,
} from "@inplace/cms";
import type { FreshAuthorize } from "@inplace/cms/fresh";
import type { State } from "./utils.ts";

/**
 * The one declaration of what is editable. The save route takes it as its
 * allowlist, and <CmsField content={content}> takes the field kinds from
 * it: a misspelled field is a type error.
 */
export const content = defineContent({
  pages: {
    title: plain({ maxLength: 120 }),
    body: "rich",
    hero: "image",
    features: list("plain"),
  },
});

/** Who may edit: whoever the session middleware put in ctx.state.user. */
export const authorize: FreshAuthorize<State> = (ctx) => ctx.state.user ?? null;

await Deno.mkdir(".data", { recursive: true });
export const store = new KvContentStore(await Deno.openKv(".data/content.kv"));

// Upload key "a1b2.png" (the media endpoint's default) is stored in
// .data/media/a1b2.png and served by routes/media/[...key].ts at
// /media/a1b2.png, the storage's default public base.
export const media = new LocalMediaStorage({ dir: ".data/media" });
export const serveMedia = serveLocalMedia(media);

// Defaults on first run (list items must exist before they can be saved).
await store.update("pages", "home", (current) =>
  current ?? {
    title: "Hello from Fresh",
    body: "<p>Open this page with <code>?edit</code> as an editor.</p>",
    features: ["Plain text", "Rich text", "Lists"],
  });
