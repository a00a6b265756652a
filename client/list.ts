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

/** One list container: its field, bar and keys. */
function attachList(
  kit: Kit,
  model: Model,
  plain: (els: HTMLElement[]) => () => void,
  el: HTMLElement,
  a: FieldAddress,
): () => void {
  const { h, listen } = kit;
  const id = `${a.collection}:${a.key}:${a.field}`;
  const min = Number(el.dataset.cmsMin) || 0;
  const max = Number(el.dataset.cmsMax) || Infinity;
  // The items are the container's children with an item marker of it.
  const rows = [...el.children].filter((m) =>
    m.getAttribute("data-cms-field")?.startsWith(id + ".")
  ) as HTMLElement[];
  const template = rows[0]?.cloneNode(true) as HTMLElement ??
    h(/^[uo]l$/.test(el.localName) ? "li" : "div");
  for (const name of ["contenteditable", "data-cms-state", "aria-invalid"]) {
    template.removeAttribute(name);
  }
  const undo: (() => void)[] = [];
  const texts = () => rows.map((r) => r.textContent ?? "");
  // Until the first add, remove or move, each item is its own field (saved
  // as `features.N`); from then on the list is one field.
  const items = rows.map((r) =>
    model.get(r.dataset.cmsField!) as ListField | undefined
  );
  const f = model.add({
    id,
    ...a,
    rich: false,
    list: true,
    version: el.dataset.cmsVersion,
  }, JSON.stringify(texts())) as ListField;
  let current = -1, whole = false;

  /** The list becomes one field: its items' fields let go of the rows. */
  function detach() {
    whole = true;
    for (const item of items) {
      if (!item) continue;
      item.els = item.els.filter((e) => !el.contains(e));
      model.revert(item.id);
    }
    // The list's marks are on the container now.
    for (const r of rows) r.removeAttribute("data-cms-state");
  }

  f.els = [el];
  f.show = (value) => {
    if (!whole && value === f.base) return;
    if (!whole) detach();
    const want = JSON.parse(value) as string[];
    while (rows.length > want.length) rows.pop()!.remove();
    while (rows.length < want.length) {
      const row = template.cloneNode(true) as HTMLElement;
      const last = rows.at(-1);
      if (last) last.after(row);
      else el.append(row);
      rows.push(row);
      undo.push(plain([row]));
    }
    rows.forEach((row, i) => {
      if (row.textContent !== want[i]) row.textContent = want[i];
      row.setAttribute("data-cms-field", `${id}.${i}`);
      row.removeAttribute("data-cms-version");
    });
    place();
  };

  const { host, root } = kit.isolate("cms-list", THEME, CSS);
  // Each button: its action, text, name and keys (`aria-keyshortcuts`,
  // shown in the tooltip).
  const buttons = ([
    ["up", "↑", t("listUp"), "Alt+ArrowUp"],
    ["down", "↓", t("listDown"), "Alt+ArrowDown"],
    ["remove", "✕", t("listRemove")],
    ["add", "+ " + t("listAdd"), t("listAdd"), "Enter"],
  ] as [ListAction, string, string, string?][]).map(
    ([action, text, label, keys]) => {
      const b = h("button", { type: "button", "aria-label": label }, text);
      b.title = label;
      if (keys) {
        b.setAttribute("aria-keyshortcuts", keys);
        b.title += ` (${keys.replace("Arrow", "")})`;
      }
      // With no current item, Add appends.
      b.onclick = () =>
        run(
          action,
          current < 0 && action === "add" ? rows.length - 1 : current,
        );
      return b;
    },
  );
  const bar = h("div", {
    class: "k",
    role: "toolbar",
    "aria-label": t("listBar"),
  }, ...buttons);
  root.append(bar);
  el.after(host);

  /** Puts the bar above the current item's (or the list's) right end,
   * below it when there is no room above. */
  function place() {
    if (current >= rows.length) current = rows.length - 1;
    const r = (rows[current] ?? el).getBoundingClientRect();
    const { offsetWidth: w, offsetHeight: y } = bar;
    bar.style.top = `${r.top > y + 4 ? r.top - y - 4 : r.bottom + 4}px`;
    bar.style.left = `${Math.max(0, Math.min(r.right - w, innerWidth - w))}px`;
    const n = rows.length;
    const can = [
      current > 0,
      current < n - 1,
      n > min && current >= 0,
      n < max,
    ];
    buttons.forEach((b, i) => b.disabled = !can[i]);
  }

  function run(action: ListAction, i: number) {
    const r = listEdit(texts(), i, action, min, max);
    if (!r) return;
    if (!whole) {
      // The stored list is what the items' fields hold now (some may have
      // been saved one by one since the page was rendered).
      const stored = items.map((item, n) => item?.base ?? texts()[n]);
      model.rebase(id, JSON.stringify(stored), contentVersion(stored));
    }
    current = r.focus;
    model.edit(id, JSON.stringify(r.items));
    const m = rows[current];
    if (m && !bar.contains(root.activeElement)) {
      m.focus();
      getSelection()?.selectAllChildren(m);
      getSelection()?.collapseToEnd();
    }
  }

  const index = (target: EventTarget | null) =>
    rows.findIndex((r) => r.contains(target as Node));
  undo.push(
    kit.onEdit(el, () => whole && model.edit(id, JSON.stringify(texts()))),
    listen(el, "focusin", (e) => {
      current = index(e.target);
      place();
    }),
    listen<KeyboardEvent>(el, "keydown", (k) => {
      const i = index(k.target);
      const action: ListAction | undefined = k.altKey && k.key === "ArrowUp"
        ? "up"
        : k.altKey && k.key === "ArrowDown"
        ? "down"
        : k.key === "Enter" && !k.shiftKey && !k.isComposing
        ? "add"
        : k.key === "Backspace" && !texts()[i]
        ? "remove"
        : undefined;
      if (i < 0 || !action) return;
      k.preventDefault();
      run(action, i);
    }),
    listen(window, "scroll", place, true),
    listen(window, "resize", place),
    () => host.remove(),
  );
  place();
  return () => undo.reverse().forEach((off) => off());
}
