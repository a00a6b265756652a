/**
 * Lists that grow: add, remove and reorder the items of a list container
 * (`data-cms-list`), saved by the normal Save as one whole-list write. A
 * lazy chunk: the session loads it only when the page has a list.
 *
 * {@linkcode listEdit} is the model part (pure, no DOM); the view gives
 * the list a small floating bar (move up, move down, remove, add) next to
 * the current item, and keys in an item: Alt+ArrowUp / Alt+ArrowDown move
 * it, Enter adds an item after it, Backspace in an empty item removes it.
 *
 * @module
 */

import type { FieldAddress } from "../core/address.ts";
import { contentVersion } from "../core/version.ts";
import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";
import type { Field, Model } from "./model.ts";
import { THEME } from "./theme.ts";

/** A structural edit of a list. */
export type ListAction = "up" | "down" | "remove" | "add";

/**
 * Applies `action` to item `i` of `items` within `min`..`max` items: `add`
 * inserts an empty item after `i` (`-1`: first). Returns the new items and
 * the item to focus, or `undefined` when the edit is not possible (an edge,
 * a limit).
 *
 * @example
 * ```ts
 * import { listEdit } from "./list.ts";
 * listEdit(["a", "b"], 1, "up", 0, 9); // { items: ["b", "a"], focus: 0 }
 * listEdit(["a"], 0, "remove", 1, 9); // undefined: at least one item
 * ```
 */
export function listEdit(
  items: readonly string[],
  i: number,
  action: ListAction,
  min: number,
  max: number,
): { items: string[]; focus: number } | undefined {
  const n = items.length;
  if (action === "add") {
    return n < max && i >= -1 && i < n
      ? { items: items.toSpliced(i + 1, 0, ""), focus: i + 1 }
      : undefined;
  }
  if (i < 0 || i >= n) return;
  if (action === "remove") {
    return n > min
      ? { items: items.toSpliced(i, 1), focus: Math.max(0, i - 1) }
      : undefined;
  }
  const to = action === "up" ? i - 1 : i + 1;
  if (to < 0 || to >= n) return;
  const out = items.slice();
  [out[i], out[to]] = [out[to], out[i]];
  return { items: out, focus: to };
}

/** A list field of the session: the model's field plus its container. */
export interface ListField extends Field {
  els: HTMLElement[];
  /** Shows a value (the items as JSON text) in the container. */
  show(value: string): void;
}

const CSS =
  `:host{display:contents!important}.k{position:fixed;z-index:2147482500;display:flex;gap:4px;padding:4px}button{min-height:26px;padding:2px 8px}`;

/**
 * Makes every list container of the page editable through `model`;
 * `plain` makes elements plain-text editable (returns its undo), `read`
 * parses an address (`addressReader`, passed in so that this chunk does
 * not split it out of the session's). Returns what undoes it all.
 */
export function attachLists(
  kit: Kit,
  model: Model,
  plain: (els: HTMLElement[]) => () => void,
  read: (text: string) => FieldAddress | string,
): () => void {
  const offs: (() => void)[] = [];
  for (const el of document.querySelectorAll<HTMLElement>("[data-cms-list]")) {
    const a = read(el.dataset.cmsList!);
    if (typeof a === "string" || a.index !== undefined) {
      console.warn("cms: malformed list", el);
    } else offs.push(attachList(kit, model, plain, el, a));
  }
  return () => offs.forEach((off) => off());
}

/** One list container's state, shared by the functions below. */
interface List {
  kit: Kit;
  model: Model;
  plain: (els: HTMLElement[]) => () => void;
  /** The container. */
  el: HTMLElement;
  /** The list's address (its whole-list field). */
  id: string;
  min: number;
  max: number;
  /** The item elements, in order. */
  rows: HTMLElement[];
  /** What a new item is cloned from. */
  template: HTMLElement;
  /** The items' own fields (until the first structural edit). */
  items: (ListField | undefined)[];
  /** The whole-list field. */
  f: ListField;
  /** The current item (focused last), or -1. */
  current: number;
  /** Whether the list is one field now (after an add, remove or move). */
  whole: boolean;
  /** The floating bar, in its shadow root, and its buttons. */
  bar: HTMLElement;
  root: ShadowRoot;
  buttons: HTMLButtonElement[];
  /** Run at detach, last first. */
  undo: (() => void)[];
}

