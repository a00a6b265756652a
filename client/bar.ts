/**
 * The edit bar: live-status dot with an `aria-live` text, the editor's name,
 * its actions (Save, Settings, Done, and whatever the session adds), a
 * notice line and the conflict dialog (a lazy chunk). It lives in a shadow root so host
 * CSS and ours never meet. While mounted it reserves its own height at the
 * end of the page (padding on `<html>`), so it never covers the page's last
 * lines; on a narrow screen it spans the width and wraps.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import type { IconName } from "./icons.ts";
import type { ConflictChoice } from "./conflict.ts";
import { t } from "./labels.ts";

/** Live-status dot states. */
export type BarState = "clean" | "unsaved" | "saving" | "error" | "offline";

/** What the editor chose in the conflict dialog. */
export type { ConflictChoice } from "./conflict.ts";

/** One button of the edit bar. */
export interface BarAction {
  /** Visible text, also the accessible name. */
  label: string;
  run(): void;
  icon?: IconName;
  /** The highlighted main action. */
  primary?: boolean;
  /** Tooltip, e.g. the shortcut. */
  hint?: string;
  /** `aria-keyshortcuts`, e.g. `"Control+S Meta+S"`. */
  keys?: string;
}

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
  /** Adds an action button (before Done); returns its remover. */
  add(action: BarAction): () => void;
  /** Shows `el` before the editor's name (e.g. who else is here); returns its remover. */
  slot(el: HTMLElement): () => void;
  /** Removes the bar and gives the page its space back. */
  destroy(): void;
}

// The edit bar and the conflict dialog (both in the bar's shadow root).
const CSS = `:host{all:initial!important}
.b{position:fixed;z-index:2147483000;right:16px;bottom:16px;max-width:calc(100vw - 32px);box-sizing:border-box}
.b,dialog{font:13px/1.3 system-ui,sans-serif;color:#f6f8fa;background:#222;border:0;border-radius:12px;padding:6px}
.r,.n,.s{display:flex;align-items:center;gap:6px}
.r,.n{flex-wrap:wrap;justify-content:flex-end}
.s{flex:1 1 auto;min-width:0;padding:0 8px;max-width:28em}
.d{flex:none;width:10px;height:10px;border-radius:50%;background:#3b5}
[data-state=unsaved] .d{background:#d92}
[data-state=saving] .d{background:#58f}
[data-state=error] .d{background:#f55}
[data-state=offline] .d{background:#888}
.e{color:#bbb}
[hidden]{display:none}
button{all:unset;display:flex;gap:6px;padding:6px 10px;border-radius:8px;background:#444;cursor:pointer;white-space:nowrap}
button:hover,button:focus-visible{outline:2px solid #58f}
.p{background:#16e}
.v{display:flex;flex-wrap:wrap;gap:12px}
dialog{max-width:calc(100vw - 48px)}
pre{background:#000;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40vh;overflow:auto}
@media(max-width:480px){.b{left:8px;right:8px;bottom:8px;max-width:none}}
@media(pointer:coarse){button{box-sizing:border-box;min-height:44px;min-width:44px;padding:10px 12px;align-items:center}}
@media(forced-colors:active){.b,dialog,button{border:1px solid}.b,dialog,.e{color:CanvasText;background:Canvas}button{color:ButtonText;background:ButtonFace}.p{color:HighlightText;background:Highlight}.d{forced-color-adjust:none}}`;

/** Mounts the edit bar at the end of `document.body`. */
export function createBar(
  { h, isolate, Icon, listen }: Kit,
  editor: string,
  actions: BarAction[],
): EditBar {
  const button = (a: BarAction) => {
    // A button in a shadow root belongs to no form: no `type` needed.
    const b = h("button", {}, a.label);
    if (a.primary) b.className = "p";
    if (a.icon) b.prepend(Icon(a.icon));
    if (a.hint) b.title = a.hint;
    if (a.keys) b.setAttribute("aria-keyshortcuts", a.keys);
    b.onclick = a.run;
    return b;
  };
  const { host, root } = isolate("cms-edit-bar", CSS);
  // Images in rich regions without alt text, counted by the rich editor.
  const alts = h("span", { class: "e", role: "status", hidden: "" });
  const offAlt = listen<CustomEvent<{ missing: number }>>(
    document,
    "cms:alt",
    ({ detail: { missing } }) => {
      alts.hidden = !missing;
      alts.textContent = missing ? t("missingAlt", { n: missing }) : "";
    },
  );
  const text = h("span", { role: "status", "aria-live": "polite" });
  const notice = h("div", { class: "n", role: "status", hidden: "" });
  const row = h(
    "div",
    { class: "r" },
    h("span", { class: "s" }, h("span", { class: "d" }), text),
    h("span", { class: "e" }, editor),
    alts,
    ...actions.map(button),
  );
  const bar = h(
    "div",
    { class: "b", role: "region", "aria-label": t("bar") },
    notice,
    row,
  );
  root.append(bar);
  document.body.append(host);

  // Reserve the bar's height (and its offset) below the page's content.
  // The page's own padding is read in the observer (after layout, so no
  // forced style recalc at mount).
  const html = document.documentElement.style;
  const before = html.paddingBottom;
  let own: number | undefined;
  const resized = new ResizeObserver(() => {
    own ??= parseFloat(
      getComputedStyle(document.documentElement)
        .paddingBottom,
    ) || 0;
    html.paddingBottom = `${own + bar.offsetHeight + 24}px`;
  });
  resized.observe(bar);

  let queue = Promise.resolve<ConflictChoice>("cancel");
  return {
    status(state, message) {
      if (bar.getAttribute("data-state") !== state) {
        bar.setAttribute("data-state", state);
      }
      if (text.textContent !== message) text.textContent = message;
    },
    notice(message, discard) {
      const hide = () => notice.hidden = true;
      notice.replaceChildren(
        message,
        button({
          label: t("discard"),
          run() {
            hide();
            discard();
          },
        }),
        button({ label: t("ok"), run: hide }),
      );
      notice.hidden = false;
    },
    // The dialog is a lazy chunk: conflicts are rare.
    conflict: (field, mine, stored) =>
      queue = queue.then(async () =>
        (await import("./conflict.ts")).askConflict(
          h,
          root,
          field,
          mine,
          stored,
          button,
        )
      ),
    add(action) {
      const b = button(action);
      row.lastElementChild!.before(b);
      return () => b.remove();
    },
    slot(el) {
      row.children[1].before(el);
      return () => el.remove();
    },
    destroy() {
      offAlt();
      resized.disconnect();
      html.paddingBottom = before;
      host.remove();
    },
  };
}
