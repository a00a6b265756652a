/**
 * One declaration of a site's editable content. From it come the save
 * endpoint's allowlist and rich-field set, the field kinds that the Preact
 * helpers render as `data-cms-type`, per-field limits, and the TypeScript
 * names of every field address.
 *
 * @example
 * ```ts
 * import { defineContent, list, plain, type FieldAddressOf } from "./content.ts";
 * const content = defineContent({
 *   pages: {
 *     title: plain({ maxLength: 120 }),
 *     body: "rich",
 *     hero: "image",
 *     features: list("plain"),
 *   },
 * });
 * content.pages.body; // "rich"
 * const ok: FieldAddressOf<typeof content> = "pages:home:features.2";
 * // @ts-expect-error: no field "titel"
 * const bad: FieldAddressOf<typeof content> = "pages:home:titel";
 * ```
 *
 * @module
 */
import { checkAddress, isLocale } from "./address.ts";
import { isAllowedUrl } from "./url.ts";

/**
 * How a field is stored and saved:
 * - `plain`: text; numbers and booleans are stored as text.
 * - `rich`: HTML, sanitized with the one policy (the rich-field set).
 * - `image`: the URL of an image (what the media endpoint answers as `url`):
 *   an `http:`/`https:` URL or a path such as `/media/a.png`, never
 *   protocol-relative, with no spaces or control characters.
 * - `list`: a list of plain texts. An item is saved as `name.N`; the whole
 *   list (items added, removed or reordered) as `name`, with a `string[]`.
 */
export type FieldKind = "plain" | "rich" | "image" | "list";

/**
 * A field's declaration with its limits. Write it with
 * {@linkcode plain}, {@linkcode rich}, {@linkcode image} or {@linkcode list}.
 */
export interface FieldSpec {
  /** How the field is stored. */
  readonly kind: FieldKind;
  /** Longest accepted value in characters (for rich: the stored HTML). */
  readonly maxLength?: number;
  /** For `list`: how each item is checked. */
  readonly item?: FieldSpec;
  /** For `list`: fewest items a whole-list write may leave (default 0). */
  readonly min?: number;
  /** For `list`: most items a whole-list write may leave (default none). */
  readonly max?: number;
  /** The field's name for people (history, publish toasts), e.g. "Title". */
  readonly label?: string;
  /**
   * One value for every locale (e.g. a logo); see {@linkcode shared}.
   * Fields of a declaration with locales are localized unless shared.
   */
  readonly shared?: boolean;
}

/** A field in {@linkcode defineContent}: a kind, or a spec with limits. */
export type FieldDecl = "plain" | "rich" | "image" | FieldSpec;

/** Limits a text field may declare, and its label. */
export interface TextLimits {
  /** Longest accepted value in characters (code points). */
  maxLength?: number;
  /** The field's name for people, e.g. "Title" (default: from its name). */
  label?: string;
}

/**
 * A plain-text field with limits.
 *
 * @example
 * ```ts
 * import { defineContent, plain } from "./content.ts";
 * defineContent({ pages: { title: plain({ maxLength: 80, label: "Title" }) } });
 * ```
 */
export function plain(limits: TextLimits = {}): FieldSpec & { kind: "plain" } {
  return Object.freeze({ kind: "plain", ...checkLimits(limits) });
}

/**
 * A rich-text field with limits (`maxLength` counts the sanitized HTML).
 *
 * @example
 * ```ts
 * import { defineContent, rich } from "./content.ts";
 * defineContent({ pages: { body: rich({ maxLength: 20_000 }) } });
 * ```
 */
export function rich(limits: TextLimits = {}): FieldSpec & { kind: "rich" } {
  return Object.freeze({ kind: "rich", ...checkLimits(limits) });
}

/**
 * An image field: its value is an image URL (see {@linkcode FieldKind}).
 *
 * @example
 * ```ts
 * import { defineContent, image } from "./content.ts";
 * defineContent({ pages: { hero: image() } });
 * ```
 */
export function image(
  options: { label?: string } = {},
): FieldSpec & { kind: "image" } {
  return Object.freeze({ kind: "image", ...checkLabel(options.label) });
}

/** Options of {@linkcode list}: its item limits and label. */
export interface ListOptions {
  /** Fewest items the editor may leave (default 0). */
  min?: number;
  /** Most items the editor may add (default: no limit but the body size). */
  max?: number;
  /** The field's name for people, e.g. "Features". */
  label?: string;
}

