/**
 * The edit bar: live-status dot with an `aria-live` text, the editor's name,
 * its actions (Save, Settings, Done, and whatever the session adds), toasts
 * and the conflict dialog (a lazy chunk). One button is primary at a time:
 * an added primary action (Publish while drafts exist) takes over. It lives in a shadow root so host
 * CSS and ours never meet. While mounted it reserves its own height at the
 * end of the page (padding on `<html>`), so it never covers the page's last
 * lines; on a narrow screen it spans the width and wraps. Its types (what
 * the session and the panels see of it) are in `bar_types.ts`.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import type { BarAction, ConflictChoice, EditBar } from "./bar_types.ts";
import { t } from "./labels.ts";
import { THEME } from "./theme.ts";

// The edit bar, its toasts and the conflict dialog (one shadow root).
const CSS =
  `.b{position:fixed;z-index:2147483000;right:16px;bottom:16px;max-width:calc(100vw - 32px);padding:6px}
.r,.s,.n{display:flex;align-items:center;gap:6px}
.r{flex-wrap:wrap;justify-content:flex-end}
.s{flex:1 1 auto;min-width:0;padding:0 6px;max-width:28em}
.d{flex:none;width:10px;height:10px;border-radius:50%;background:var(--ok)}
[data-state=unsaved] .d,[data-state=drafts] .d{background:#c27c0e}
[data-state=saving] .d{background:var(--a)}
[data-state=error] .d{background:var(--er)}
[data-state=offline] .d{background:var(--mu)}
.n{flex-wrap:wrap;margin:0 0 6px;padding:8px 10px;border-radius:var(--r2);background:var(--bg2);border-left:4px solid var(--a)}
.n>span{flex:1 1 12em}
.v{display:flex;flex-wrap:wrap;gap:12px}
.v>*{flex:1 1 14em;min-width:0}
h3{font-size:13px;margin:0 0 4px}
dialog.k{width:40em}
pre{margin:0 0 var(--sp);background:var(--bg2);padding:8px;font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40vh;overflow:auto}
@media(max-width:480px){.b{left:8px;right:8px;bottom:8px;max-width:none}}
@media(forced-colors:active){.d{forced-color-adjust:none}}`;

/** Makes one bar button. */
function barButton(kit: Kit, a: BarAction): HTMLButtonElement {
  const b = kit.h("button", {}, a.label); // type="button" (see `h`)
  if (a.primary) b.className = "p";
  if (a.icon) b.prepend(kit.Icon(a.icon));
  if (a.hint) b.title = a.hint;
  if (a.keys) b.setAttribute("aria-keyshortcuts", a.keys);
  b.onclick = a.run;
  return b;
}

/** Mounts the edit bar at the end of `document.body`. */
export function createBar(
  kit: Kit,
  editor: string,
  actions: BarAction[],
): EditBar {
  const { h, isolate } = kit;
  const button = (a: BarAction) => barButton(kit, a);
  const { host, root } = isolate("cms-edit-bar", THEME, CSS);
  const text = h("span", { role: "status", "aria-live": "polite" });
  const toast = h("div", { class: "n", role: "status", hidden: "" });
  const row = h(
    "div",
    { class: "r" },
    h("span", { class: "s" }, h("span", { class: "d" }), text),
    h("span", { class: "m" }, editor),
    ...actions.map(button),
  );
  const bar = h(
    "div",
    { class: "b k", role: "region", "aria-label": t("bar") },
    toast,
    row,
  );
  root.append(bar);
  document.body.append(host);
  const offs = [reserve(bar)];
  let queue = Promise.resolve<ConflictChoice>("cancel");
  /** Called when the toast shown goes (hidden or replaced). */
  let left: (() => void) | undefined;
  return {
    status(state, message) {
      if (bar.getAttribute("data-state") !== state) {
        bar.setAttribute("data-state", state);
      }
      if (text.textContent !== message) text.textContent = message;
    },
    toast(message, more = [], gone) {
      const hide = () => {
        toast.hidden = true;
        const g = left;
        left = undefined;
        g?.();
      };
      const wrap = (a: BarAction) => ({ ...a, run: () => (hide(), a.run()) });
      hide();
      if (!message) return;
      toast.replaceChildren(
        h("span", {}, message),
        ...more.map((a) => button(wrap(a))),
        button({ label: t("ok"), run: hide }),
      );
      toast.hidden = false;
      left = gone;
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
    add: (action) => addAction(row, button(action)),
    slot(el) {
      row.children[1].before(el);
      return () => el.remove();
    },
    destroy() {
      offs.forEach((off) => off());
      host.remove();
    },
  };
}

/**
 * Adds `b` before the last button of `row`. A primary `b` takes the primary
 * look from the others until it is removed. Returns its remover.
 */
function addAction(row: HTMLElement, b: HTMLButtonElement): () => void {
  const demoted = b.className === "p" ? [...row.querySelectorAll(".p")] : [];
  demoted.forEach((x) => x.className = "");
  row.lastElementChild!.before(b);
  return () => {
    b.remove();
    demoted.forEach((x) => x.className = "p");
  };
}

/**
 * Reserves the bar's height (and its offset) below the page's content.
 * The page's own padding is read in the observer (after layout, so no
 * forced style recalc at mount). Returns the function giving it back.
 */
function reserve(bar: HTMLElement): () => void {
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
  return () => {
    resized.disconnect();
    html.paddingBottom = before;
  };
}
