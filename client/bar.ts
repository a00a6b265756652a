/**
 * The edit bar: live-status dot with an `aria-live` text, the editor's name,
 * Save, Settings and Done, a notice line and the conflict dialog. It lives in
 * a shadow root so host CSS and ours never meet.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import type { IconName } from "./icons.ts";
import { askConflict, type ConflictChoice } from "./conflict.ts";

/** Live-status dot states. */
export type BarState = "clean" | "unsaved" | "saving" | "error" | "offline";

/** What the editor chose in the conflict dialog. */
export type { ConflictChoice } from "./conflict.ts";

/** The mounted edit bar. */
export interface EditBar {
  /** Sets the dot's state and the announced status text. */
  status(state: BarState, text: string): void;
  /** Shows a notice with Discard (runs `discard`) and OK; both hide it. */
  notice(text: string, discard: () => void): void;
  /** Asks the editor to resolve a conflict; one dialog at a time. */
  conflict(
    field: string,
    mine: string,
    stored: string,
  ): Promise<ConflictChoice>;
  /** Removes the bar from the page. */
  destroy(): void;
}

// The edit bar and the conflict dialog (both in the bar's shadow root).
const CSS = `:host{all:initial!important}
.b{position:fixed;z-index:2147483000;right:16px;bottom:16px}
.b,dialog{font:13px/1.3 system-ui,sans-serif;color:#f6f8fa;background:#222;border:0;border-radius:12px;padding:6px}
.r,.n,.s{display:flex;align-items:center;gap:6px;white-space:nowrap}
.s{padding:0 8px;max-width:28em;overflow:hidden}
.d{flex:none;width:10px;height:10px;border-radius:50%;background:#3b5}
[data-state=unsaved] .d{background:#d92}
[data-state=saving] .d{background:#58f}
[data-state=error] .d{background:#f55}
[data-state=offline] .d{background:#888}
.e{color:#999}
[hidden]{display:none}
button{all:unset;display:flex;gap:6px;padding:6px 10px;border-radius:8px;background:#444;cursor:pointer}
button:hover,button:focus-visible{outline:2px solid #58f}
.p{background:#16e}
.v{display:flex;gap:12px}
pre{background:#000;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40vh;overflow:auto}`;

/** Mounts the edit bar at the end of `document.body`. */
export function createBar(
  { h, isolate, Icon }: Kit,
  editor: string,
  actions: { save(): void; settings(): void; done(): void },
): EditBar {
  const button = (
    label: string,
    run: () => void,
    primary?: boolean,
    icon?: IconName,
  ) => {
    // A button in a shadow root belongs to no form: no `type` needed.
    const b = h("button", {}, label);
    if (primary) b.className = "p";
    if (icon) b.prepend(Icon(icon));
    b.onclick = run;
    return b;
  };
  const { host, root } = isolate("cms-edit-bar", CSS);
  const text = h("span", { role: "status", "aria-live": "polite" });
  const notice = h("div", { class: "n", role: "status", hidden: "" });
  const save = button("Save", actions.save, true, "save");
  save.title = "Save (Ctrl+S)";
  save.setAttribute("aria-keyshortcuts", "Control+S Meta+S");
  const bar = h(
    "div",
    { class: "b", role: "region", "aria-label": "Edit bar" },
    notice,
    h(
      "div",
      { class: "r" },
      h("span", { class: "s" }, h("span", { class: "d" }), text),
      h("span", { class: "e" }, editor),
      save,
      button("Settings", actions.settings, false, "settings"),
      button("Done", actions.done, false, "done"),
    ),
  );
  root.append(bar);
  document.body.append(host);

  let queue = Promise.resolve<ConflictChoice>("cancel");
  return {
    status(state, message) {
      bar.dataset.state = state;
      if (text.textContent !== message) text.textContent = message;
    },
    notice(message, discard) {
      const hide = () => notice.hidden = true;
      notice.replaceChildren(
        message,
        button("Discard", () => {
          hide();
          discard();
        }),
        button("OK", hide),
      );
      notice.hidden = false;
    },
    conflict: (field, mine, stored) =>
      queue = queue.then(() =>
        askConflict(h, root, field, mine, stored, button)
      ),
    destroy: () => host.remove(),
  };
}
