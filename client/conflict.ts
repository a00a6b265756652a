/**
 * The conflict dialog: shows the editor's version and the stored one, and
 * asks which to keep. Styled by the edit bar's stylesheet.
 *
 * @module
 */

import type { Kit } from "./dom.ts";

/** What the editor chose in the conflict dialog. */
export type ConflictChoice = "mine" | "stored" | "cancel";

/** Opens the modal conflict dialog inside `root` and resolves to a choice. */
export function askConflict(
  h: Kit["h"],
  root: ShadowRoot,
  field: string,
  mine: string,
  stored: string,
  button: (label: string, run: () => void, primary?: boolean) => HTMLElement,
): Promise<ConflictChoice> {
  return new Promise((resolve) => {
    const title = `“${field}” was changed elsewhere`;
    const choose = (choice: ConflictChoice) => {
      dialog.remove();
      resolve(choice);
    };
    const dialog = h(
      "dialog",
      { "aria-label": title },
      h("h2", {}, title),
      h(
        "div",
        { class: "v" },
        h("section", {}, h("h3", {}, "Yours"), h("pre", {}, mine)),
        h("section", {}, h("h3", {}, "Stored"), h("pre", {}, stored)),
      ),
      h(
        "div",
        { class: "r" },
        button("Keep mine", () => choose("mine"), true),
        button("Use stored", () => choose("stored")),
      ),
    );
    dialog.oncancel = () => choose("cancel");
    root.append(dialog);
    dialog.showModal();
  });
}
