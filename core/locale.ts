/**
 * Content in several languages: the rules that map a locale to where its
 * values are stored, and how a locale reads with its fallbacks. One place
 * for the save endpoint, history, drafts, publish and the page helpers.
 *
 * Storage layout: the default locale's value of a field is stored under the
 * field's plain name (`title`), as before locales existed, so existing
 * records are the default locale's values with nothing rewritten. Another
 * locale's value is stored in the same record under `name@locale`
 * (`title@de`, a list `features@de`), its history and drafts under that
 * path (`title@de`, `features@de.2`). Field names cannot contain `@`, so
 * these never collide with a declared field. A shared field has one value,
 * under its plain name.
 *
 * @module
 */
import type { FieldAddress } from "./address.ts";
import {
  type Allowlist,
  fieldSpec,
  type Locales,
  localesOf,
} from "./content.ts";

/** A record as one locale reads it (see {@linkcode readLocale}). */
export interface LocalizedRecord {
  /** Field → value: the locale's own, or its first fallback's. */
  values: Record<string, string | string[]>;
  /**
   * Localized field → the locale its value came from; a field whose
   * locale differs from the one asked for is not translated yet.
   */
  from: Record<string, string>;
}

/**
 * An address as it is stored: checks its locale against the declaration,
 * and drops it when it is the default locale (whose values have the plain
 * name). Returns the address, or the short reason for a 400:
 * `Unknown locale` (not declared, or the allowlist has no locales), or
 * `Shared field has no locale`. An address without a locale is kept: on a
 * localized field it means the default locale.
 *
 * @example
 * ```ts
 * import { defineContent, image, shared } from "./content.ts";
 * import { localizeAddress } from "./locale.ts";
 * const content = defineContent(
 *   { pages: { title: "plain", logo: shared(image()) } },
 *   { locales: ["en", "de"] },
 * );
 * localizeAddress(content, { collection: "pages", key: "home", field: "title", locale: "en" });
 * // { collection: "pages", key: "home", field: "title" }
 * localizeAddress(content, { collection: "pages", key: "home", field: "title", locale: "fr" });
 * // "Unknown locale"
 * localizeAddress(content, { collection: "pages", key: "home", field: "logo", locale: "de" });
 * // "Shared field has no locale"
 * ```
 */
export function localizeAddress(
  allowlist: Allowlist,
  address: FieldAddress,
): FieldAddress | string {
  const { locale, ...plain } = address;
  if (locale === undefined) return address;
  const config = localesOf(allowlist);
  if (!config?.locales.includes(locale)) return "Unknown locale";
  if (fieldSpec(allowlist, address.collection, address.field)?.shared) {
    return "Shared field has no locale";
  }
  return locale === config.defaultLocale ? plain : address;
}

/**
 * A record's values as one locale reads them: each localized field's own
 * value, else the first locale of its fallback chain that has one (the
 * default locale ends every chain); shared fields and fields the
 * declaration does not name as stored. `from` says, per localized field
 * that has a value, which locale it came from; a field whose `from` is not
 * `locale` is not translated yet. An empty string is a value (no
 * fallback). Throws a `RangeError` for a locale the declaration lacks.
 *
 * @example
 * ```ts
 * import { defineContent } from "./content.ts";
 * import { readLocale } from "./locale.ts";
 * const content = defineContent(
 *   { pages: { title: "plain", body: "rich" } },
 *   { locales: ["en", "de"] },
 * );
 * const record = { title: "Hello", body: "<p>Hi</p>", "title@de": "Hallo" };
 * readLocale(record, content, "pages", "de");
 * // { values: { title: "Hallo", body: "<p>Hi</p>" }, from: { title: "de", body: "en" } }
 * ```
 */
export function readLocale(
  record: Readonly<Record<string, string | string[]>>,
  allowlist: Allowlist,
  collection: string,
  locale: string,
): LocalizedRecord {
  const plan = readPlan(allowlist, collection, locale);
  const values: LocalizedRecord["values"] = {};
  const from: Record<string, string> = {};
  for (const name in record) {
    if (!plan.localized.has(name) && !name.includes("@")) {
      values[name] = record[name];
    }
  }
  for (const [name, stored, sources] of plan.fields) {
    for (let i = 0; i < stored.length; i++) {
      if (!Object.hasOwn(record, stored[i])) continue;
      values[name] = record[stored[i]];
      from[name] = sources[i];
      break;
    }
  }
  return { values, from };
}

