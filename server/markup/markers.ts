/**
 * The marker attributes of editable fields and lists, as attribute records
 * (for JSX) and as escaped markup (for template strings). The Preact
 * components of `@inplace/cms/fresh` render through these functions, so
 * both kinds of host send the same markers.
 *
 * @module
 */
import { formatAddress, parseAddress } from "../../core/address.ts";
import { localizeAddress } from "../../core/locale.ts";
import {
  type Allowlist,
  type FieldAddressOf,
  type FieldKind,
  fieldSpec,
  localesOf,
  markerType,
} from "../../core/content.ts";
import {
  FALLBACK_ATTRIBUTE,
  LOCALE_ATTRIBUTE,
} from "../../core/locale_markers.ts";
import { contentVersion } from "../../core/version.ts";
import {
  type Attributes,
  attributeString,
  element,
  escapeHtml,
} from "./_html.ts";

/** What every field helper takes, whatever names the field. */
export interface FieldMarkupCommon {
  /** The stored value: plain text, sanitized HTML (rich) or an image URL. */
  value: string | null | undefined;
  /** Write the marker attributes (edit mode). Default `false`: none. */
  editing?: boolean;
  /** Overrides `data-cms-version` (default: `contentVersion(value)`). */
  version?: string;
  /**
   * The page's locale (a declared one). In edit mode the marker names it:
   * `data-cms-field="pages:home:title@de"` (the plain address for the
   * default locale) and `data-cms-locale="de"`. Neither on a shared field.
   */
  locale?: string;
  /**
   * The locale `value` came from (`readLocalized`'s `from[field]`): when it
   * is not `locale`, the marker also gets `data-cms-fallback`.
   */
  from?: string;
}

/**
 * Names a field: with `content` (a `defineContent` result) the kind comes
 * from the declaration and `field` must be a declared address; without
 * it, `field` is any marker text and `rich` says whether the value is HTML.
 */
export type FieldName<C extends Allowlist = Allowlist> =
  | {
    /** The content declaration the field belongs to. */
    content: C;
    /** The address: `"<collection>:<key>:<field>"`, e.g. `"pages:home:title"`. */
    field: FieldAddressOf<C>;
    /** Not used: the kind comes from `content`. */
    rich?: never;
  }
  | {
    /** No declaration: the kind is plain, or rich with `rich`. */
    content?: undefined;
    /** The address: `"<collection>:<key>:<field>"`, e.g. `"pages:home:title"`. */
    field: string;
    /** A rich text field: `value` is stored, sanitized HTML. */
    rich?: boolean;
  };

/** Options of {@linkcode fieldMarkers} and {@linkcode cmsFieldAttributes}. */
export type FieldMarkerOptions<C extends Allowlist = Allowlist> =
  & FieldMarkupCommon
  & FieldName<C>;

/** Options of {@linkcode cmsField}: the field, its element and attributes. */
export type FieldMarkupOptions<C extends Allowlist = Allowlist> =
  & FieldMarkerOptions<C>
  & {
    /** The element. Default `"div"` (`"img"` for an image field). */
    as?: string;
    /** Any other attribute of the element (`class`, `id`, `alt`, …). */
    attrs?: Attributes;
  };

/** A field's kind, declared label and sharedness, checked. */
export interface ResolvedField {
  /** `plain` for list items. */
  kind: FieldKind;
  /** The declared label, if any. */
  label?: string;
  /** Declared `shared`: one value for every locale. */
  shared: boolean;
}

/**
 * The kind, label and sharedness of the field `options` names; throws a
 * `TypeError` (prefixed with `who`) for an undeclared field or locale.
 *
 * @example
 * ```ts
 * import { resolveField } from "./markers.ts";
 * resolveField({ field: "pages:home:body", rich: true, value: "" }).kind; // "rich"
 * ```
 */
export function resolveField(
  options: FieldMarkerOptions,
  who = "cmsField",
): ResolvedField {
  const { content, field, locale } = options;
  if (!content) return { kind: options.rich ? "rich" : "plain", shared: false };
  const address = parseAddress(field);
  const spec = typeof address === "string"
    ? undefined
    : fieldSpec(content, address.collection, address.field);
  const isItem = typeof address !== "string" && address.index !== undefined;
  if (!spec || isItem !== (spec.kind === "list")) {
    throw new TypeError(`${who}: ${JSON.stringify(field)} is not declared`);
  }
  checkLocale(content, locale, who);
  return {
    kind: isItem ? "plain" : spec.kind,
    label: spec.label,
    shared: spec.shared === true,
  };
}

