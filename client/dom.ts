/**
 * Tiny DOM helpers shared by the edit bar and the rich text toolbar.
 *
 * @module
 */

const sheets = new Map<string, CSSStyleSheet>();

/**
 * Creates `<tag>` with an open shadow root styled by `css` (a constructed
 * stylesheet, shared between hosts). Host page CSS stays out; ours stays in.
 */
export function isolate(
  tag: string,
  css: string,
): { host: HTMLElement; root: ShadowRoot } {
  const host = document.createElement(tag);
  const root = host.attachShadow({ mode: "open" });
  root.adoptedStyleSheets = [sheet(css)];
  return { host, root };
}

/** A constructed stylesheet for `css`, created once and shared. */
export function sheet(css: string): CSSStyleSheet {
  let s = sheets.get(css);
  if (!s) {
    s = new CSSStyleSheet();
    s.replaceSync(css);
    sheets.set(css, s);
  }
  return s;
}

/** Creates an element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

/** Dispatches a `cms:*` event on `document`. */
export function emit(name: string, detail: unknown): void {
  document.dispatchEvent(new CustomEvent(name, { detail }));
}