/** One list container: its field, bar and keys. */
function attachList(
  kit: Kit,
  model: Model,
  plain: (els: HTMLElement[]) => () => void,
  el: HTMLElement,
  a: FieldAddress,
): () => void {
  const id = `${a.collection}:${a.key}:${a.field}`;
  // The items are the container's children with an item marker of it.
  const rows = [...el.children].filter((m) =>
    m.getAttribute("data-cms-field")?.startsWith(id + ".")
  ) as HTMLElement[];
  const l = {
    kit,
    model,
    plain,
    el,
    id,
    min: Number(el.dataset.cmsMin) || 0,
    max: Number(el.dataset.cmsMax) || Infinity,
    rows,
    template: templateOf(kit, el, rows[0]),
    // Until the first add, remove or move, each item is its own field
    // (saved as `features.N`); from then on the list is one field.
    items: rows.map((r) =>
      model.get(r.dataset.cmsField!) as ListField | undefined
    ),
    current: -1,
    whole: false,
    undo: [],
  } as unknown as List;
  l.f = model.add({
    id,
    ...a,
    rich: false,
    list: true,
    version: el.dataset.cmsVersion,
  }, JSON.stringify(texts(l))) as ListField;
  l.f.els = [el];
  l.f.show = (value) => show(l, value);
  const { host, root } = kit.isolate("cms-list", THEME, CSS);
  l.root = root;
  l.buttons = listButtons(l);
  l.bar = kit.h("div", {
    class: "k",
    role: "toolbar",
    "aria-label": t("listBar"),
  }, ...l.buttons);
  root.append(l.bar);
  el.after(host);
  l.undo.push(...listListeners(l), () => host.remove());
  place(l);
  return () => l.undo.reverse().forEach((off) => off());
}

/** A new item's model: the first item without our attributes, else an
 * empty `<li>` (in a `<ul>` or `<ol>`) or `<div>`. */
function templateOf(
  { h }: Kit,
  el: HTMLElement,
  first?: HTMLElement,
): HTMLElement {
  const template = first?.cloneNode(true) as HTMLElement ??
    h(/^[uo]l$/.test(el.localName) ? "li" : "div");
  for (const name of ["contenteditable", "data-cms-state", "aria-invalid"]) {
    template.removeAttribute(name);
  }
  return template;
}

/** The items' texts. */
const texts = (l: List) => l.rows.map((r) => r.textContent ?? "");

/** The list becomes one field: its items' fields let go of the rows. */
function detach(l: List): void {
  l.whole = true;
  for (const item of l.items) {
    if (!item) continue;
    item.els = item.els.filter((e) => !l.el.contains(e));
    l.model.revert(item.id);
  }
  // The list's marks are on the container now.
  for (const r of l.rows) r.removeAttribute("data-cms-state");
}

/** Shows `value` (the items as JSON text): rows added, removed, renamed. */
function show(l: List, value: string): void {
  const { rows, id } = l;
  if (!l.whole && value === l.f.base) return;
  if (!l.whole) detach(l);
  const want = JSON.parse(value) as string[];
  while (rows.length > want.length) rows.pop()!.remove();
  while (rows.length < want.length) {
    const row = l.template.cloneNode(true) as HTMLElement;
    const last = rows.at(-1);
    if (last) last.after(row);
    else l.el.append(row);
    rows.push(row);
    l.undo.push(l.plain([row]));
  }
  rows.forEach((row, i) => {
    if (row.textContent !== want[i]) row.textContent = want[i];
    row.setAttribute("data-cms-field", `${id}.${i}`);
    row.removeAttribute("data-cms-version");
  });
  place(l);
}

/** The bar's buttons: each its action, text, name and keys
 * (`aria-keyshortcuts`, shown in the tooltip). */
