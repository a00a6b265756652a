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
    // A long value scrolls in its box: focusable, so keys scroll it too.
    const side = (name: string, value: string) =>
      h("section", {}, h("h3", {}, name), h("pre", { tabindex: "0" }, value));
    const keep = button({
      label: t("keepMine"),
      run: () => dialog.close("mine"),
      primary: true,
    });
    // Opening focuses the choice, not the first scrollable value.
    keep.autofocus = true;
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
        keep,
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
