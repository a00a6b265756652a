/**
 * The conflict dialog: shows the editor's version and the stored one, and
 * asks which to keep. Styled by the edit bar's stylesheet.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import type { BarAction, ConflictChoice } from "./bar_types.ts";
import { t } from "./labels.ts";

/** Opens the modal conflict dialog inside `root` and resolves to a choice. */
export function askConflict(
  h: Kit["h"],
  root: ShadowRoot,
  field: string,
  mine: string,
  stored: string,
  button: (action: BarAction) => HTMLElement,
): Promise<ConflictChoice> {
  return new Promise((resolve) => {
    const title = t("conflict", { field });
    const side = (name: string, value: string) =>
      h("section", {}, h("h3", {}, name), h("pre", {}, value));
    const dialog = h(
      "dialog",
      { class: "k", "aria-label": title },
      h("h2", {}, title),
      h(
        "div",
        { class: "v" },
        side(t("yours"), mine),
        side(t("stored"), stored),
      ),
      h(
        "div",
        { class: "a" },
        button({
          label: t("keepMine"),
          run: () => dialog.close("mine"),
          primary: true,
        }),
        button({ label: t("useStored"), run: () => dialog.close("stored") }),
      ),
    );
    // The choice is the dialog's return value. Esc closes it without one,
    // with or without a cancel event (Chromium skips that event without a
    // user activation since the last one): "cancel".
    dialog.onclose = () => {
      dialog.remove();
      resolve((dialog.returnValue || "cancel") as ConflictChoice);
    };
    root.append(dialog);
    dialog.showModal();
  });
}