function listButtons(l: List): HTMLButtonElement[] {
  return ([
    ["up", "↑", t("listUp"), "Alt+ArrowUp"],
    ["down", "↓", t("listDown"), "Alt+ArrowDown"],
    ["remove", "✕", t("listRemove")],
    ["add", "+ " + t("listAdd"), t("listAdd"), "Enter"],
  ] as [ListAction, string, string, string?][]).map(
    ([action, text, label, keys]) => {
      const b = l.kit.h(
        "button",
        { type: "button", "aria-label": label },
        text,
      );
      b.title = label;
      if (keys) {
        b.setAttribute("aria-keyshortcuts", keys);
        b.title += ` (${keys.replace("Arrow", "")})`;
      }
      // With no current item, Add appends.
      b.onclick = () =>
        run(
          l,
          action,
          l.current < 0 && action === "add" ? l.rows.length - 1 : l.current,
        );
      return b;
    },
  );
}

/** Puts the bar above the current item's (or the list's) right end,
 * below it when there is no room above. */
function place(l: List): void {
  const { rows, bar } = l;
  if (l.current >= rows.length) l.current = rows.length - 1;
  const { current } = l;
  const r = (rows[current] ?? l.el).getBoundingClientRect();
  const { offsetWidth: w, offsetHeight: y } = bar;
  bar.style.top = `${r.top > y + 4 ? r.top - y - 4 : r.bottom + 4}px`;
  bar.style.left = `${Math.max(0, Math.min(r.right - w, innerWidth - w))}px`;
  const n = rows.length;
  const can = [
    current > 0,
    current < n - 1,
    n > l.min && current >= 0,
    n < l.max,
  ];
  l.buttons.forEach((b, i) => b.disabled = !can[i]);
}

/** Applies `action` to item `i`, as an edit of the whole-list field. */
function run(l: List, action: ListAction, i: number): void {
  const { model, id, rows } = l;
  const r = listEdit(texts(l), i, action, l.min, l.max);
  if (!r) return;
  if (!l.whole) {
    // The stored list is what the items' fields hold now (some may have
    // been saved one by one since the page was rendered).
    const stored = l.items.map((item, n) => item?.base ?? texts(l)[n]);
    model.rebase(id, JSON.stringify(stored), contentVersion(stored));
  }
  l.current = r.focus;
  model.edit(id, JSON.stringify(r.items));
  const m = rows[l.current];
  if (m && !l.bar.contains(l.root.activeElement)) {
    m.focus();
    getSelection()?.selectAllChildren(m);
    getSelection()?.collapseToEnd();
  }
}

/** The action of key `k` in an item (`empty`: the item has no text). */
function keyAction(k: KeyboardEvent, empty: boolean): ListAction | undefined {
  return k.altKey && k.key === "ArrowUp"
    ? "up"
    : k.altKey && k.key === "ArrowDown"
    ? "down"
    : k.key === "Enter" && !k.shiftKey && !k.isComposing
    ? "add"
    : k.key === "Backspace" && empty
    ? "remove"
    : undefined;
}

/** Edits, focus and keys in the container; the bar follows scroll and
 * resize. Returns the removers. */
function listListeners(l: List): (() => void)[] {
  const { kit: { listen, onEdit }, el, model, id } = l;
  const index = (target: EventTarget | null) =>
    l.rows.findIndex((r) => r.contains(target as Node));
  const follow = () => place(l);
  return [
    onEdit(el, () => l.whole && model.edit(id, JSON.stringify(texts(l)))),
    listen(el, "focusin", (e) => {
      l.current = index(e.target);
      place(l);
    }),
    listen<KeyboardEvent>(el, "keydown", (k) => {
      const i = index(k.target);
      const action = keyAction(k, k.key === "Backspace" && !texts(l)[i]);
      if (i < 0 || !action) return;
      k.preventDefault();
      run(l, action, i);
    }),
    listen(window, "scroll", follow, true),
    listen(window, "resize", follow),
  ];
}
