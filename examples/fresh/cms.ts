// The whole CMS in one place: what is editable, where it is stored, who may
// edit, and the one service every route and page uses.
import {
  type CmsOptions,
  createCms,
  defineContent,
  KvContentStore,
  list,
  LocalMediaStorage,
  plain,
  shared,
} from "@inplace/cms";
import { type CmsState, freshAuthorize } from "@inplace/cms/fresh";

/** What the middlewares put in ctx.state (see routes/_middleware.ts). */
export interface State {
  /** The signed-in editor, set by your session middleware. */
  user?: { name: string };
  /** Set by cmsEditMode(): `{ editing, editor, locale }`. */
  cms?: CmsState;
}

/**
 * The one declaration of what is editable, in English and German. The save
 * endpoint takes it as its allowlist, and <CmsField content={content}>
 * takes the field kinds from it: a misspelled field is a type error.
 */
export const content = defineContent({
  pages: {
    title: plain({ maxLength: 120 }),
    body: "rich",
    // One picture for both languages.
    hero: shared("image"),
    features: list({ max: 6 }),
  },
}, { locales: ["en", "de"] });

/** The home page's URL in each locale. */
export const homeOf = (locale: string): string =>
  locale === "de" ? "/de/" : "/";

/** The page's locale: German under /de/, English everywhere else. */
export const localeOf = (url: URL): string =>
  url.pathname === "/de" || url.pathname.startsWith("/de/") ? "de" : "en";

const data = Deno.env.get("DATA_DIR") ?? ".data";
await Deno.mkdir(data, { recursive: true });

/**
 * One options object for everything: the service below, and
 * responsiveImage() on the pages (it reads `store` and `storage`).
 */
export const options = {
  // Who may edit: whoever the session middleware put in ctx.state.user.
  authorize: freshAuthorize<State>((ctx) => ctx.state.user ?? null),
  allowlist: content,
  // Content, drafts, history and schedules, in Deno KV.
  store: new KvContentStore(await Deno.openKv(`${data}/content.kv`)),
  // Uploads in .data/media, served at /media/<key> (routes/media/).
  storage: new LocalMediaStorage({ dir: `${data}/media`, publicUrl: "/media" }),
  // Edits are drafts until an editor publishes them (now or at a time).
  publishMode: "draft",
  schedules: true,
  library: true,
  // Where a published field is shown, for the edit bar's links.
  pageUrl: ({ locale }) => homeOf(locale ?? "en"),
} satisfies CmsOptions;

/**
 * Every endpoint under /api/cms (routes/api/cms/[...path].ts), the client
 * files and the uploads. Its scheduler publishes scheduled drafts.
 */
export const cms = createCms(options);

// Defaults on first run (list items must exist before they can be saved).
await options.store.update("pages", "home", (current) =>
  current ?? {
    title: "Hello from Fresh",
    "title@de": "Hallo aus Fresh",
    body: "<p>Open this page with <code>?edit</code> as an editor.</p>",
    features: ["Drafts and publishing", "History", "Two languages"],
  });