function checkLocale(content: Allowlist, locale?: string, who = "cmsField") {
  if (locale !== undefined && !localesOf(content)?.locales.includes(locale)) {
    throw new TypeError(`${who}: unknown locale ${JSON.stringify(locale)}`);
  }
}

/**
 * The marker text of `field` in `locale`: the address with the locale in
 * its field part (`pages:home:title@de`); unchanged for the default locale
 * and shared fields.
 */
function localized(
  content: Allowlist | undefined,
  field: string,
  locale: string | undefined,
): string {
  const address = locale === undefined ? field : parseAddress(field);
  if (typeof address === "string" || address.locale !== undefined) {
    return field;
  }
  const stored = content
    ? localizeAddress(content, { ...address, locale })
    : { ...address, locale };
  return typeof stored === "string" ? field : formatAddress(stored);
}

/** The locale markers: `data-cms-locale`, and `data-cms-fallback` when the
 * value came from another locale. */
function localeMarkers(
  out: Record<string, string>,
  locale: string | undefined,
  from: string | undefined,
  shared: boolean | undefined,
) {
  if (locale === undefined || shared) return;
  out[LOCALE_ATTRIBUTE] = locale;
  if (from !== undefined && from !== locale) out[FALLBACK_ATTRIBUTE] = from;
}

/**
 * The marker attributes of one editable field in edit mode, in the order
 * they are written: `data-cms-field`, `data-cms-type` (`richtext`, `image`;
 * none for plain text and list items), `data-cms-label`,
 * `data-cms-version`, then `data-cms-locale` and `data-cms-fallback` on a
 * localized field. Not editing: `{}`. Throws a `TypeError` when `content`
 * is given and `field` is not a declared field, or `locale` not a declared
 * locale.
 *
 * @example
 * ```ts
 * import { defineContent, fieldMarkers } from "@inplace/cms";
 * const content = defineContent({ pages: { body: "rich" } });
 * fieldMarkers({ content, field: "pages:home:body", value: "<p>Hi</p>", editing: true });
 * // { "data-cms-field": "pages:home:body", "data-cms-type": "richtext", "data-cms-version": "…" }
 * ```
 */
export function fieldMarkers<C extends Allowlist>(
  options: FieldMarkerOptions<C>,
): Record<string, string> {
  const resolved = resolveField(options as FieldMarkerOptions);
  return markersOf(options as FieldMarkerOptions, resolved);
}

/** {@linkcode fieldMarkers} for an already resolved field. */
export function markersOf(
  options: FieldMarkerOptions,
  { kind, label, shared }: ResolvedField,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!options.editing) return out;
  const { content, field, locale } = options;
  out["data-cms-field"] = localized(content, field, locale);
  const type = markerType(kind);
  if (type) out["data-cms-type"] = type;
  if (label) out["data-cms-label"] = label;
  out["data-cms-version"] = options.version ??
    contentVersion(options.value ?? "");
  localeMarkers(out, locale, options.from, shared);
  return out;
}

/**
 * {@linkcode fieldMarkers} as an escaped attribute string for a tag you
 * write yourself; `""` when not editing.
 *
 * @example
 * ```ts
 * import { cmsFieldAttributes } from "@inplace/cms";
 * const title = "Hello";
 * const html = `<h1 ${cmsFieldAttributes({ field: "pages:home:title", value: title, editing: true })}>${title}</h1>`;
 * ```
 */
export function cmsFieldAttributes<C extends Allowlist>(
  options: FieldMarkerOptions<C>,
): string {
  return attributeString(fieldMarkers(options));
}

/** The attributes and inner HTML of a field's element (shared with Preact). */
export interface FieldParts {
  /** The element's tag. */
  tag: string;
  /** Its attributes: the host's, then the markers, then `src` for images. */
  attrs: Attributes;
  /** The field's kind. */
  kind: FieldKind;
  /** The value, `""` when none. */
  text: string;
  /**
   * Nothing to write: an image field without an image, for a visitor (an
   * `<img>` without `src` would show its alt text). In edit mode the editor
   * gets the `<img>` to drop onto.
   */
  none: boolean;
}

/**
 * What {@linkcode cmsField} renders, before it is written: the tag, the
 * attributes in order and the kind (the Preact `CmsField` uses it too).
 * With `image`, a field named without `content` is an image field.
 *
 * @example
 * ```ts
 * import { fieldParts } from "./markers.ts";
 * fieldParts({ field: "pages:home:title", value: "Hi" }, {}).tag; // "div"
 * ```
 */
