/**
 * Lists that grow: add, remove and reorder the items of a list container
 * (`data-cms-list`), saved by the normal Save as one whole-list write. A
 * lazy chunk: the session loads it only when the page has a list.
 *
 * {@linkcode listEdit} is the model part (pure, no DOM); the view gives
 * the list a small floating bar (move up, move down, remove, add) next to
 * the current item while the list or its bar has the focus, and keys in an
 * item: Alt+ArrowUp / Alt+ArrowDown move it, Enter adds an item after it,
 * Backspace in an empty item removes it.
 *
 * @module
 */

import type { FieldAddress } from "../core/address.ts";
import { FALLBACK_ATTRIBUTE } from "../core/locale_markers.ts";
import { storedAddress } from "../core/stored_address.ts";
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
  /** Another editor stored the list: `listStored` on this list. */
  live(items: string[], version: string): void;
}

/** A list as `listStored` needs it. */
export interface StoredList {
  /** The list's address. */
  id: string;
  /** Its items' own fields (until it is one field), in order. */
  items: readonly (Field | undefined)[];
  /** The items' texts as shown (unsaved item edits included). */
  shown: string[];
  /** Whether it is one field already. */
  whole: boolean;
  /** Lets go of the items' regions (the view's part; makes it whole). */
  release(): void;
}

/**
 * Another editor's whole-list write arrived (a live `saved` event of
 * `items` at `version`); no DOM. A list whose items are still fields of
 * their own first becomes one field, as at its first add, remove or move:
 * its stored value is what the items' fields hold, and the texts shown
 * (unsaved item edits included) are its value. Then the model's rule
 * (`Model.stored`): a clean list takes the stored items, a list with
 * unsaved edits gets the conflict choice at once.
 *
 * @example
 * ```ts ignore
 * listStored(model, { id, items, shown, whole, release }, ["A", "B"], "1x2y");
 * ```
 */
export function listStored(
  model: Model,
  list: StoredList,
  items: string[],
  version: string,
): void {
  const { id } = list;
  if (model.get(id)?.version === version) return;
  if (!list.whole) wholeList(model, list);
  model.stored(id, JSON.stringify(items), version);
}

/**
 * The list becomes one field (no DOM): its stored value is what its
 * items' fields hold, its value the texts shown (unsaved item edits
 * included), and the items' fields go clean. A list shown from another
 * locale's (a fallback) does this at its first edit, so its translation
 * is one whole-list write of the locale's list, never one save per item.
 *
 * @example
 * ```ts ignore
 * wholeList(model, { id, items, shown, whole: false, release });
 * await model.save(); // one write: `features@de` with every item
 * ```
 */
export function wholeList(model: Model, list: StoredList): void {
  const { id, shown } = list;
  rebaseList(model, id, list.items, shown);
  list.release();
  // The items' edits move into the list: their own fields go clean.
  for (const item of list.items) if (item) model.revert(item.id);
  model.edit(id, JSON.stringify(shown));
}

/**
 * The list field's address text (`id`) and path in its record (`field`):
 * a locale's list is that locale's (`features@de`), so its saves, drafts
 * and marks are never the default locale's list's.
 *
 * @example
 * ```ts
 * import { listAddress } from "./list.ts";
 * listAddress({ collection: "pages", key: "home", field: "features", locale: "de" });
 * // { id: "pages:home:features@de", field: "features@de" }
 * ```
 */
export function listAddress(a: FieldAddress): { id: string; field: string } {
  const field = a.locale ? `${a.field}@${a.locale}` : a.field;
  return { id: storedAddress({ ...a, field }), field };
}

/**
 * The stored list while its items are fields of their own: what those
 * fields hold (some may have been saved one by one since the page was
 * rendered; an item with no field counts as `shown`).
 */
