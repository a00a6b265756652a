/**
 * The keyboard shortcuts panel of the rich text editor (a lazy chunk):
 * opened by the toolbar's last button or Ctrl/Cmd+/ in a region, shown
 * under the toolbar like the link panel; Close or Esc closes it.
 *
 * @module
 */

import { type Labels, t } from "./labels.ts";
import type { RichEditor } from "./rich_types.ts";

/** What each shortcut does, and its keys (`aria-keyshortcuts` syntax). */
export type Shortcut = [keyof Labels, string];

/** The session's own shortcuts, listed after the toolbar's. */
const SESSION: Shortcut[] = [
  ["save", "Control+S Meta+S"],
  ["revertField", "Escape"],
];

/**
 * Opens the shortcuts panel of `editor`: the toolbar's shortcuts (`list`,
 * from the toolbar itself, so the two never disagree) and the session's.
 * `keyText` writes keys as people read them on this system.
 *
 * @example
 * ```ts ignore
 * const { openShortcuts } = await import("./shortcuts.ts");
 * openShortcuts(editor, [["bold", "Control+B Meta+B"]], keyText);
 * ```
 */
export function openShortcuts(
  editor: RichEditor,
  list: Shortcut[],
  keyText: (keys: string) => string,
): void {
  const { kit: { h } } = editor;
  const close = h("button", {}, t("close"));
  const panel = h(
    "div",
    { class: "k", role: "group", "aria-labelledby": "cms-keys" },
    h("h2", { id: "cms-keys" }, t("shortcuts")),
    h(
      "dl",
      { class: "ks" },
      ...[...list, ...SESSION].flatMap(([label, keys]) => [
        h("dt", {}, t(label)),
        h("dd", {}, h("kbd", {}, keyText(keys))),
      ]),
    ),
    h("div", { class: "a" }, close),
  );
  close.onclick = () => editor.close();
  editor.show(panel);
  close.focus();
}