export function fieldParts(
  options: FieldMarkerOptions & { as?: string },
  attrs: Attributes,
  who = "cmsField",
  image = false,
): FieldParts {
  const resolved: ResolvedField = image && !options.content
    ? { kind: "image", shared: false }
    : resolveField(options, who);
  const text = options.value ?? "";
  const all: Attributes = { ...attrs, ...markersOf(options, resolved) };
  // No value, no `src`: `src=""` shows a broken image and may refetch the page.
  if (resolved.kind === "image" && text) all.src = text;
  const tag = options.as ?? (resolved.kind === "image" ? "img" : "div");
  const none = resolved.kind === "image" && !text && !options.editing;
  return { tag, attrs: all, kind: resolved.kind, text, none };
}

/**
 * One editable field as escaped HTML: the element with the host's
 * attributes and, in edit mode, the markers (see {@linkcode fieldMarkers}).
 * Plain values are escaped text; image values the `src` of an `<img>`
 * (pass `alt` in `attrs`; an image field without a value is nothing for
 * visitors and an `<img>` without `src` to drop onto in edit mode); rich
 * values are written as is: pass only what the save endpoint stored (it
 * sanitized them), or run `sanitizeHtml` first.
 *
 * @example
 * ```ts
 * import { cmsField, defineContent } from "@inplace/cms";
 * const content = defineContent({ pages: { title: "plain" } });
 * cmsField({ content, field: "pages:home:title", value: "Tom & Jerry", as: "h1" });
 * // '<h1>Tom &amp; Jerry</h1>'
 * ```
 */
export function cmsField<C extends Allowlist>(
  options: FieldMarkupOptions<C>,
): string {
  const o = options as FieldMarkupOptions;
  const { tag, attrs, kind, text, none } = fieldParts(o, o.attrs ?? {});
  if (none) return "";
  return element(tag, attrs, kind === "rich" ? text : escapeHtml(text));
}

/** Options of {@linkcode listMarkers}, {@linkcode cmsList} and friends. */
export interface ListMarkupOptions<C extends Allowlist = Allowlist> {
  /** The content declaration the list belongs to (its limits and label). */
  content?: C;
  /** The whole list's address, no item index: `"pages:home:features"`. */
  field: string;
  /** The stored items. */
  value: readonly string[] | null | undefined;
  /** Write the markers (edit mode). Default `false`. */
  editing?: boolean;
  /** Fewest items (default: the declared `min`, else none). */
  min?: number;
  /** Most items (default: the declared `max`, else none). */
  max?: number;
  /** The page's locale, as for a field (container and items). */
  locale?: string;
  /** The locale `value` came from: a fallback list gets `data-cms-fallback`. */
  from?: string;
  /** The container element (for {@linkcode cmsList}). Default `"ul"`. */
  as?: string;
  /** Each item's element (for {@linkcode cmsList}). Default `"li"`. */
  itemAs?: string;
  /** Other attributes of the container (for {@linkcode cmsList}). */
  attrs?: Attributes;
  /** Other attributes of each item (for {@linkcode cmsList}). */
  itemAttrs?: Attributes;
}

/** A checked list: its marker text and what the declaration says. */
export interface ResolvedList {
  /** The list's marker text (localized). */
  marker: string;
  /** Declared `shared`. */
  shared: boolean;
  /** The container's markers (edit mode), `{}` otherwise. */
  markers: Record<string, string>;
}

/**
 * Checks a list and computes its container markers: `data-cms-list`,
 * `data-cms-version` (of the whole list), `data-cms-min`, `data-cms-max`,
 * `data-cms-label`, `data-cms-locale`, `data-cms-fallback`. Throws a
 * `TypeError` for an address that is not a list.
 *
 * @example
 * ```ts
 * import { resolveList } from "./markers.ts";
 * resolveList({ field: "pages:home:features", value: [] }).marker; // "pages:home:features"
 * ```
 */
export function resolveList(
  options: ListMarkupOptions,
  who = "cmsList",
): ResolvedList {
  const { content, field, locale } = options;
  const address = parseAddress(field);
  const spec = content && typeof address !== "string"
    ? fieldSpec(content, address.collection, address.field)
    : undefined;
  if (
    typeof address === "string" || address.index !== undefined ||
    (content && spec?.kind !== "list")
  ) {
    throw new TypeError(`${who}: ${JSON.stringify(field)} is not a list`);
  }
  if (content) checkLocale(content, locale, who);
  const marker = localized(content, field, locale);
  const shared = spec?.shared === true;
  const markers: Record<string, string> = {};
  if (options.editing) {
    markers["data-cms-list"] = marker;
    markers["data-cms-version"] = contentVersion([...options.value ?? []]);
    const low = options.min ?? spec?.min, high = options.max ?? spec?.max;
    if (low !== undefined) markers["data-cms-min"] = String(low);
    if (high !== undefined) markers["data-cms-max"] = String(high);
    if (spec?.label) markers["data-cms-label"] = spec.label;
    localeMarkers(markers, locale, options.from, shared);
  }
  return { marker, shared, markers };
}

