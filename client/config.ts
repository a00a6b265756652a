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
  /** History endpoint. Default `/api/cms/history`. */
  history: string;
  /** Editor's display name shown in the edit bar. Default `""`. */
  editor: string;
  /** Where Done navigates. Default: the current URL without `edit`. */
  exit: string;
  /** Publish endpoint (publish mode `draft`); `""` (default): none. */
  publish: string;
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
}

/** Reads the page config, then applies `overrides`. */
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
    history: "/api/cms/history",
    editor: "",
    exit: exit.href,
    publish: "",
    events: "",
    mediaBase: "",
  };
  let name: keyof CmsConfig;
  for (name in config) {
    const v = overrides[name] ?? page?.[name];
    if (typeof v === "string") config[name] = v;
  }
  return config;
}
