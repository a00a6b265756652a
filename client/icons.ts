/**
 * The edit bar's icon set: small stroke icons as inline SVG elements.
 *
 * @module
 */

/** Names accepted by {@linkcode Icon}. */
export type IconName =
  | "bold"
  | "italic"
  | "link"
  | "list"
  | "ordered"
  | "image"
  | "undo"
  | "redo"
  | "save"
  | "settings"
  | "done"
  | "close"
  | "code"
  | "keys";

const PATHS: Record<IconName, string> = {
  bold: "M7 5h6a3.5 3.5 0 0 1 0 7H7zm0 7h7a3.5 3.5 0 0 1 0 7H7z",
  italic: "M10 5h8M6 19h8M14 5l-4 14",
  link:
    "M10 14a4 4 0 0 0 6 0l3-3a4 4 0 0 0-6-6l-1 1m2 4a4 4 0 0 0-6 0l-3 3a4 4 0 0 0 6 6l1-1",
  list: "M9 6h11M9 12h11M9 18h11M4 6h1M4 12h1M4 18h1",
  ordered: "M10 6h10M10 12h10M10 18h10M4 5l1-1v5M4 15h2l-2 3h2",
  image: "M4 5h16v14H4zm0 11 4-4 4 4 3-3 5 5M15 9h.01",
  undo: "M9 14 4 9l5-5M4 9h11a5 5 0 0 1 0 10h-4",
  redo: "M15 14l5-5-5-5m5 5H9a5 5 0 0 0 0 10h4",
  save: "M5 4h11l3 3v13H5zM8 4v5h7V4M8 20v-6h8v6",
  settings: "M4 6h9m4 0h3M4 12h3m4 0h9M4 18h11m4 0h1M13 4v4M7 10v4M15 16v4",
  done: "M5 12l5 5L19 7",
  close: "M6 6l12 12M18 6 6 18",
  code: "M8 7l-5 5 5 5M16 7l5 5-5 5",
  keys: "M3 6h18v12H3zM7 10h0M11 10h0M15 10h0M7 14h10",
};

const parsed = new Map<IconName, SVGSVGElement>();

/**
 * Creates one icon of the edit bar's set as an `<svg>` element (24×24
 * viewBox, `currentColor` stroke, `aria-hidden`). Give the surrounding
 * control its own accessible name. Unknown names throw a `TypeError`.
 *
 * @example
 * ```ts ignore
 * import { Icon } from "@inplace/cms/client";
 * const button = document.createElement("button");
 * button.append(Icon("save"), "Save");
 * ```
 */
export function Icon(name: IconName): SVGSVGElement {
  if (!Object.hasOwn(PATHS, name)) {
    throw new TypeError(`unknown icon ${name}`);
  }
  // Parsed once per name, then cloned: parsing is the costly part of mount.
  let svg = parsed.get(name);
  if (!svg) {
    const t = document.createElement("template");
    t.innerHTML =
      `<svg viewBox="0 0 24 24" width=16 height=16 fill=none stroke=currentColor stroke-width=2 stroke-linecap=round stroke-linejoin=round aria-hidden=true data-icon=${name}><path d="${
        PATHS[name]
      }"/></svg>`;
    parsed.set(name, svg = t.content.firstChild as SVGSVGElement);
  }
  return svg.cloneNode(true) as SVGSVGElement;
}
