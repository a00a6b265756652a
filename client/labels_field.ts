/**
 * The name people read for a field in dialogs and lists: its declared
 * label (the region's `data-cms-label`, else its name in words), the item
 * number of a list item and the language of a locale's value, e.g.
 * "Features, item 2 (Deutsch)".
 *
 * @module
 */
import { t } from "./labels.ts";

/**
 * The name of `field` (`name`, `name.N`, `name@locale` or
 * `name@locale.N`, or a whole address `collection:key:field`) for people;
 * `el` is one of its regions.
 *
 * @example
 * ```ts ignore
 * fieldName("features@de.1"); // "Features, item 2 (Deutsch)"
 * fieldName("heroTitle"); // "Hero title"
 * ```
 */
export function fieldName(field: string, el?: Element | null): string {
  const [, name, locale, item] = /([^:@.]*)(?:@([^.]+))?(?:\.(\d+))?$/.exec(
    field,
  )!;
  const words = name.replace(/([a-z\d])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ").toLowerCase();
  let out = el?.getAttribute("data-cms-label") ||
    words.charAt(0).toUpperCase() + words.slice(1);
  if (item) out = t("fieldItem", { field: out, n: +item + 1 });
  return locale ? `${out} (${languageName(locale)})` : out;
}

/**
 * A language's name in itself ("de" → "Deutsch"), as the locale switcher
 * names it: the editor recognizes the language whatever the UI's.
 */
function languageName(tag: string): string {
  try {
    return new Intl.DisplayNames([tag], { type: "language" }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}
