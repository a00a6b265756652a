/**
 * The demo's content schema: one declaration of its editable fields (the
 * save endpoint's allowlist, with limits) and the defaults seeded on first
 * run.
 *
 * @module
 */
import {
  defineContent,
  type FieldAddressOf,
  list,
  plain,
} from "../core/content.ts";
import { readLocale } from "../core/locale.ts";
import type {
  ContentRecord,
  ContentStore,
  DraftStore,
} from "../server/store/mod.ts";

/**
 * Writable fields, declared once: the save endpoint rejects everything else
 * with 400, and over-long values with 400 and the limit.
 */
export const ALLOWLIST = defineContent(fields());

/** The demo's fields (one declaration, with or without locales). */
function fields() {
  return {
    pages: {
      title: plain({ maxLength: 200 }),
      body: "rich",
      features: list(plain({ maxLength: 200 }), {
        min: 1,
        max: 8,
        label: "Features",
      }),
      summary: "rich",
      hero: "image",
    },
  } as const;
}

/**
 * The demo's content with the locales of `CMS_LOCALES` (the first is the
 * default, served at `/`; each other one at `/<locale>/`), or
 * {@linkcode ALLOWLIST} when there are none.
 */
export function demoContent(
  locales: readonly string[] | undefined,
): typeof ALLOWLIST {
  return locales?.length ? defineContent(fields(), { locales }) : ALLOWLIST;
}

/** Every field address of the demo, e.g. `pages:home:features.1`. */
export type DemoField = FieldAddressOf<typeof ALLOWLIST>;

/** The home page record as the demo renders it. */
export interface HomePage {
  title: string;
  body: string;
  features: string[];
  summary: string;
  /** The hero image's URL (an image field); `""` until an editor sets one. */
  hero: string;
  /**
   * In a locale: field → the locale its value came from (`readLocale`'s
   * `from`); another locale than the page's is a fallback.
   */
  from?: Record<string, string>;
}

/** Defaults of `pages:home`, seeded on first run (already in sanitized form). */
export const HOME_DEFAULTS: HomePage = {
  title: "Edit this page in place",
  summary:
    "<p>A server-rendered page whose text and images its editors change right where they read them.</p>",
  body: [
    "<h2>How it works</h2>",
    "<p>Sign in, open the page with <code>?edit</code>, and click any outlined text. ",
    "Plain fields stay single-line; this body is rich text with <strong>bold</strong>, ",
    "<em>italic</em>, links, headings, lists and images.</p>",
    "<p>Save sends one request per changed field. Images go through the media endpoint ",
    "and are stored with the type sniffed from their bytes.</p>",
  ].join(""),
  hero: "",
  features: [
    "Only changed fields are saved",
    "Rich text is sanitized on the server",
    "Images keep their width and height",
  ],
};

/** Writes the defaults for every field `pages:home` does not have yet. */
export async function seedHome(store: ContentStore): Promise<void> {
  await store.update("pages", "home", (current) => {
    const record: ContentRecord = { ...current };
    let changed = false;
    for (const [field, value] of Object.entries(HOME_DEFAULTS)) {
      if (!(field in record)) {
        record[field] = value;
        changed = true;
      }
    }
    return changed ? record : null;
  });
}

/**
 * Reads `pages:home`, falling back to the defaults field by field: the
 * published values, or with `drafts` (edit mode, preview links) the drafts
 * written over them; with `locale`, as that locale reads them.
 */
export async function loadHome(
  store: ContentStore,
  drafts = false,
  locale?: { content: typeof ALLOWLIST; locale: string },
): Promise<HomePage> {
  const stored =
    (drafts && "getDrafted" in store
      ? await (store as DraftStore).getDrafted("pages", "home")
      : await store.get("pages", "home")) ?? {};
  // In a locale: its own values, else its fallbacks' (the default's).
  const read = locale &&
    readLocale(stored, locale.content, "pages", locale.locale);
  const r = read ? read.values : stored;
  const str = (v: unknown, d: string) => typeof v === "string" ? v : d;
  return {
    title: str(r.title, HOME_DEFAULTS.title),
    body: str(r.body, HOME_DEFAULTS.body),
    summary: str(r.summary, HOME_DEFAULTS.summary),
    hero: str(r.hero, HOME_DEFAULTS.hero),
    features: Array.isArray(r.features) ? r.features : HOME_DEFAULTS.features,
    ...read ? { from: read.from } : {},
  };
}

/** What an editor sees where the hero image field is still empty. */
export const HERO_PLACEHOLDER = "/demo/hero-empty.svg";
