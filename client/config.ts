/**
 * Page configuration for {@linkcode mountCms}: read from
 * `<script type="application/json" id="cms-config">`, overridden by options.
 *
 * @module
 */

/** Endpoints, editor name and exit URL used by the client. */
export interface CmsConfig {
  /** Save endpoint. Default `/api/cms/save`. */
  save: string;
  /** Media endpoint. Default `/api/cms/media`. */
  media: string;
  /**
   * History endpoint, e.g. `/api/cms/history`; `""` (default): none, and
   * the edit bar shows no History.
   */
  history: string;
  /** Editor's display name shown in the edit bar. Default `""`. */
  editor: string;
  /** Where Done navigates. Default: the current URL without `edit`. */
  exit: string;
  /** Publish endpoint (publish mode `draft`); `""` (default): none. */
  publish: string;
  /**
   * Schedule listing endpoint (`/api/cms/schedule`; cancel is its
   * `/cancel`), set where a scheduler fires schedules: with `publish`, the
   * edit bar offers "Publish at…". `""` (default): none.
   */
  schedule: string;
  /**
   * Media library endpoint (`/api/cms/media/library`), set where the host
   * routes `createMediaLibraryHandler`: image panels offer "Choose from
   * library". `""` (default): none.
   */
  library: string;
  /**
   * Editor event stream (`/api/cms/events`): presence and live changes.
   * `""` (default): off.
   */
  events: string;
  /**
   * Public base URL of uploaded media (the media storage's `url("")`), so
   * `srcset` under it survives cleaning in the editor. `""` (default): learned
   * from the first upload's answer.
   */
  mediaBase: string;
  /**
   * Whether the edit bar shows Settings, which fires `cms:open-drawer` for
   * the host's own panel. Default `true`; `false` for a host without one.
   */
  settings: boolean;
  /**
   * The page's locale (a declared one, e.g. `"de"`) on a site with locales.
   * Default `""`: none.
   */
  locale: string;
  /**
   * The site's locales and this page's URL in each (`[{ tag: "en", url:
   * "/" }, { tag: "de", url: "/de/" }]`): with `locale`, the edit bar
   * offers them (a lazy chunk). Default `[]`: none.
   */
  locales: { tag: string; url: string }[];
  /**
   * Link check endpoint (`/api/cms/checks/links`): links added or changed
   * to a path of this site are checked there. `""` (default): none.
   */
  checks: string;
  /**
   * Comments endpoint (`/api/cms/comments`): review in place (a lazy
   * chunk: highlights, the Comment button, the panel). `""` (default): off.
   */
  comments: string;
  /** Review links endpoint (`/api/cms/review/links`): the panel offers
   * "Review link". `""` (default): none. */
  review: string;
  /**
   * A review link's page: no editing, only comments and a verdict (with
   * `comments` and `approve`). Default `false`.
   */
  reviewer: boolean;
  /** Verdict endpoint of a reviewer's page, with the page
   * (`/api/cms/review/approve?page=%2F`). `""` (default): none. */
  approve: string;
  /** Name endpoint of a reviewer's page (`/api/cms/review/name`): the name
   * a reviewer gives once. `""` (default): none. */
  reviewName: string;
}

/**
 * Reads the page config, then applies `overrides`. Keys of the page config
 * it does not know (a typo, a key from a newer version) get one console
 * warning per call.
 */
export function readConfig(overrides: Partial<CmsConfig> = {}): CmsConfig {
  let page: Partial<CmsConfig> | null = null;
  try {
    page = JSON.parse(
      document.getElementById("cms-config")?.textContent || "null",
    );
  } catch {
    console.warn("cms: #cms-config is not JSON; using defaults");
  }
  const exit = new URL(location.href);
  exit.searchParams.delete("edit");
  const config: CmsConfig = {
    save: "/api/cms/save",
    media: "/api/cms/media",
    history: "",
    editor: "",
    exit: exit.href,
    publish: "",
    schedule: "",
    library: "",
    events: "",
    mediaBase: "",
    settings: true,
    locale: "",
    locales: [],
    checks: "",
    comments: "",
    review: "",
    reviewer: false,
    approve: "",
    reviewName: "",
  };
  let name: keyof CmsConfig;
  for (name in config) {
    const v = overrides[name] ?? page?.[name];
    // Each key keeps its type (string, boolean, or array for `locales`).
    if (
      Array.isArray(v) === Array.isArray(config[name]) &&
      typeof v === typeof config[name]
    ) (config as unknown as Record<string, unknown>)[name] = v;
  }
  const unknown = Object.keys(page && typeof page === "object" ? page : {})
    .filter((key) => !Object.hasOwn(config, key));
  if (unknown.length) {
    console.warn(
      `cms: unknown #cms-config key(s) ignored: ${unknown.join(", ")}`,
    );
  }
  return config;
}