/**
 * A list of plain texts. Editors change an item in place (`features.2`),
 * and add, remove and reorder items, saved as one whole-list write
 * (`features`), between `min` and `max` items. The options come first or
 * after the item spec.
 *
 * @example
 * ```ts
 * import { defineContent, list, plain } from "./content.ts";
 * defineContent({
 *   pages: {
 *     features: list(plain({ maxLength: 60 }), { min: 1, max: 6 }),
 *     tags: list({ max: 10 }),
 *   },
 * });
 * ```
 */
export function list(
  item: "plain" | FieldSpec & { kind: "plain" } | ListOptions = "plain",
  options: ListOptions = {},
): FieldSpec & { kind: "list" } {
  if (typeof item === "object" && !("kind" in item)) {
    return list("plain", item);
  }
  const { min, max } = options;
  if (min !== undefined && !(isLimit(min) || min === 0)) {
    throw new TypeError("min must be a non-negative integer");
  }
  if (max !== undefined && !isLimit(max)) {
    throw new TypeError("max must be a positive integer");
  }
  if ((min ?? 0) > (max ?? Infinity)) {
    throw new TypeError("min must not exceed max");
  }
  return Object.freeze({
    kind: "list",
    item: item === "plain" ? plain() : item,
    ...min === undefined ? {} : { min },
    ...max === undefined ? {} : { max },
    ...checkLabel(options.label),
  });
}

/**
 * Whether a whole list's length is within its spec's `min` and `max`:
 * `undefined` when it is, else the short reason a save answers with.
 *
 * @example
 * ```ts
 * import { list, listLengthError } from "./content.ts";
 * listLengthError(list({ min: 1, max: 3 }), 2); // undefined
 * listLengthError(list({ min: 1, max: 3 }), 4); // "List allows at most 3 items"
 * ```
 */
export function listLengthError(
  spec: FieldSpec,
  length: number,
): string | undefined {
  if (spec.min !== undefined && length < spec.min) {
    return `List needs at least ${spec.min} item${spec.min === 1 ? "" : "s"}`;
  }
  if (spec.max !== undefined && length > spec.max) {
    return `List allows at most ${spec.max} item${spec.max === 1 ? "" : "s"}`;
  }
  return undefined;
}

/**
 * What {@linkcode defineContent} returns: collection → field → kind. It is
 * an {@linkcode Allowlist} too, so it goes wherever one does, and its type
 * knows every field name.
 */
export type Content<T> = {
  readonly [C in keyof T]: {
    readonly [F in keyof T[C]]: T[C][F] extends "plain" | "rich" | "image"
      ? T[C][F]
      : T[C][F] extends { kind: infer K } ? K
      : never;
  };
};

/**
 * Which fields are writable, and how: collection → field → kind. Write it
 * by hand, or get it from {@linkcode defineContent}. Fields of kind `rich`
 * form the rich-field set. Anything not listed is rejected with 400.
 *
 * @example
 * ```ts
 * import type { Allowlist } from "./content.ts";
 * const allowlist: Allowlist = {
 *   pages: { title: "plain", body: "rich", features: "list" },
 * };
 * ```
 */
export type Allowlist = Readonly<
  Record<string, Readonly<Record<string, FieldKind>>>
>;

/**
 * Every valid marker text of a content declaration, as a template-literal
 * union: `collection:${string}:field`, and `collection:${string}:field.${number}`
 * for list fields. A misspelled collection or field is a type error.
 *
 * @example
 * ```ts
 * import { defineContent, list, type FieldAddressOf } from "./content.ts";
 * const content = defineContent({ pages: { title: "plain", tags: list() } });
 * const a: FieldAddressOf<typeof content> = "pages:about:title";
 * const b: FieldAddressOf<typeof content> = "pages:about:tags.0";
 * ```
 */
export type FieldAddressOf<C> = {
  [K in keyof C & string]: {
    [F in keyof C[K] & string]: C[K][F] extends "list"
      ? `${K}:${string}:${F}.${number}`
      : `${K}:${string}:${F}`;
  }[keyof C[K] & string];
}[keyof C & string];