function rebaseList(
  model: Model,
  id: string,
  items: readonly (Field | undefined)[],
  shown: string[],
): void {
  const stored = items.map((item, n) => item?.base ?? shown[n]);
  model.rebase(id, JSON.stringify(stored), contentVersion(stored));
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

/** The list action of key `k` in an item (`empty`: the item has no text). */
function keyAction(
  k: KeyboardEvent,
  empty: boolean,
): ListAction | undefined {
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

/** What the bar's buttons (up, down, remove, add) can do now. */
function listCan(current: number, n: number, min: number, max: number) {
  return [current > 0, current < n - 1, n > min && current >= 0, n < max];
}

/** The list's items: the container's children with an item marker of it. */
function listRows(el: HTMLElement, id: string): HTMLElement[] {
  return [...el.children].filter((m) =>
    m.getAttribute("data-cms-field")?.startsWith(id + ".")
  ) as HTMLElement[];
}

/** A new item's shape: the first item's, without the editing marks. */
function itemTemplate(kit: Kit, el: HTMLElement, first?: HTMLElement) {
  const template = first?.cloneNode(true) as HTMLElement ??
    kit.h(/^[uo]l$/.test(el.localName) ? "li" : "div");
  for (const name of ["contenteditable", "data-cms-state", "aria-invalid"]) {
    template.removeAttribute(name);
  }
  return template;
}

/**
 * The bar's buttons: each its action, text, name and keys
 * (`aria-keyshortcuts`, shown in the tooltip); a click runs `click`.
 */
function listButtons(
  kit: Kit,
  click: (action: ListAction) => void,
): HTMLButtonElement[] {
  return ([
    ["up", "↑", t("listUp"), "Alt+ArrowUp"],
    ["down", "↓", t("listDown"), "Alt+ArrowDown"],
    ["remove", "✕", t("listRemove")],
    ["add", "+ " + t("listAdd"), t("listAdd"), "Enter"],
  ] as [ListAction, string, string, string?][]).map(
    ([action, text, label, keys]) => {
      const b = kit.h("button", { type: "button", "aria-label": label }, text);
      b.title = label;
      if (keys) {
        b.setAttribute("aria-keyshortcuts", keys);
        b.title += ` (${keys.replace("Arrow", "")})`;
      }
      b.onclick = () => click(action);
      return b;
    },
  );
}

/** Puts `bar` above `r`'s right end, below it when there is no room above. */
function placeBar(bar: HTMLElement, r: DOMRect) {
  const { offsetWidth: w, offsetHeight: y } = bar;
  bar.style.top = `${r.top > y + 4 ? r.top - y - 4 : r.bottom + 4}px`;
  bar.style.left = `${Math.max(0, Math.min(r.right - w, innerWidth - w))}px`;
}

/**
 * Shows the items `want` in `rows` of `el` (item addresses `id.N`): drops
 * rows, or adds copies of `template` (`added` makes each editable).
 */
function showRows(
  el: HTMLElement,
  rows: HTMLElement[],
  template: HTMLElement,
  want: string[],
  id: string,
  added: (row: HTMLElement) => void,
) {
  while (rows.length > want.length) rows.pop()!.remove();
  while (rows.length < want.length) {
    const row = template.cloneNode(true) as HTMLElement;
    const last = rows.at(-1);
    if (last) last.after(row);
    else el.append(row);
    rows.push(row);
    added(row);
  }
  rows.forEach((row, i) => {
    if (row.textContent !== want[i]) row.textContent = want[i];
    row.setAttribute("data-cms-field", `${id}.${i}`);
    row.removeAttribute("data-cms-version");
  });
}

/** Moves the caret to the end of `m`. */
function focusEnd(m: HTMLElement) {
  m.focus();
  getSelection()?.selectAllChildren(m);
  getSelection()?.collapseToEnd();
}

/**
 * The list's items' fields let go of `rows` of `el` (the list is one field
 * now); the list's marks are on the container then.
 */
function releaseItems(
  model: Model,
  el: HTMLElement,
  items: readonly (ListField | undefined)[],
  rows: HTMLElement[],
) {
  for (const item of items) {
    if (!item) continue;
    item.els = item.els.filter((e) => !el.contains(e));
    model.revert(item.id);
  }
  for (const r of rows) r.removeAttribute("data-cms-state");
}

/**
 * The list's bar, isolated, after `el` (next in the tab order); a button's
 * click runs `click`.
 */
function listBar(
  kit: Kit,
  el: HTMLElement,
  click: (action: ListAction) => void,
) {
  const { host, root } = kit.isolate("cms-list", THEME, CSS);
  const buttons = listButtons(kit, click);
  const bar = kit.h("div", {
    class: "k",
    role: "toolbar",
    "aria-label": t("listBar"),
  }, ...buttons);
  // A click keeps the focus in the item (WebKit focuses no button on click).
  bar.onmousedown = (e) => e.preventDefault();
  root.append(bar);
  el.after(host);
  return { host, root, bar, buttons };
}

/**
 * The list's field in `model` (its value: the items as JSON text), on the
 * container `el`, and the fields of its `rows`: until the first add, remove
 * or move, each item is its own field (saved as `features.N`); from then on
 * the list is one field.
 */
function listFields(
  model: Model,
  a: FieldAddress,
  id: string,
  field: string,
  el: HTMLElement,
  rows: HTMLElement[],
  shown: string[],
) {
  const items = rows.map((r) =>
    model.get(r.dataset.cmsField!) as ListField | undefined
  );
  const { collection, key } = a;
  const f = model.add({
    id,
    collection,
    key,
    field,
    rich: false,
    list: true,
    version: el.dataset.cmsVersion,
  }, JSON.stringify(shown)) as ListField;
  f.els = [el];
  return { f, items };
}

/**
 * Calls `place` with the new focus when the focus moves out of the list
 * `el` or its bar's `host`, or into the bar, and at each scroll or resize.
 * Returns the removers.
 */
function follow(
  { listen }: Kit,
  el: HTMLElement,
  host: HTMLElement,
  place: (focus?: EventTarget | null) => void,
): (() => void)[] {
  return [
    // Focus events from the bar's shadow root reach us retargeted to host.
    listen(host, "focusin", () => place(host)),
    ...[el, host].map((t) =>
      listen<FocusEvent>(t, "focusout", (e) => place(e.relatedTarget))
    ),
    listen(window, "scroll", () => place(), true),
    listen(window, "resize", () => place()),
  ];
}

/**
 * The keys in an item of the list `el` (see {@linkcode keyAction}) run
 * `run` with their action and the item's index. Returns the remover.
 */
function itemKeys(
  { listen }: Kit,
  el: HTMLElement,
  rows: HTMLElement[],
  run: (action: ListAction, i: number) => void,
): () => void {
  return listen<KeyboardEvent>(el, "keydown", (k) => {
    const i = rows.findIndex((r) => r.contains(k.target as Node));
    const action = keyAction(k, !rows[i]?.textContent);
    if (i < 0 || !action) return;
    k.preventDefault();
    run(action, i);
  });
}

/** The list as {@linkcode listStored} and {@linkcode wholeList} take it. */
const storedList = (
  id: string,
  items: readonly (Field | undefined)[],
  shown: string[],
  whole: boolean,
  release: () => void,
): StoredList => ({ id, items, shown, whole, release });

/** One list container: its field, bar and keys. */
function attachList(
  kit: Kit,
  model: Model,
  plain: (els: HTMLElement[]) => () => void,
  el: HTMLElement,
  a: FieldAddress,
): () => void {
  const { id, field } = listAddress(a);
  const min = Number(el.dataset.cmsMin) || 0;
  const max = Number(el.dataset.cmsMax) || Infinity;
  const rows = listRows(el, id);
  const template = itemTemplate(kit, el, rows[0]);
  const undo: (() => void)[] = [];
  const texts = () => rows.map((r) => r.textContent ?? "");
  const { f, items } = listFields(model, a, id, field, el, rows, texts());
  let current = -1, whole = false;

  /** The list becomes one field: its items' fields let go of the rows. */
  const detach = () => (whole = true, releaseItems(model, el, items, rows));
  const stored = () => storedList(id, items, texts(), whole, detach);
  f.live = (list, version) => listStored(model, stored(), list, version);
  f.show = (value) => {
    if (!whole && value === f.base) return;
    if (!whole) detach();
    const want = JSON.parse(value) as string[];
    showRows(el, rows, template, want, id, (row) => undo.push(plain([row])));
    place();
  };

  const { host, root, bar, buttons } = listBar(
    kit,
    el,
    (action) => run(action, current),
  );

  /**
   * The bar at the current item (or the list), its buttons enabled. It is
   * shown while the focus (`focus`) is in the list or in the bar, and
   * always while the list is empty (Add item is then the only way in).
   */
  function place(focus: EventTarget | null = document.activeElement) {
    bar.hidden = rows.length > 0 && !el.contains(focus as Node) &&
      focus !== host;
    if (bar.hidden) return;
    if (current >= rows.length) current = rows.length - 1;
    placeBar(bar, (rows[current] ?? el).getBoundingClientRect());
    const can = listCan(current, rows.length, min, max);
    buttons.forEach((b, i) => b.disabled = !can[i]);
  }

  /** Runs `action` on item `i`; with no current item, Add appends. */
  function run(action: ListAction, i: number) {
    if (i < 0 && action === "add") i = rows.length - 1;
    const r = listEdit(texts(), i, action, min, max);
    if (!r) return;
    if (!whole) rebaseList(model, id, items, texts());
    current = r.focus;
    model.edit(id, JSON.stringify(r.items));
    const m = rows[current];
    if (m && !bar.contains(root.activeElement)) focusEnd(m);
  }

  undo.push(
    kit.onEdit(el, () => {
      // A list shown from another locale's (a fallback) is translated as
      // one whole-list write: its first edit makes it one field.
      if (whole) model.edit(id, JSON.stringify(texts()));
      else if (el.hasAttribute(FALLBACK_ATTRIBUTE)) wholeList(model, stored());
    }),
    kit.listen(el, "focusin", (e) => {
      current = rows.findIndex((r) => r.contains(e.target as Node));
      place(e.target);
    }),
    itemKeys(kit, el, rows, run),
    ...follow(kit, el, host, place),
    () => host.remove(),
  );
  place();
  return () => undo.reverse().forEach((off) => off());
}
