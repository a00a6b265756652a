/**
 * The conflict dialog: shows the
 * editor's version and the stored one, and asks which to keep.
 *
 * @module
 */

import { h, sheet } from "./dom.ts";

/** What the editor chose in the conflict dialog. */
export type ConflictChoice = "mine" | "stored" | "cancel";

const CSS =
  `dialog{font:13px/1.4 system-ui,sans-serif;color:#f6f8fa;background:#1f2328;border:0;border-radius:12px;padding:16px;max-width:min(720px,calc(100vw - 32px));box-shadow:0 12px 48px #0008}
dialog::backdrop{background:#0007}
h2{font-size:15px;margin:0 0 12px}
.v{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin-bottom:14px}
h3{font-size:12px;margin:0 0 4px;color:#9198a1;text-transform:uppercase}
pre{font:inherit;margin:0;background:#0d1117;border-radius:8px;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40vh;overflow:auto}
.a{display:flex;justify-content:flex-end;gap:8px}`;

/** Opens the modal conflict dialog inside `root` and resolves to a choice. */
export function askConflict(
  root: ShadowRoot,
  field: string,
  mine: string,
  stored: string,
  button: (label: string, run: () => void, primary?: boolean) => HTMLElement,
): Promise<ConflictChoice> {
  const extra = sheet(CSS);
  if (!root.adoptedStyleSheets.includes(extra)) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, extra];
  }
  return new Promise((resolve) => {
    const title = h("h2", {}, `“${field}” was changed elsewhere`);
    const dialog = h(
      "dialog",
      {},
      title,
      h(
        "div",
        { class: "v" },
        h("section", {}, h("h3", {}, "Yours"), h("pre", {}, mine)),
        h("section", {}, h("h3", {}, "Stored"), h("pre", {}, stored)),
      ),
    );
    const choose = (choice: ConflictChoice) => {
      dialog.close();
      dialog.remove();
      resolve(choice);
    };
    dialog.append(
      h(
        "div",
        { class: "a" },
        button("Keep mine", () => choose("mine"), true),
        button("Use stored", () => choose("stored")),
      ),
    );
    dialog.addEventListener("cancel", () => choose("cancel"));
    dialog.ariaLabel = title.textContent;
    root.append(dialog);
    dialog.showModal();
  });
}