/**
 * The address of a whole list field of a content declaration
 * (`collection:${string}:field`, no item index): what a list container
 * (`data-cms-list`) and a whole-list write name.
 *
 * @example
 * ```ts
 * import { defineContent, list, type ListAddressOf } from "./content.ts";
 * const content = defineContent({ pages: { title: "plain", tags: list() } });
 * const a: ListAddressOf<typeof content> = "pages:about:tags";
 * // @ts-expect-error: not a list field
 * const b: ListAddressOf<typeof content> = "pages:about:title";
 * ```
 */
export type ListAddressOf<C> = {
  [K in keyof C & string]: {
    [F in keyof C[K] & string]: C[K][F] extends "list" ? `${K}:${string}:${F}`
      : never;
  }[keyof C[K] & string];
}[keyof C & string];

/**
 * A field with one value for every locale of the site (a logo, a product
 * code), where other fields are localized. It changes nothing on a
 * declaration without locales.
 *
 * @example
 * ```ts
 * import { defineContent, image, shared } from "./content.ts";
 * defineContent(
 *   { site: { logo: shared(image()), tagline: "plain" } },
 *   { locales: ["en", "de"] },
 * );
 * ```
 */
export function shared<const D extends FieldDecl>(
  decl: D,
): (D extends string ? { kind: D } : D) & { readonly shared: true } {
  const spec: unknown = typeof decl === "string" ? { kind: decl } : decl;
  if (!isSpec(spec)) throw new TypeError("shared: bad field spec");
  // deno-lint-ignore no-explicit-any
  return Object.freeze({ ...spec, shared: true }) as any;
}

/**
 * The languages of a site, given to {@linkcode defineContent}.
 */
export interface LocaleOptions {
  /** Every locale the site has, e.g. `["en", "de", "de-AT"]`. */
  locales: readonly string[];
  /** The locale of values stored under the plain field name (default: the first). */
  defaultLocale?: string;
  /**
   * Where a locale looks when it has no value of its own, in order, e.g.
   * `{ "de-AT": ["de"] }`. The default locale always ends every chain;
   * unlisted locales fall back to it directly.
   */
  fallbacks?: Readonly<Record<string, readonly string[]>>;
}

/** A declaration's locales, checked: every chain complete. */
export interface Locales {
  /** Every locale, as declared. */
  readonly locales: readonly string[];
  /** The default locale. */
  readonly defaultLocale: string;
  /** Locale → where to read, in order: itself, its fallbacks, the default. */
  readonly chains: Readonly<Record<string, readonly string[]>>;
}

/** Specs with limits, per declared allowlist object. */
const SPECS = new WeakMap<object, Map<string, FieldSpec>>();
/** Locales, per declared allowlist object that has them. */
const LOCALES = new WeakMap<object, Locales>();

/**
 * The locales of an allowlist: `undefined` for one without (a hand-written
 * allowlist, or {@linkcode defineContent} without locales).
 *
 * @example
 * ```ts
 * import { defineContent, localesOf } from "./content.ts";
 * const content = defineContent({ pages: { title: "plain" } }, {
 *   locales: ["en", "de", "de-AT"],
 *   fallbacks: { "de-AT": ["de"] },
 * });
 * localesOf(content)?.chains["de-AT"]; // ["de-AT", "de", "en"]
 * ```
 */
export function localesOf(allowlist: Allowlist): Locales | undefined {
  return LOCALES.get(allowlist);
}

function checkLocales(options: LocaleOptions): Locales {
  const { locales, fallbacks = {} } = options;
  const bad = (why: string) => new TypeError(`defineContent: ${why}`);
  if (!Array.isArray(locales) || locales.length === 0) {
    throw bad("locales must be a non-empty list");
  }
  for (const locale of locales) {
    if (typeof locale !== "string" || !isLocale(locale)) {
      throw bad(`bad locale ${JSON.stringify(locale)}`);
    }
  }
  if (new Set(locales).size !== locales.length) throw bad("duplicate locale");
  const defaultLocale = options.defaultLocale ?? locales[0];
  if (!locales.includes(defaultLocale)) {
    throw bad(`default locale ${defaultLocale} is not in locales`);
  }
  const chains: Record<string, string[]> = {};
  for (const locale of locales) {
    const chain = [locale];
    const listed = Object.hasOwn(fallbacks, locale) ? fallbacks[locale] : [];
    for (const next of [...listed, defaultLocale]) {
      if (!locales.includes(next)) {
        throw bad(`fallback ${next} of ${locale} is not in locales`);
      }
      if (!chain.includes(next)) chain.push(next);
    }
    chains[locale] = Object.freeze(chain) as string[];
  }
  for (const from of Object.keys(fallbacks)) {
    if (!locales.includes(from)) throw bad(`fallbacks of unknown ${from}`);
  }
  return Object.freeze({
    locales: Object.freeze([...locales]),
    defaultLocale,
    chains: Object.freeze(chains),
  });
}

