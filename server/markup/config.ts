/**
 * The page config script the client reads (`#cms-config`), the module
 * script that loads the client, and the `hreflang` links of a localized
 * page, as escaped markup for template strings; the Preact components
 * `CmsConfig`, `CmsScript` and `CmsAlternates` render through them.
 *
 * @module
 */
import { type Allowlist, localesOf } from "../../core/content.ts";
import { type Attributes, element } from "./_html.ts";

/** The page config the client reads from `#cms-config` (all keys optional). */
export interface CmsPageConfig {
  /** The editor's name, shown in the edit bar. */
  editor?: string;
  /** Save endpoint. Default `/api/cms/save`. */
  save?: string;
  /** Media endpoint. Default `/api/cms/media`. */
  media?: string;
  /** History endpoint, e.g. `/api/cms/history`. Default: none (no History). */
  history?: string;
  /**
   * Media library endpoint, e.g. `/api/cms/media/library`, where the host
   * routes `createMediaLibraryHandler`: image panels offer "Choose from
   * library". Default: none.
   */
  library?: string;
  /**
   * Show Settings (fires `cms:open-drawer`). Default `true`; `false` hides
   * it on a site without a settings drawer.
   */
  settings?: boolean;
  /**
   * Public base URL of uploaded media (the media storage's `url("")`): pasted
   * or restored `srcset` under it is kept in the editor.
   */
  mediaBase?: string;
  /** Where Done goes. Default: the current URL without `edit`. */
  exit?: string;
  /**
   * Publish endpoint (publish mode `draft`), e.g. `/api/cms/publish`: the
   * edit bar marks drafts and offers Publish and Discard. Its siblings
   * `drafts` and `discard` are in the same folder.
   */
  publish?: string;
  /**
   * Schedule listing endpoint, e.g. `/api/cms/schedule`, where a scheduler
   * fires schedules: with `publish`, the edit bar offers "Publish at…".
   * Absent: no scheduling.
   */
  schedule?: string;
  /**
   * Editor event stream, e.g. `/api/cms/events`: editors see each other and
   * saved values arrive live. Absent: off.
   */
  events?: string;
  /**
   * Link check endpoint, e.g. `/api/cms/checks/links`: links an editor adds
   * or changes are checked for 404s on this site. Absent: not checked.
   */
  checks?: string;
  /**
   * Comments endpoint, e.g. `/api/cms/comments`, where review is on: editors
   * comment on selected text. Absent: no comments.
   */
  comments?: string;
  /** Review-links endpoint (editors), e.g. `/api/cms/review/links`. */
  review?: string;
  /** `true` on a page opened with a review link: the reviewer's client. */
  reviewer?: boolean;
  /** A reviewer's approve endpoint, with the page: `…/review/approve?page=P`. */
  approve?: string;
  /** A reviewer's name endpoint (`POST {name, page}`). */
  reviewName?: string;
  /** The page's locale, on a site with locales (e.g. `"de"`). */
  locale?: string;
  /**
   * The site's locales and this page's URL in each, e.g.
   * `[{ tag: "en", url: "/" }, { tag: "de", url: "/de/" }]`: with `locale`,
   * the edit bar offers a locale switcher and counts untranslated fields.
   */
  locales?: { tag: string; url: string }[];
}

/**
 * Serializes a value as JSON that is safe inside an inline `<script>`:
 * `<`, `>`, `&`, U+2028 and U+2029 become `\uXXXX` escapes, so the text can
 * never close the script element or start a comment.
 *
 * @example
 * ```ts
 * import { scriptJson } from "@inplace/cms";
 * scriptJson({ t: "</script>" }); // '{"t":"\\u003c/script\\u003e"}'
 * ```
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/** Options of {@linkcode cmsConfig}. */
export interface CmsConfigOptions {
  /** Render only in edit mode: not editing, the helpers return `""`. */
  editing?: boolean;
  /** Endpoints, editor name and exit URL for the client. */
  config?: CmsPageConfig;
}

/** Options of {@linkcode cmsScript}: the config, and how to load the client. */
export type CmsScriptOptions =
  & CmsConfigOptions
  & {
    /** CSP nonce for the scripts, if your host uses one. */
    nonce?: string;
  }
  & (
    | {
      /**
       * URL of the client's mount module (`cms.mount` of `createCms`, or
       * `createClientHandler().mount`), e.g. `/api/cms/client/mount.js`:
       * loaded with `<script type="module" src>`, no inline script (works
       * under `script-src 'self'`). `null` (a service with `client: false`):
       * only the page config; you load the client yourself.
       */
      mount: string | null;
      /** Not with `mount`. */
      src?: never;
    }
    | {
      /**
       * URL of the client's entry module (it exports `mountCms`), e.g.
       * `/cms/mod.js`: an inline module script imports it and mounts.
       */
      src: string;
      /** Not with `src`. */
      mount?: never;
    }
  );

/**
 * The attributes of the `#cms-config` script element.
 *
 * @example
 * ```ts
 * import { CONFIG_ATTRIBUTES } from "./config.ts";
 * CONFIG_ATTRIBUTES.id; // "cms-config"
 * ```
 */
