/**
 * Locales in the editor (a lazy chunk, loaded when the page config names
 * `locale` and `locales`): a locale switcher in the edit bar, the count of
 * untranslated fields, "not translated yet" marks on the regions whose value
 * came from another locale (their marker's `data-cms-fallback`), and "Copy
 * from …" on such a field.
 *
 * The model part ({@linkcode localeLinks}, {@linkcode untranslatedFields},
 * {@linkcode copyFallback}) needs no DOM; {@linkcode attachLocales} is the
 * thin view.
 *
 * @module
 */

import { FALLBACK_ATTRIBUTE } from "../core/locale_markers.ts";
import type { EditBar } from "./bar_types.ts";
import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";
import type { Field, Model } from "./model.ts";
import { THEME } from "./theme.ts";

/** A locale of the site and this page's URL in it (page config `locales`). */
export interface LocaleLink {
  tag: string;
  url: string;
}

/** One entry of the switcher. */
export interface SwitcherEntry {
  tag: string;
  /** The locale's name in itself (`Deutsch`), from `Intl.DisplayNames`. */
  label: string;
  /** The page in that locale, in edit mode. */
  href: string;
  /** The page's own locale. */
  current: boolean;
}

/** The name of locale `tag` in language `lang` (the tag if unknown). */
export function localeName(tag: string, lang: string = tag): string {
  try {
    return new Intl.DisplayNames([lang], { type: "language" }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/**
 * The switcher's entries: each well-formed locale of the page config, its
 * name in itself, and its URL (resolved against `base`, the page's URL)
 * with `edit` set, so the editor stays in edit mode.
 *
 * @example
 * ```ts
 * import { localeLinks } from "./locales.ts";
 * localeLinks([{ tag: "en", url: "/" }, { tag: "de", url: "/de/" }], "de",
 *   "https://example.com/de/?edit");
 * // [{ tag: "en", label: "English", href: "https://example.com/?edit", current: false }, …]
 * ```
 */
export function localeLinks(
  locales: unknown,
  current: string,
  base: string,
): SwitcherEntry[] {
  if (!Array.isArray(locales)) return [];
  return locales.filter((l): l is LocaleLink =>
    typeof l?.tag === "string" && typeof l?.url === "string"
  ).map(({ tag, url }) => {
    const u = new URL(url, base);
    u.searchParams.set("edit", "");
    return {
      tag,
      label: localeName(tag),
      href: u.href.replace(/([?&])edit=(?=&|$)/, "$1edit"),
      current: tag === current,
    };
  });
}

/**
 * The fields still untranslated: their value came from another locale
 * (`from` gives it), neither they nor (a list) any of their items
 * (`id.N`) are edited, and no save of theirs succeeded (`own`: ids saved
 * in this locale since the page loaded).
 */
export function untranslatedFields<F extends Field>(
  fields: readonly F[],
  from: (f: F) => string | undefined,
  own: ReadonlySet<string>,
): F[] {
  const touched = new Set<string>(own);
  for (const f of fields) if (f.value !== f.base) touched.add(f.id);
  const isTouched = (id: string) =>
    [...touched].some((x) => x === id || x.startsWith(`${id}.`));
  return fields.filter((f) => from(f) !== undefined && !isTouched(f.id));
}

/**
 * "Copy from …": the fallback value the field shows becomes the locale's
 * own value, as an edit (Save stores it). The locale has no value of its
 * own yet, so its stored value is empty.
 */
export function copyFallback(model: Model, f: Field): void {
  const value = f.value;
  model.rebase(f.id, "");
  model.edit(f.id, value);
}

/** A field of the page with its regions. */
export interface LocaleField extends Field {
  els: HTMLElement[];
}

const MARK = "data-cms-untranslated";
const PAGE_CSS =
  `[${MARK}]{outline:2px dotted var(--cms-accent,#1d4ed8)!important;outline-offset:3px}[${MARK}]:not(img)::after{content:attr(${MARK});font:11px/1.6 var(--cms-font,system-ui,sans-serif);background:var(--cms-surface-2,#eef1f5);color:var(--cms-text,#1b1f24);border-radius:4px;padding:0 4px;margin-left:6px;pointer-events:none;user-select:none;display:inline-block;white-space:nowrap}`;
const CSS =
  `div{position:relative;display:flex;align-items:center;gap:6px;font:var(--f);color:var(--fg)}ul{position:absolute;bottom:calc(100% + 8px);left:0;list-style:none;min-width:10em;padding:4px;z-index:1}a{display:block;padding:4px 8px;color:var(--fg);border-radius:var(--r2);text-decoration:none}a:hover,a:focus-visible{background:var(--bg2)}a[aria-current]{font-weight:600}`;

/** The switcher: a button, the list of locales it opens, and the count. */
function switcher(
  { h, isolate }: Kit,
  entries: SwitcherEntry[],
  name: string,
) {
  const { host, root } = isolate("cms-locales", THEME, CSS);
  const list = h("ul", { class: "k", id: "l", hidden: "" });
  const toggle = h("button", {
    "aria-expanded": "false",
    "aria-controls": "l",
  }, t("locale", { name }));
  const count = h("span", { class: "m", role: "status" });
  const show = (open: boolean) => {
    list.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
  };
  toggle.onclick = () => show(list.hidden === true);
  list.append(...entries.map((e) =>
    h(
      "li",
      {},
      h("a", {
        href: e.href,
        hreflang: e.tag,
        lang: e.tag,
        ...e.current ? { "aria-current": "page" } : {},
      }, e.label),
    )
  ));
  const wrap = h("div", {}, toggle, list, count);
  root.append(wrap);
  return { host, root, wrap, list, toggle, count, show };
}

/**
 * Marks the regions of the `open` fields "not translated yet" (visibly and
 * in `aria-description`), naming the locale their value came from; with no
 * `open`, removes every mark.
 */
function markUntranslated(
  fields: readonly LocaleField[],
  from: (f: LocaleField) => string | undefined,
  open: ReadonlySet<LocaleField> = new Set(),
): void {
  for (const f of fields) {
    const source = from(f);
    for (const el of f.els) {
      if (open.has(f) && source) {
        const text = t("notTranslated", {
          name: localeName(source, t("lang")),
        });
        el.setAttribute(MARK, text);
        el.setAttribute("aria-description", text);
      } else if (el.hasAttribute(MARK)) {
        el.removeAttribute(MARK);
        el.removeAttribute("aria-description");
      }
    }
  }
}

/** "Copy from …" in the bar for field `f`, whose value came from `source`. */
function offerCopy(
  bar: EditBar,
  model: Model,
  f: LocaleField,
  source: string,
): () => void {
  return bar.add({
    label: t("copyFrom", { name: localeName(source, t("lang")) }),
    run() {
      copyFallback(model, f);
      f.els[0].focus();
    },
  });
}

/**
 * Shows the switcher and the count in the bar's slot, marks untranslated
 * regions, and offers "Copy from …" while the last focused field is
 * untranslated. Returns the cleanup.
 */
export function attachLocales(
  kit: Kit,
  bar: EditBar,
  model: Model,
  fields: readonly LocaleField[],
  locale: string,
  locales: unknown,
): () => void {
  const { listen, sheet } = kit;
  const entries = localeLinks(locales, locale, location.href);
  const { host, root, wrap, list, toggle, count, show } = switcher(
    kit,
    entries,
    localeName(locale),
  );
  const offSlot = bar.slot(host);
  const marks = sheet(PAGE_CSS);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, marks];
  const from = (f: LocaleField) =>
    f.els[0]?.getAttribute(FALLBACK_ATTRIBUTE) ?? undefined;
  const own = new Set<string>();
  let focused: LocaleField | undefined;
  let offCopy: (() => void) | undefined;

  function paint() {
    const open = new Set(untranslatedFields(fields, from, own));
    markUntranslated(fields, from, open);
    count.textContent = open.size ? t("untranslated", { n: open.size }) : "";
    offCopy = void offCopy?.();
    // A list's items are edited in place: no copy of a whole list.
    if (focused && !focused.list && open.has(focused)) {
      offCopy = offerCopy(bar, model, focused, from(focused)!);
    }
  }

  const byRegion = (target: EventTarget | null) => {
    const el = (target as Element | null)?.closest?.("[data-cms-field]");
    return fields.find((f) => f.els.includes(el as HTMLElement));
  };
  const offs = [
    listen<CustomEvent<{ field: string }>>(document, "cms:saved", (e) => {
      own.add(e.detail.field);
      paint();
    }),
    listen(document, "cms:dirty", paint),
    listen(document, "focusin", (e) => {
      const f = byRegion(e.target);
      // Focus in the bar keeps the field (its Copy button is there).
      if (f || !(e.target as Element)?.closest?.("cms-edit-bar")) {
        focused = f;
        paint();
      }
    }),
    // Focus leaving the switcher closes its list.
    listen<FocusEvent>(wrap, "focusout", (e) => {
      if (!wrap.contains(e.relatedTarget as Node | null)) show(false);
    }),
    listen<KeyboardEvent>(root, "keydown", (k) => {
      if (k.key === "Escape" && !list.hidden) {
        show(false);
        toggle.focus();
      }
    }),
  ];
  paint();
  return () => {
    offs.forEach((off) => off());
    offCopy?.();
    offSlot();
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((x) =>
      x !== marks
    );
    markUntranslated(fields, from);
  };
}