/**
 * Declares the editable content: collections, their fields and kinds, with
 * optional limits. Throws a `TypeError` when a collection or field name is
 * not a valid address part (see `core/address.ts`), or a spec is unknown.
 *
 * @example
 * ```ts
 * import { defineContent, list, rich } from "./content.ts";
 * export const content = defineContent({
 *   pages: { title: "plain", body: rich({ maxLength: 50_000 }), features: list() },
 *   posts: { title: "plain", cover: "image" },
 * });
 * // Pass it as the save endpoint's `allowlist`; it is one.
 * ```
 *
 * With `locales` (see {@linkcode LocaleOptions}) every field holds a value
 * per locale, except fields marked {@linkcode shared}:
 *
 * ```ts
 * import { defineContent, image, shared } from "./content.ts";
 * export const content = defineContent(
 *   { pages: { title: "plain", logo: shared(image()) } },
 *   { locales: ["en", "de", "de-AT"], defaultLocale: "en", fallbacks: { "de-AT": ["de"] } },
 * );
 * ```
 */
export function defineContent<
  const T extends Record<string, Record<string, FieldDecl>>,
>(declaration: T, locales?: LocaleOptions): Content<T> {
  const out: Record<string, Record<string, FieldKind>> = {};
  const specs = new Map<string, FieldSpec>();
  for (const [collection, fields] of Object.entries(declaration)) {
    const kinds: Record<string, FieldKind> = {};
    for (const [name, decl] of Object.entries(fields)) {
      const address = checkAddress(collection, "k", name);
      if (
        typeof address === "string" || name.includes(".") ||
        name.includes("@")
      ) {
        throw new TypeError(`defineContent: bad name ${collection}.${name}`);
      }
      const spec = typeof decl === "string" ? { kind: decl } : decl;
      if (!isSpec(spec)) {
        throw new TypeError(
          `defineContent: bad spec for ${collection}.${name}`,
        );
      }
      kinds[name] = spec.kind;
      specs.set(`${collection}:${name}`, spec);
    }
    out[collection] = Object.freeze(kinds);
  }
  Object.freeze(out);
  SPECS.set(out, specs);
  if (locales !== undefined) LOCALES.set(out, checkLocales(locales));
  return out as Content<T>;
}

/**
 * The spec of one field of an allowlist: with its limits when the allowlist
 * came from {@linkcode defineContent}, its bare kind for a hand-written one,
 * `undefined` when the field is not listed. Only own properties count, so
 * `__proto__`, `toString` and friends are never found.
 *
 * @example
 * ```ts
 * import { defineContent, fieldSpec, plain } from "./content.ts";
 * const content = defineContent({ pages: { title: plain({ maxLength: 80 }) } });
 * fieldSpec(content, "pages", "title"); // { kind: "plain", maxLength: 80 }
 * fieldSpec({ pages: { body: "rich" } }, "pages", "body"); // { kind: "rich" }
 * fieldSpec(content, "pages", "toString"); // undefined
 * ```
 */
export function fieldSpec(
  allowlist: Allowlist,
  collection: string,
  field: string,
): FieldSpec | undefined {
  if (!Object.hasOwn(allowlist, collection)) return undefined;
  const fields = allowlist[collection];
  if (typeof fields !== "object" || fields === null) return undefined;
  if (!Object.hasOwn(fields, field)) return undefined;
  const declared = SPECS.get(allowlist)?.get(`${collection}:${field}`);
  if (declared) return declared;
  const kind = fields[field];
  if (!KINDS.has(kind)) return undefined;
  return kind === "list" ? LIST_OF_PLAIN : { kind };
}

