/**
 * The browser client: in-place editing of marked regions, the edit bar,
 * per-field saving, and the rich text editor for the host's own panels.
 *
 * Importing this module does nothing. `mountCms()` reads the page: markers
 * (`data-cms-field="collection:key:field"`, optional `data-cms-type="image"` on an `<img>`,
 * `data-cms-type="richtext"` and `data-cms-version`) and the optional config
 * `<script type="application/json" id="cms-config">` with `save`, `media`,
 * `history`, `publish`, `mediaBase`, `editor` and `exit`. The rich text editor is a separate
 * chunk, fetched only when a rich region or `mountRichText`/`RichText` needs
 * it; its sanitizer is another, fetched at the first paste of HTML.
 *
 * Events on `document` (`CustomEvent.detail`):
 * - `cms:dirty` `{field, value, dirty}` when a field becomes dirty or clean;
 * - `cms:saved` `{field, value, version}` after a 204;
 * - `cms:error` `{field, value?, status, reason, upload?}` (status 0 =
 *   network);
 * - `cms:conflict` `{field, value, stored, version}` on a 409;
 * - `cms:open-drawer` `{editor}` from Settings;
 * - `cms:alt` `{missing}` when the number of images in rich regions without
 *   alt text changes.
 * - `cms:checks` with the content checks' findings on the page (an array)
 *   after each check (see `checks.ts`).
 *
 * Guide: [the client](../docs/client.md) (every page config key, keys,
 * design tokens, sizes); the wire types are in `@inplace/cms/core`.
 *
 * @example
 * ```ts ignore
 * import { mountCms } from "@inplace/cms/client";
 * mountCms(); // safe on every page: nothing happens without markers
 * ```
 *
 * @module
 */

import type { RichTextController, RichTextOptions } from "./rich_types.ts";
import {
  editable,
  h,
  isolate,
  type Kit,
  listen,
  onEdit,
  sheet,
} from "./dom.ts";
import { Icon } from "./icons.ts";

export { Icon };
import { localDrafts } from "./drafts.ts";
export { clearDrafts } from "./drafts.ts";
export type { IconName } from "./icons.ts";
export type { CmsHandle, MountOptions } from "./cms_types.ts";
export type { CmsConfig } from "./config.ts";
export type { en, Labels, Language } from "./labels.ts";
export type { DraftSource, DraftStorage } from "./drafts.ts";
export type { RichTextController, RichTextOptions } from "./rich_types.ts";
import type { CmsHandle, MountOptions } from "./cms_types.ts";

let current: CmsHandle | undefined;
let loaded: typeof import("./cms.ts") | undefined;

const kit: Kit = {
  h,
  isolate,
  sheet,
  listen,
  editable,
  onEdit,
  Icon,
  drafts: localDrafts,
};

const NOTHING: CmsHandle = {
  fields: 0,
  ready: Promise.resolve(),
  save: async () => {},
  unmount() {},
};

/**
 * Mounts in-place editing on the current page: every marker becomes a plain
 * or rich region and the edit bar appears. Without markers it does nothing
 * (no DOM change, no listener, no request). Calling it again while mounted
 * returns the same handle.
 *
 * Config comes from `<script type="application/json" id="cms-config">`
 * (`{"save","media","editor","exit"}`, all optional); `options` override it.
 * `options.labels` picks the UI's language (`"de"` loads the German chunk)
 * or replaces single English labels.
 *
 * @example
 * ```ts ignore
 * import { mountCms } from "@inplace/cms/client";
 * const cms = mountCms();
 * document.addEventListener("cms:open-drawer", () => openMyDrawer());
 * // later: cms.unmount();
 * ```
 */
export function mountCms(options: MountOptions = {}): CmsHandle {
  const has = (selector: string) => document.querySelector(selector);
  if (current) return current;
  if (!has("[data-cms-field],[data-cms-list]")) return NOTHING;
  // Fetch the rich chunk in parallel with the editing session.
  if (has("[data-cms-type=richtext]")) import("./rich.ts").catch(() => {});
  let session: CmsHandle | null = null, stopped = false;
  const forget = () => {
    if (current === handle) current = undefined;
  };
  const handle: { -readonly [K in keyof CmsHandle]: CmsHandle[K] } = {
    get fields() {
      return session?.fields ?? 0;
    },
    ready: Promise.resolve(),
    async save() {
      await handle.ready;
      await session?.save();
    },
    unmount() {
      stopped = true;
      session?.unmount();
      forget();
    },
  };
  const start = (
    m: typeof import("./cms.ts"),
    table?: import("./labels.ts").Labels,
  ) => {
    loaded = m;
    // Unmounted meanwhile: `unmount` already let go of the handle.
    if (stopped) return;
    const started = session = m.mount(kit, options, table);
    // No valid marker: the session ended itself.
    return started.ready.then(() => void (started.fields || forget()));
  };
  // Once loaded, later mounts (after an unmount) start synchronously.
  const de = options.labels === "de" && import("./labels_de.ts");
  handle.ready = loaded && !de
    ? Promise.resolve(start(loaded))
    : Promise.all([loaded ?? import("./cms.ts"), de])
      .then(([m, table]) => start(m, table ? table.de : undefined));
  return current = handle;
}

/**
 * Turns `element` into the rich text editor (toolbar, sanitized paste, image
 * uploads) and resolves to its controller. Loads the rich chunk on first use.
 *
 * @example
 * ```ts ignore
 * import { mountRichText } from "@inplace/cms/client";
 * const editor = await mountRichText(document.querySelector("#bio")!, {
 *   value: "<p>Hello</p>",
 *   onChange: (html) => console.log(html),
 * });
 * editor.value = "<p>Replaced</p>";
 * editor.destroy();
 * ```
 */
export async function mountRichText(
  element: HTMLElement,
  options: RichTextOptions = {},
): Promise<RichTextController> {
  // The host may set values at once: the sanitizer is loaded first.
  const { attachRich, loadSanitizer } = await import("./rich.ts");
  await loadSanitizer();
  return attachRich(kit, element, options);
}

/** The element returned by {@linkcode RichText}. */
export interface RichTextElement extends HTMLDivElement {
  /** Resolves to the editor's controller once the rich chunk is loaded. */
  readonly ready: Promise<RichTextController>;
}

/**
 * Creates a ready-to-append rich text editor: a `<div>` holding the toolbar
 * and the editable area. Its controller arrives asynchronously in `ready`.
 *
 * @example
 * ```ts ignore
 * import { RichText } from "@inplace/cms/client";
 * const editor = RichText({ value: "<p>Draft</p>", label: "Summary" });
 * drawer.append(editor);
 * const controller = await editor.ready;
 * console.log(controller.value);
 * ```
 */
export function RichText(options: RichTextOptions = {}): RichTextElement {
  const area = h("div", { style: "min-height:4em" });
  return Object.assign(h("div", {}, area), {
    ready: mountRichText(area, options),
  });
}