/**
 * The container markers of a list in edit mode (see {@linkcode resolveList});
 * `{}` not editing.
 *
 * @example
 * ```ts
 * import { defineContent, list, listMarkers } from "@inplace/cms";
 * const content = defineContent({ pages: { features: list({ max: 6 }) } });
 * listMarkers({ content, field: "pages:home:features", value: ["A"], editing: true });
 * // { "data-cms-list": "pages:home:features", "data-cms-version": "…", "data-cms-max": "6" }
 * ```
 */
export function listMarkers<C extends Allowlist>(
  options: ListMarkupOptions<C>,
): Record<string, string> {
  return resolveList(options as ListMarkupOptions).markers;
}

/**
 * The markers of item `index` of a list (its value `item`), in edit mode:
 * `data-cms-field="<list>.<index>"`, `data-cms-version` and, on a localized
 * list, `data-cms-locale`. `{}` not editing.
 *
 * @example
 * ```ts
 * import { itemMarkers } from "@inplace/cms";
 * itemMarkers({ field: "pages:home:features", value: ["A"], editing: true }, 0);
 * // { "data-cms-field": "pages:home:features.0", "data-cms-version": "…" }
 * ```
 */
export function itemMarkers<C extends Allowlist>(
  options: ListMarkupOptions<C>,
  index: number,
): Record<string, string> {
  const list = resolveList(options as ListMarkupOptions);
  return itemMarkersOf(options as ListMarkupOptions, list, index);
}

/** {@linkcode itemMarkers} for an already resolved list. */
export function itemMarkersOf(
  options: ListMarkupOptions,
  list: ResolvedList,
  index: number,
): Record<string, string> {
  if (!options.editing) return {};
  const item = options.value?.[index] ?? "";
  const out = markersOf(
    { field: `${list.marker}.${index}`, value: item, editing: true },
    { kind: "plain", shared: true },
  );
  if (options.locale !== undefined && !list.shared) {
    out[LOCALE_ATTRIBUTE] = options.locale;
  }
  return out;
}

/**
 * {@linkcode listMarkers} as an escaped attribute string; `""` not editing.
 *
 * @example
 * ```ts
 * import { cmsListAttributes } from "@inplace/cms";
 * const html = `<ul ${cmsListAttributes({ field: "pages:home:features", value: [], editing: true })}></ul>`;
 * ```
 */
export function cmsListAttributes<C extends Allowlist>(
  options: ListMarkupOptions<C>,
): string {
  return attributeString(listMarkers(options));
}

/**
 * {@linkcode itemMarkers} as an escaped attribute string; `""` not editing.
 *
 * @example
 * ```ts
 * import { cmsItemAttributes } from "@inplace/cms";
 * const items = ["Fast", "Small"];
 * const list = { field: "pages:home:features", value: items, editing: true };
 * const html = items.map((t, i) => `<li ${cmsItemAttributes(list, i)}>${t}</li>`).join("");
 * ```
 */
export function cmsItemAttributes<C extends Allowlist>(
  options: ListMarkupOptions<C>,
  index: number,
): string {
  return attributeString(itemMarkers(options, index));
}

/**
 * A whole list as escaped HTML: the container (default `<ul>`) with its
 * markers, and one item element (default `<li>`) per value, each with its
 * item marker, in edit mode; the bare list otherwise. Throws a `TypeError`
 * when `content` is given and `field` is not a declared list.
 *
 * @example
 * ```ts
 * import { cmsList, defineContent, list } from "@inplace/cms";
 * const content = defineContent({ pages: { features: list({ min: 1 }) } });
 * cmsList({ content, field: "pages:home:features", value: ["Fast", "<Small>"] });
 * // '<ul><li>Fast</li><li>&lt;Small></li></ul>'
 * ```
 */
export function cmsList<C extends Allowlist>(
  options: ListMarkupOptions<C>,
): string {
  const o = options as ListMarkupOptions;
  const list = resolveList(o);
  const items = (o.value ?? []).map((item, i) =>
    element(
      o.itemAs ?? "li",
      { ...o.itemAttrs, ...itemMarkersOf(o, list, i) },
      escapeHtml(item),
    )
  );
  return element(
    o.as ?? "ul",
    { ...o.attrs, ...list.markers },
    items.join(""),
  );
}