export const CONFIG_ATTRIBUTES: Readonly<Attributes> = Object.freeze({
  type: "application/json",
  id: "cms-config",
});

/**
 * The inline module script that imports the client from `src` and mounts
 * it (logging a failure to the console).
 *
 * @example
 * ```ts
 * import { loaderScript } from "./config.ts";
 * loaderScript("/cms/mod.js").startsWith('import("/cms/mod.js")'); // true
 * ```
 */
export function loaderScript(src: string): string {
  return `import(${scriptJson(src)}).then((m) => m.mountCms())` +
    `.catch((e) => console.error("cms: client failed to load", e));`;
}

/**
 * In edit mode, the `<script type="application/json" id="cms-config">`
 * element the client reads (its JSON made safe with {@linkcode scriptJson});
 * `""` otherwise. Use it with your own loader; {@linkcode cmsScript} adds
 * the loader.
 *
 * @example
 * ```ts
 * import { cmsConfig } from "@inplace/cms";
 * cmsConfig({ editing: true, config: { editor: "Ada" } });
 * // '<script type="application/json" id="cms-config">{"editor":"Ada"}</script>'
 * ```
 */
export function cmsConfig(options: CmsConfigOptions): string {
  if (!options.editing) return "";
  return element("script", CONFIG_ATTRIBUTES, scriptJson(options.config ?? {}));
}

/**
 * The module script that loads the client: `<script type="module" src>`
 * for a mount module, else an inline loader of the entry module; `null`
 * for a `null` mount.
 *
 * @example
 * ```ts
 * import { clientScript } from "./config.ts";
 * clientScript({ mount: "/api/cms/client/mount.js" })?.attrs.src; // "/api/cms/client/mount.js"
 * ```
 */
export function clientScript(
  options: CmsScriptOptions,
): { attrs: Attributes; html: string } | null {
  const { nonce, mount, src } = options;
  if (mount === null) return null;
  return mount !== undefined
    ? { attrs: { type: "module", src: mount, nonce }, html: "" }
    : { attrs: { type: "module", nonce }, html: loaderScript(src!) };
}

/**
 * In edit mode, the `#cms-config` script and a module script that loads
 * the client (its `mount` module, or an inline loader of its entry `src`);
 * `""` otherwise, so visitors download no editor code. Put it at the end
 * of `<body>`.
 *
 * @example
 * ```ts
 * import { cmsScript, createCms, MemoryContentStore } from "@inplace/cms";
 * const cms = createCms({
 *   authorize: () => ({ name: "Ada" }), // your session lookup
 *   allowlist: { pages: { title: "plain" } },
 *   store: new MemoryContentStore(),
 * });
 * const editing = true;
 * const page = `<body>…${
 *   cmsScript({ editing, mount: cms.mount, config: cms.pageConfig({ editor: "Ada" }) })
 * }</body>`;
 * ```
 */
export function cmsScript(options: CmsScriptOptions): string {
  if (!options.editing) return "";
  const script = clientScript(options);
  return cmsConfig(options) +
    (script ? element("script", script.attrs, script.html) : "");
}

/** Options of {@linkcode cmsAlternates}. */
export interface CmsAlternatesOptions {
  /** A content declaration with locales. */
  content: Allowlist;
  /** The URL of this page in `locale`, e.g. `(l) => l === "en" ? "/" : `/${l}/``. */
  href: (locale: string) => string;
}

/**
 * The `hreflang` links of a page: one per declared locale, then
 * `x-default` for the default locale, as attribute records.
 *
 * @example
 * ```ts
 * import { defineContent } from "@inplace/cms";
 * import { alternateLinks } from "./config.ts";
 * const content = defineContent({ pages: { t: "plain" } }, { locales: ["en", "de"] });
 * alternateLinks({ content, href: (l) => `/${l}/` }).length; // 3
 * ```
 */
export function alternateLinks(
  options: CmsAlternatesOptions,
  who = "cmsAlternates",
): Attributes[] {
  const config = localesOf(options.content);
  if (!config) throw new TypeError(`${who}: content has no locales`);
  const link = (hreflang: string, locale: string) => ({
    rel: "alternate",
    hreflang,
    href: options.href(locale),
  });
  return [
    ...config.locales.map((locale) => link(locale, locale)),
    link("x-default", config.defaultLocale),
  ];
}

/**
 * The `<link rel="alternate" hreflang>` tags of a page in every declared
 * locale, and `x-default` for the default locale, for the page's `<head>`.
 * Throws a `TypeError` when `content` declares no locales.
 *
 * @example
 * ```ts
 * import { cmsAlternates, defineContent } from "@inplace/cms";
 * const content = defineContent({ pages: { title: "plain" } }, { locales: ["en", "de"] });
 * const head = `<head>${cmsAlternates({ content, href: (l) => l === "en" ? "/" : `/${l}/` })}</head>`;
 * ```
 */
export function cmsAlternates(options: CmsAlternatesOptions): string {
  return alternateLinks(options).map((a) => element("link", a)).join("");
}
