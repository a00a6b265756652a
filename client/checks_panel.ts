/**
 * The Checks panel (a lazy chunk, loaded when the editor opens it from the
 * edit bar's count): every finding of the page with its field, severity
 * and message, "Show" to jump to the element concerned (scrolled into
 * view, the caret or focus in it, so its tip shows), and the obvious
 * fixes: paragraphs that look like a list become one (`ul`, or `ol` for
 * numbers, their marks removed), an image's alt text is asked in the alt
 * text dialog of the rich editor's image tools. A fix is one undo step of
 * the rich editor. The panel follows the checks while it is open; Esc or
 * Close returns focus to the bar.
 *
 * @module
 */

import type { Checks, Found } from "./checks_types.ts";
import { chunkLabels, t } from "./labels.ts";
import { fieldName } from "./labels_field.ts";
import type { RichEditor } from "./rich_types.ts";

/** The panel's labels (English, German). */
const label = chunkLabels({
  fixList: "Make a list",
  fixAlt: "Alt text…",
  close: "Close",
}, {
  fixList: "Als Liste",
  fixAlt: "Alternativtext…",
  close: "Schließen",
});

const CSS =
  `.pn{position:fixed;z-index:2147483001;right:16px;width:min(26em,calc(100vw - 32px));overflow:auto}
ul{margin:0 0 var(--sp);padding:0;list-style:none}
li{display:flex;gap:4px;padding:4px 0}
li button{white-space:normal;justify-content:flex-start;flex:1 1 auto}
li button+button{flex:none}`;

/** The marks a fake list's paragraphs start with. */
const BULLET = /^\s*(?:[•·*–-]|\d+[.)])\s*/;

/**
 * Changes the rich region `region` by `fn` as one edit: the editor records
 * one undo step and tells the session (the events its own typing fires).
 */
export function edit(region: HTMLElement, fn: () => void): void {
  region.dispatchEvent(new InputEvent("beforeinput"));
  fn();
  region.dispatchEvent(new InputEvent("input"));
}

/**
 * Makes the paragraphs `ps` (consecutive siblings) one list: numbered when
 * the first starts with a number. Each item keeps its inline content
 * without the leading mark.
 */
export function makeList(ps: Element[]): void {
  const text = ps[0].textContent ?? "";
  const list = document.createElement(/^\s*\d/.test(text) ? "ol" : "ul");
  for (const p of ps) {
    const li = document.createElement("li");
    li.append(...p.childNodes);
    const first = li.firstChild;
    if (first?.nodeType === 3) {
      first.textContent = first.textContent!.replace(BULLET, "");
    }
    list.append(li);
  }
  ps[0].before(list);
  ps.forEach((p) => p.remove());
}

/** The fix of finding `x`, when one is obvious. */
function fixOf(c: Checks, x: Found): [string, () => unknown] | undefined {
  const el = x.els[0];
  if (!x.region.isContentEditable) return;
  if (x.rule === "list-fake") {
    return [label("fixList"), () => edit(x.region, () => makeList(x.els))];
  }
  if (x.rule.startsWith("img-alt") && el instanceof HTMLImageElement) {
    return [label("fixAlt"), async () => {
      const { askAlt } = await import("./image_tools.ts");
      const alt = await askAlt(
        {
          kit: c.kit,
          root: c.root,
          restore: () => jump(x),
        } as unknown as RichEditor,
        el,
      );
      if (alt !== null) edit(x.region, () => el.setAttribute("alt", alt));
    }];
  }
}

/** Scrolls to the element of `x` and puts the caret (or focus) in it. */
function jump(x: Found): void {
  const el = x.els[0];
  el.scrollIntoView({ block: "center" });
  if (!x.region.isContentEditable || el === x.region) {
    return x.region.focus();
  }
  x.region.focus();
  const r = document.createRange();
  if (el instanceof HTMLImageElement) r.setStartBefore(el);
  else r.setStart(el, 0);
  getSelection()?.removeAllRanges();
  getSelection()?.addRange(r);
}

/** Opens the panel (once: a second call focuses it). */
export function openPanel(c: Checks): void {
  const { kit: { h, sheet }, root, button } = c;
  const css = sheet(CSS);
  if (!root.adoptedStyleSheets.includes(css)) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, css];
  }
  const old = root.querySelector<HTMLElement>(".pn");
  if (old) return old.focus();
  const list = h("ul");
  const title = h("h2", { id: "cms-checks-t" });
  const close = () => {
    c.changed = undefined;
    panel.remove();
    button.setAttribute("aria-expanded", "false");
    button.focus();
  };
  const done = h("button", {}, label("close"));
  done.onclick = close;
  const panel = h(
    "div",
    {
      class: "k pn",
      role: "dialog",
      "aria-labelledby": "cms-checks-t",
      tabindex: "-1",
    },
    title,
    list,
    h("div", { class: "a" }, done),
  );
  panel.onkeydown = (e) => e.key === "Escape" && close();
  // Each finding is a button that jumps to it, with its fix when obvious.
  const render = () => {
    title.textContent = t("problems", { n: c.found.length });
    list.replaceChildren(
      ...c.found.map((x) => {
        const fix = fixOf(c, x);
        const show = h(
          "button",
          {},
          `${fieldName(x.f.field, x.region)}: ${x.message}`,
        );
        show.onclick = () => jump(x);
        const fixer = fix && h("button", {}, fix[0]);
        if (fixer) fixer.onclick = () => void fix![1]();
        return h("li", {}, show, ...fixer ? [fixer] : []);
      }),
    );
  };
  c.changed = render;
  render();
  // Above the bar, however many rows it has (a narrow screen wraps it).
  const top = button.parentElement!.parentElement!.getBoundingClientRect().top;
  panel.style.cssText = `bottom:${innerHeight - top + 8}px;max-height:${
    top - 16
  }px`;
  root.append(panel);
  button.setAttribute("aria-expanded", "true");
  panel.focus();
}
