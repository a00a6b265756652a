/**
 * The edit bar: live-status dot with an `aria-live` text, the editor's name,
 * Save, Settings and Done, a notice line and the conflict dialog. It lives in
 * a shadow root so host CSS and ours never meet.
 *
 * @module
 */

import { h, isolate } from "./dom.ts";
import { Icon, type IconName } from "./icons.ts";
import { askConflict, type ConflictChoice } from "./conflict.ts";

/** Live-status dot states. */
export type BarState = "clean" | "unsaved" | "saving" | "error" | "offline";

/** What the editor chose in the conflict dialog. */
export type { ConflictChoice } from "./conflict.ts";

/** The mounted edit bar. */
export interface EditBar {
  /** Sets the dot's state and the announced status text. */
  status(state: BarState, text: string): void;
  /** Shows a notice with optional action buttons; empty text hides it. */
  notice(text: string, actions?: { label: string; run: () => void }[]): void;
  /** Asks the editor to resolve a conflict; one dialog at a time. */
  conflict(
    field: string,
    mine: string,
    stored: string,
  ): Promise<ConflictChoice>;
  /** Removes the bar from the page. */
  destroy(): void;
}

const CSS =
  `:host{all:initial!important;position:fixed!important;z-index:2147483000!important;left:50%!important;bottom:16px!important;transform:translateX(-50%)!important;display:block!important}
.b{font:13px/1.3 system-ui,sans-serif;color:#f6f8fa;background:#1f2328;border-radius:12px;box-shadow:0 6px 24px #0005;padding:6px}
.r,.n{display:flex;align-items:center;gap:6px}
.s{display:flex;align-items:center;gap:8px;padding:0 8px;min-width:11em;max-width:28em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.d{flex:none;width:10px;height:10px;border-radius:50%;background:#3fb950;box-shadow:0 0 0 3px #3fb95033}
[data-state=unsaved] .d{background:#d29922;box-shadow:0 0 0 3px #d2992240}
[data-state=saving] .d{background:#58a6ff;animation:p 1s infinite alternate}
[data-state=error] .d{background:#f85149;box-shadow:0 0 0 3px #f8514940}
[data-state=offline] .d{background:#8b949e;box-shadow:none}
@keyframes p{to{opacity:.3}}
.e{padding:0 10px;border-left:1px solid #3d444d;color:#9198a1;white-space:nowrap}
.e:empty{display:none}
button{all:unset;display:inline-flex;align-items:center;gap:6px;padding:6px 10px;border-radius:8px;background:#2d333b;color:#f6f8fa;cursor:pointer;white-space:nowrap}
button:hover{background:#3d444d}
button:focus-visible{outline:2px solid #58a6ff;outline-offset:2px}
.p{background:#1f6feb}
.p:hover{background:#388bfd}
.n{padding:4px 8px 8px;margin-bottom:6px;border-bottom:1px solid #3d444d}
.n button{padding:3px 8px}
[hidden]{display:none}`;

function button(
  label: string,
  run: () => void,
  primary?: boolean,
  icon?: IconName,
  attrs: Record<string, string> = {},
): HTMLButtonElement {
  const b = h("button", { type: "button", ...attrs }, label);
  if (primary) b.className = "p";
  if (icon) b.prepend(Icon(icon));
  b.addEventListener("click", run);
  return b;
}

/** Mounts the edit bar at the end of `document.body`. */
export function createBar(
  editor: string,
  actions: { save(): void; settings(): void; done(): void },
): EditBar {
  const { host, root } = isolate("cms-edit-bar", CSS);
  const text = h("span", { role: "status", "aria-live": "polite" });
  const notice = h("div", { class: "n", role: "status", hidden: "" });
  const bar = h(
    "div",
    { class: "b", role: "region", "aria-label": "Edit bar" },
    notice,
    h(
      "div",
      { class: "r" },
      h("span", { class: "s" }, h("span", { class: "d" }), text),
      h("span", { class: "e", title: "Signed in as" }, editor),
      button("Save", actions.save, true, "save", {
        title: "Save (Ctrl+S)",
        "aria-keyshortcuts": "Control+S Meta+S",
      }),
      button("Settings", actions.settings, false, "settings"),
      button("Done", actions.done, false, "done"),
    ),
  );
  root.append(bar);
  document.body.append(host);

  let queue: Promise<unknown> = Promise.resolve();
  return {
    status(state, message) {
      bar.dataset.state = state;
      if (text.textContent !== message) text.textContent = message;
    },
    notice(message, buttons = []) {
      notice.replaceChildren(
        message,
        ...buttons.map((b) => button(b.label, b.run)),
      );
      notice.hidden = !message;
    },
    conflict(field, mine, stored) {
      const next = queue.then(() =>
        askConflict(root, field, mine, stored, button)
      );
      queue = next;
      return next;
    },
    destroy: () => host.remove(),
  };
}
