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
  /** Editor's display name shown in the edit bar. Default `""`. */
  editor: string;
  /** Where Done navigates. Default: the current URL without `edit`. */
  exit: string;
}

/** Reads the page config, then applies `overrides`. */
export function readConfig(overrides: Partial<CmsConfig> = {}): CmsConfig {
  let page: Partial<CmsConfig> = {};
  const script = document.getElementById("cms-config");
  if (script?.textContent) {
    try {
      const parsed = JSON.parse(script.textContent);
      if (parsed && typeof parsed === "object") page = parsed;
    } catch {
      console.warn("cms: #cms-config is not valid JSON; using defaults");
    }
  }
  const pick = (name: keyof CmsConfig, fallback: string): string => {
    const v = overrides[name] ?? page[name];
    return typeof v === "string" ? v : fallback;
  };
  return {
    save: pick("save", "/api/cms/save"),
    media: pick("media", "/api/cms/media"),
    editor: pick("editor", ""),
    exit: pick("exit", defaultExit()),
  };
}

/** The current URL without its `edit` query parameter. */
function defaultExit(): string {
  const url = new URL(location.href);
  url.searchParams.delete("edit");
  return url.href;
}
