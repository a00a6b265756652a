/**
 * Block types and inline code of the rich text editor (part of the rich
 * chunk): the block-type menu of the toolbar (paragraph, heading 2–4,
 * quote, code block), inline `<code>`, and the key shortcuts that reach
 * them. Every tag it makes is in the sanitizer's allowlist
 * (`core/sanitizer.ts`).
 *
 * @module
 */

import { type Labels, t } from "./labels.ts";
import type { RichCore } from "./rich_types.ts";

/** The block types: tag, name, `aria-keyshortcuts`. */
export const BLOCKS: [string, keyof Labels, string?][] = [
  ["p", "paragraph", "Control+Alt+0"],
  ["h2", "heading2", "Control+Alt+2"],
  ["h3", "heading3", "Control+Alt+3"],
  ["h4", "heading4", "Control+Alt+4"],
  ["blockquote", "quote"],
  ["pre", "codeBlock"],
];

/** The block type at the selection (paragraph when it is none of ours). */
export function currentBlock(): (typeof BLOCKS)[number] {
  const v = document.queryCommandValue("formatBlock").toLowerCase();
  return BLOCKS.find(([tag]) => tag === v) ?? BLOCKS[0];
}

/** Makes the selection's block(s) `tag`. */
export function setBlock(ed: RichCore, tag: string): void {
  focusRegion(ed);
  // Back to a paragraph from a quote: the quote goes too.
  ed.exec("formatBlock", tag === currentBlock()[0] ? "p" : tag);
  ed.refresh();
}

/**
 * Puts the selection back in the region, or (a key in the region) takes
 * the one there now: `selectionchange` may not have been seen yet.
 */
function focusRegion(ed: RichCore): void {
  if (document.activeElement === ed.el) ed.remember();
  else ed.restore();
}

/** The inline `<code>` the selection is in, inside the region. */
export function codeAt(ed: RichCore): Element | undefined {
  const n = getSelection()?.anchorNode;
  const code = (n?.nodeType === 1 ? n as Element : n?.parentElement)
    ?.closest("code");
  return code && ed.el.contains(code) && !code.closest("pre")
    ? code
    : undefined;
}

/**
 * Inline code: wraps the selected text in `<code>`, or unwraps the code the
 * caret is in. One undo step.
 */
export function toggleCode(ed: RichCore): void {
  focusRegion(ed);
  const sel = getSelection();
  const code = codeAt(ed);
  const range = sel?.rangeCount ? sel.getRangeAt(0) : undefined;
  if (!code && (!range || range.collapsed)) return;
  ed.change(() => {
    if (code) return code.replaceWith(...code.childNodes);
    const wrap = ed.kit.h("code", {}, range!.toString());
    range!.deleteContents();
    range!.insertNode(wrap);
    range!.selectNodeContents(wrap);
    sel!.removeAllRanges();
    sel!.addRange(range!);
  });
  ed.remember();
  ed.refresh();
}

/**
 * The region's block shortcuts: Ctrl/Cmd+Alt+0, 2, 3, 4 (by key position,
 * so any layout). Returns whether `e` was one.
 */
export function blockKey(ed: RichCore, e: KeyboardEvent): boolean {
  const tag = (e.ctrlKey || e.metaKey) && e.altKey &&
    { Digit0: "p", Digit2: "h2", Digit3: "h3", Digit4: "h4" }[e.code];
  if (tag) setBlock(ed, tag);
  return !!tag;
}

/**
 * The item of `items` that key `e` moves to from the focused one (`back`
 * and `next` arrows, Home, End; wrapping around), its default prevented;
 * undefined for other keys or when no item has focus. The toolbar's and
 * the block menu's arrow keys.
 */
export function arrowTo<T extends HTMLElement>(
  e: KeyboardEvent,
  items: T[],
  root: ShadowRoot,
  back: string,
  next: string,
): T | undefined {
  const i = items.indexOf(root.activeElement as T);
  const to = { [back]: i - 1, [next]: i + 1, Home: 0, End: -1 }[e.key];
  if (i < 0 || to === undefined) return;
  e.preventDefault();
  return items[(to + items.length) % items.length];
}

/**
 * The block-type button and its menu (`role=menu`, radio items): the
 * button shows the current type; arrows move in the open menu, Enter
 * picks, Esc closes it and focus goes back to the button.
 */
export function blockMenu(
  ed: RichCore,
  keyText: (keys: string) => string,
): { wrap: HTMLElement; button: HTMLButtonElement; refresh(): void } {
  const { kit: { h }, root } = ed;
  const name = h("span", {}, t("paragraph"));
  const button = h(
    "button",
    {
      "aria-haspopup": "menu",
      "aria-expanded": "false",
      "data-tip": t("blockType"),
      class: "bt",
      tabindex: "-1",
    },
    name,
    "▾",
  );
  const items = BLOCKS.map(([tag, label, keys]) => {
    const item = h(
      "button",
      { role: "menuitemradio", "aria-checked": "false", tabindex: "-1" },
      h("span", {}, t(label)),
    );
    if (keys) {
      item.setAttribute("aria-keyshortcuts", keys);
      item.append(h("kbd", {}, keyText(keys)));
    }
    item.onclick = () => {
      close(false);
      setBlock(ed, tag);
    };
    return item;
  });
  const menu = h("div", {
    role: "menu",
    class: "mn k",
    "aria-label": t("blockType"),
    hidden: "",
  }, ...items);
  const close = (focus = true) => {
    menu.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (focus) button.focus();
  };
  button.onclick = () => {
    if (!menu.hidden) return close();
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    // One item is always checked (`refresh` ran at once).
    items.find((i) => i.getAttribute("aria-checked") === "true")!.focus();
  };
  // Keys in the open menu: arrows, Home and End move; Esc and Tab close.
  menu.onkeydown = (e) => {
    if (e.key === "Escape" || e.key === "Tab") {
      e.stopPropagation();
      if (e.key === "Escape") e.preventDefault();
      return close(e.key === "Escape");
    }
    arrowTo(e, items, root, "ArrowUp", "ArrowDown")?.focus();
  };
  const refresh = () => {
    const [tag, label] = currentBlock();
    name.textContent = t(label);
    button.setAttribute("aria-label", `${t("blockType")}: ${t(label)}`);
    items.forEach((item, i) =>
      item.setAttribute("aria-checked", String(BLOCKS[i][0] === tag))
    );
  };
  refresh();
  return { wrap: h("span", { class: "bw" }, button, menu), button, refresh };
}
