/**
 * Tiny DOM helpers shared by the edit bar and the rich text toolbar.
 *
 * Only the entry chunk imports this module (and the icons). It hands them to
 * the lazy chunks as a {@linkcode Kit}, whose type is all they import: so
 * `deno bundle --code-splitting` emits no shared chunk, and the helpers ship
 * once, inside the tiny entry.
 *
 * @module
 */

import type { Icon } from "./icons.ts";
import type { localDrafts } from "./drafts.ts";

/** The helpers the lazy chunks (session, rich text editor) get from the entry. */
export interface Kit {
  h: typeof h;
  isolate: typeof isolate;
  sheet: typeof sheet;
  listen: typeof listen;
  editable: typeof editable;
  onEdit: typeof onEdit;
  Icon: typeof Icon;
  /** The draft store (in the entry, which also clears drafts at logout). */
  drafts: typeof localDrafts;
}

const sheets = new Map<string, CSSStyleSheet>();

/**
 * The constructed stylesheet for `css` (not subject to a page's `style-src`
 * CSP), parsed once and shared.
 */
export function sheet(css: string): CSSStyleSheet {
  let s = sheets.get(css);
  if (!s) {
    sheets.set(css, s = new CSSStyleSheet());
    s.replaceSync(css);
  }
  return s;
}

/**
 * Creates `<tag>` with an open shadow root styled by `css` (the shared theme
 * first, then the surface's own rules). Host page CSS stays out; ours stays
 * in.
 */
export function isolate(
  tag: string,
  ...css: string[]
): { host: HTMLElement; root: ShadowRoot } {
  const host = document.createElement(tag);
  const root = host.attachShadow({ mode: "open" });
  root.adoptedStyleSheets = css.map(sheet);
  return { host, root };
}

/**
 * Creates an element with attributes and children. A `<button>` is
 * `type="button"` unless `attrs` says otherwise: inside a host's `<form>`
 * (or a panel's own) a click never submits it.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (tag == "button") el.setAttribute("type", "button");
  for (const k in attrs) el.setAttribute(k, attrs[k]);
  el.append(...children);
  return el;
}

/**
 * Sets `el`'s `contenteditable` to `value` (throws on a value the engine
 * does not know) and returns the function restoring its previous attribute.
 */
export function editable(el: HTMLElement, value: string): () => void {
  const before = el.getAttribute("contenteditable");
  el.contentEditable = value;
  return () =>
    before === null
      ? el.removeAttribute("contenteditable")
      : el.setAttribute("contenteditable", before);
}

/** Adds a listener and returns the function that removes it. */
export function listen<E extends Event = Event>(
  target: EventTarget,
  type: string,
  fn: (e: E) => void,
  capture = false,
): () => void {
  target.addEventListener(type, fn as EventListener, capture);
  return () => target.removeEventListener(type, fn as EventListener, capture);
}

/**
 * Calls `fn` after each edit in `target` (or below it) that is not part of
 * an IME composition (Chinese, Japanese, Korean input, dead keys): on
 * `input` outside a composition, and once at `compositionend`. Nothing
 * runs between `compositionstart` and `compositionend`, so no dirty flag,
 * draft or save sees a half-composed word. Returns the remover.
 */
export function onEdit(
  target: EventTarget,
  fn: (e: Event) => void,
): () => void {
  let composing = false;
  const offs = [
    listen(target, "compositionstart", () => composing = true),
    listen(target, "compositionend", (e) => {
      composing = false;
      fn(e);
    }),
    listen<InputEvent>(target, "input", (e) => {
      if (!composing && !e.isComposing) fn(e);
    }),
  ];
  return () => offs.forEach((off) => off());
}