/**
 * The `data-cms-type` a marker of this kind carries: `richtext` for rich
 * fields, `image` for image fields, none for plain fields and list items.
 *
 * @example
 * ```ts
 * import { markerType } from "./content.ts";
 * markerType("rich"); // "richtext"
 * markerType("plain"); // undefined
 * ```
 */
export function markerType(kind: FieldKind): string | undefined {
  return kind === "rich" ? "richtext" : kind === "image" ? "image" : undefined;
}

/**
 * The kind a marker's `data-cms-type` declares (`null`: no attribute), or
 * `undefined` when the attribute has an unknown value. The inverse of
 * {@linkcode markerType}; a list item reads as `plain`.
 *
 * @example
 * ```ts
 * import { kindOfMarker } from "./content.ts";
 * kindOfMarker("richtext"); // "rich"
 * kindOfMarker(null); // "plain"
 * kindOfMarker("html"); // undefined
 * ```
 */
export function kindOfMarker(
  type: string | null,
): "plain" | "rich" | "image" | undefined {
  return type === null
    ? "plain"
    : type === "richtext"
    ? "rich"
    : type === "image"
    ? "image"
    : undefined;
}

/** Longest accepted image URL. */
export const MAX_IMAGE_URL_LENGTH = 2048;
// deno-lint-ignore no-control-regex
const URL_CHARS = /^[^\s\u0000-\u001f\u007f-\u009f]+$/u;

/**
 * Whether `value` is acceptable as an image field's value: an `http:` or
 * `https:` URL, or a relative URL that is not protocol-relative, at most
 * {@linkcode MAX_IMAGE_URL_LENGTH} characters, with no whitespace or control
 * characters.
 *
 * @example
 * ```ts
 * import { isImageValue } from "./content.ts";
 * isImageValue("/media/a.png"); // true
 * isImageValue("javascript:alert(1)"); // false
 * isImageValue("//evil.example/a.png"); // false
 * ```
 */
export function isImageValue(value: string): boolean {
  return value.length <= MAX_IMAGE_URL_LENGTH && URL_CHARS.test(value) &&
    isAllowedUrl(value, ["http", "https"]);
}

/**
 * Whether a text is within a spec's `maxLength` (in code points).
 *
 * @example
 * ```ts
 * import { fitsLimit, plain } from "./content.ts";
 * fitsLimit(plain({ maxLength: 2 }), "añ"); // true
 * fitsLimit(plain({ maxLength: 2 }), "año"); // false
 * ```
 */
export function fitsLimit(spec: FieldSpec, value: string): boolean {
  const max = spec.maxLength;
  if (max === undefined || value.length <= max) return true;
  if (value.length > 2 * max) return false;
  let n = 0;
  for (const _ of value) if (++n > max) return false;
  return true;
}

const KINDS: ReadonlySet<unknown> = /* @__PURE__ */ new Set([
  "plain",
  "rich",
  "image",
  "list",
]);
const LIST_OF_PLAIN: FieldSpec = /* @__PURE__ */ list();

function isSpec(spec: unknown): spec is FieldSpec {
  if (typeof spec !== "object" || spec === null) return false;
  const { kind, maxLength, item, label, min, max } = spec as FieldSpec;
  if (!KINDS.has(kind)) return false;
  if (label !== undefined && typeof label !== "string") return false;
  if (maxLength !== undefined && !isLimit(maxLength)) return false;
  if (kind === "list") {
    return isSpec(item) && item.kind === "plain" &&
      (min === undefined || min === 0 || isLimit(min)) &&
      (max === undefined || isLimit(max)) && (min ?? 0) <= (max ?? Infinity);
  }
  return item === undefined && min === undefined && max === undefined;
}

function checkLimits(limits: TextLimits): TextLimits {
  if (limits.maxLength !== undefined && !isLimit(limits.maxLength)) {
    throw new TypeError("maxLength must be a positive integer");
  }
  return {
    ...limits.maxLength === undefined ? {} : { maxLength: limits.maxLength },
    ...checkLabel(limits.label),
  };
}

function checkLabel(label: unknown): { label?: string } {
  if (label === undefined) return {};
  if (typeof label !== "string" || !label.trim()) {
    throw new TypeError("label must be a non-empty string");
  }
  return { label };
}

function isLimit(n: unknown): boolean {
  return Number.isSafeInteger(n) && (n as number) > 0;
}