/** How one locale reads one collection: per localized field, where to look. */
interface ReadPlan {
  /** The localized fields' plain names. */
  localized: Set<string>;
  /** Field, its stored names in fallback order, and their locales. */
  fields: [string, string[], readonly string[]][];
}

/** Read plans per allowlist, by `collection locale`: worked out once. */
const PLANS = new WeakMap<Allowlist, Map<string, ReadPlan>>();

function readPlan(
  allowlist: Allowlist,
  collection: string,
  locale: string,
): ReadPlan {
  let plans = PLANS.get(allowlist);
  if (!plans) PLANS.set(allowlist, plans = new Map());
  const id = `${collection} ${locale}`;
  let plan = plans.get(id);
  if (plan) return plan;
  const config = localesOf(allowlist);
  if (!config?.locales.includes(locale)) {
    throw new RangeError(`Unknown locale ${JSON.stringify(locale)}`);
  }
  const chain = config.chains[locale];
  plan = { localized: new Set(), fields: [] };
  const names = Object.hasOwn(allowlist, collection)
    ? Object.keys(allowlist[collection])
    : [];
  for (const name of names) {
    if (fieldSpec(allowlist, collection, name)?.shared) continue;
    plan.localized.add(name);
    const stored = chain.map((source) => storedName(config, name, source));
    plan.fields.push([name, stored, chain]);
  }
  plans.set(id, plan);
  return plan;
}

/**
 * The locale a stored address (as {@linkcode localizeAddress} returns it,
 * or as a draft or revision names it) holds a value of: its own, the
 * default locale for a localized field without one, `undefined` for a
 * shared field or an allowlist without locales.
 *
 * @example
 * ```ts
 * import { defineContent, image, shared } from "./content.ts";
 * import { localeOfAddress } from "./locale.ts";
 * const content = defineContent(
 *   { pages: { title: "plain", logo: shared(image()) } },
 *   { locales: ["en", "de"] },
 * );
 * localeOfAddress(content, { collection: "pages", key: "a", field: "title" }); // "en"
 * localeOfAddress(content, { collection: "pages", key: "a", field: "logo" }); // undefined
 * ```
 */
export function localeOfAddress(
  allowlist: Allowlist,
  address: FieldAddress,
): string | undefined {
  const config = localesOf(allowlist);
  if (
    !config || fieldSpec(allowlist, address.collection, address.field)?.shared
  ) {
    return undefined;
  }
  return address.locale ?? config.defaultLocale;
}

/**
 * The record fields a stored address's locale falls back to, in order (its
 * chain without itself): none for the default locale, a shared field or an
 * allowlist without locales.
 *
 * @example
 * ```ts
 * import { defineContent, list } from "./content.ts";
 * import { fallbackNames } from "./locale.ts";
 * const content = defineContent({ pages: { tags: list() } }, {
 *   locales: ["en", "de", "de-AT"],
 *   fallbacks: { "de-AT": ["de"] },
 * });
 * fallbackNames(content, { collection: "pages", key: "a", field: "tags", locale: "de-AT" });
 * // ["tags@de", "tags"]
 * ```
 */
export function fallbackNames(
  allowlist: Allowlist,
  address: FieldAddress,
): string[] {
  const config = localesOf(allowlist);
  if (!config || address.locale === undefined) return [];
  return (config.chains[address.locale] ?? []).slice(1).map((locale) =>
    storedName(config, address.field, locale)
  );
}

/**
 * The record field that holds `name`'s value in `locale`: the plain name
 * for the default locale, else `name@locale`.
 *
 * @example
 * ```ts
 * import { defineContent, localesOf } from "./content.ts";
 * import { storedName } from "./locale.ts";
 * const content = defineContent({ pages: { title: "plain" } }, { locales: ["en", "de"] });
 * storedName(localesOf(content)!, "title", "de"); // "title@de"
 * storedName(localesOf(content)!, "title", "en"); // "title"
 * ```
 */
export function storedName(
  config: Locales,
  name: string,
  locale: string,
): string {
  return locale === config.defaultLocale ? name : `${name}@${locale}`;
}
