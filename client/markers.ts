/**
 * Strict parsing of editable region markers
 * (`data-cms-field="collection:key:field"`), with the one address grammar of
 * `core/address.ts` and the marker types of `core/content.ts`.
 *
 * @module
 */
import {
  addressReader,
  type FieldAddress,
  fieldPath,
} from "../core/address.ts";
import { kindOfMarker } from "../core/content.ts";

/** A parsed marker. */
export interface Marker {
  /** The marker text, `collection:key:field`; identifies the field. */
  id: string;
  /** The record's collection. */
  collection: string;
  /** The record's key. */
  key: string;
  /** Field name, `name` or `name.<index>` for a list item. */
  field: string;
  /** Whether `data-cms-type="richtext"` (else a plain or image region). */
  rich: boolean;
  /** Whether `data-cms-type="image"` on an `<img>`: the value is its `src`. */
  image: boolean;
  /** `data-cms-version`, when present. */
  version?: string;
}

/**
 * Parses one marker element. Returns the marker, or a short reason why the
 * element is not a valid one. An image marker (`data-cms-type="image"`)
 * must be an `<img>`.
 *
 * @example
 * ```ts ignore
 * const el = document.querySelector<HTMLElement>("[data-cms-field]")!;
 * const marker = readMarker(el);
 * if (typeof marker === "string") console.warn(marker);
 * ```
 */
export function readMarker(
  el: HTMLElement,
  parse: (text: string) => FieldAddress | string = addressReader(),
): Marker | string {
  const id = el.getAttribute("data-cms-field") ?? "";
  const address = parse(id);
  if (typeof address === "string") return address;
  const kind = kindOfMarker(el.getAttribute("data-cms-type"));
  if (kind === undefined) return "Unknown data-cms-type";
  if (kind === "image" && el.localName !== "img") {
    return "Image fields need an <img> element";
  }
  return {
    id,
    collection: address.collection,
    key: address.key,
    field: fieldPath(address),
    rich: kind === "rich",
    image: kind === "image",
    version: el.getAttribute("data-cms-version") ?? undefined,
  };
}

/**
 * The name people read for a field: the region's `data-cms-label` (the
 * declared `label`, rendered by the host), else its field name in words
 * ("heroTitle" → "Hero title"); a list item adds its number from 1
 * ("features.2" → "Features 3"). A locale in the path is left out: it is
 * the page's ("features@de.2" → "Features 3").
 *
 * @example
 * ```ts ignore
 * fieldLabel("features.2"); // "Features 3"
 * ```
 */
export function fieldLabel(field: string, el?: HTMLElement): string {
  const [path, item] = field.split(".");
  // The locale is the page's (`features@de.0` reads "Features 1").
  const words = path.replace(/@.*/, "").replace(/([a-z\d])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ").toLowerCase();
  const text = el?.getAttribute("data-cms-label") ||
    words.charAt(0).toUpperCase() + words.slice(1);
  return item === undefined ? text : `${text} ${Number(item) + 1}`;
}
