/**
 * The field-address grammar: how a marker (`data-cms-field`) and a save
 * request name one editable field. One grammar for the client's marker
 * reader and the server's save endpoint, so both give the same verdict.
 *
 * An address is `collection:key:field`, where `field` is a name, or
 * `name.N` for item N of a list field. The bare name of a list field
 * (`pages:home:features`) names the whole list: a list container's
 * `data-cms-list`, and a whole-list write (see `ListSaveBody` in
 * `core/protocol/save.ts`). On a site with several languages the field part may
 * carry a locale, `name@locale` or `name@locale.N` (`pages:home:title@de`,
 * `pages:home:features@de.2`): that locale's value. Which locales exist,
 * and which fields have one, is the content declaration's business
 * (`core/locale.ts`); the grammar only checks the locale's shape.
 *
 * - `collection` and the field name are identifiers: an ASCII letter or `_`,
 *   then ASCII letters, digits, `_` or `-`; at most 64 characters.
 * - `key` is 1–128 characters (code points) of Unicode letters, digits and
 *   combining marks, plus `-`, `_`, `.` and `~`, in Unicode NFC; not `.` or
 *   `..`. No spaces, colons, slashes or control characters.
 * - `N` is canonical: `0`, or a digit 1–9 followed by at most 8 digits (no
 *   sign, no leading zeros, below 1e9).
 * - `__proto__`, `constructor` and `prototype` are never valid as a
 *   collection, key or field name.
 * - A locale is a BCP 47 tag's shape: 2–8 ASCII letters, then up to 7
 *   subtags of 1–8 ASCII letters or digits, each after a `-` (`de`,
 *   `de-AT`, `zh-Hant-TW`); compared exactly as declared.
 *
 * @module
 */

/** One editable field: `collection:key:field` or `collection:key:field.N`. */
export interface FieldAddress {
  /** The record's collection, e.g. `pages`. */
  collection: string;
  /** The record's key, e.g. `home` or `título`. */
  key: string;
  /** The field name, e.g. `title` (`features` for `features.2`). */
  field: string;
  /** The list item's position, for an item of a list field. */
  index?: number;
  /** The locale whose value is meant (`name@locale`), when one is named. */
  locale?: string;
}

/** Longest collection or field name, in characters. */
export const MAX_NAME_LENGTH = 64;
/** Longest record key, in code points. */
export const MAX_KEY_LENGTH = 128;

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const KEY = /^[\p{L}\p{N}\p{M}_.~-]{1,128}$/u;
const INDEX = /^(?:0|[1-9][0-9]{0,8})$/;
const LOCALE = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8}){0,7}$/;
/** `__proto__`, `constructor`, `prototype` (compared: a set would hash). */
const reserved = (text: string) =>
  text === "__proto__" || text === "constructor" || text === "prototype";

/**
 * Checks the three parts of an address as a save request sends them
 * (`field` may be `name.N`). Returns the address, or a short reason (a 400
 * answer's body) naming the part that is wrong.
 *
 * @example
 * ```ts
 * import { checkAddress } from "./address.ts";
 * checkAddress("pages", "home", "features.2");
 * // { collection: "pages", key: "home", field: "features", index: 2 }
 * checkAddress("pages", "home page", "title"); // "Invalid key"
 * checkAddress("pages", "home", "title", "de");
 * // { collection: "pages", key: "home", field: "title", locale: "de" }
 * ```
 */
export function checkAddress(
  collection: string,
  key: string,
  field: string,
  locale?: string,
): FieldAddress | string {
  if (!isName(collection)) return "Invalid collection";
  if (!isKey(key)) return "Invalid key";
  const address = checkField(collection, key, field);
  if (locale === undefined || typeof address === "string") return address;
  if (!isLocale(locale)) return "Invalid locale";
  if (address.locale !== undefined) return "Locale given twice";
  return { ...address, locale };
}

/**
 * Whether `text` has a locale's shape (see the module's grammar).
 *
 * @example
 * ```ts
 * import { isLocale } from "./address.ts";
 * isLocale("de-AT"); // true
 * isLocale("de_AT"); // false
 * ```
 */
export function isLocale(text: string): boolean {
  return LOCALE.test(text);
}

/** The field part's rule, once collection and key are known valid. */
function checkField(
  collection: string,
  key: string,
  field: string,
): FieldAddress | string {
  const dot = field.indexOf(".");
  const head = dot < 0 ? field : field.slice(0, dot);
  const at = head.indexOf("@");
  const name = at < 0 ? head : head.slice(0, at);
  if (!isName(name)) return "Invalid field";
  const address: FieldAddress = { collection, key, field: name };
  if (dot >= 0) {
    const index = field.slice(dot + 1);
    if (!INDEX.test(index)) return "Invalid list index";
    address.index = Number(index);
  }
  if (at >= 0) {
    const locale = head.slice(at + 1);
    if (!LOCALE.test(locale)) return "Invalid locale";
    address.locale = locale;
  }
  return address;
}

/**
 * A {@linkcode parseAddress} with the same verdict for every string, that
 * checks each `collection:key` once: a page's markers share a few records,
 * so mounting thousands of them checks a few keys (Unicode classes, NFC)
 * and then only field names. Its cache grows with the distinct records
 * seen; make one per page read.
 *
 * @example
 * ```ts
 * import { addressReader } from "./address.ts";
 * const read = addressReader();
 * read("pages:home:title"); // { collection: "pages", key: "home", field: "title" }
 * read("pages:home:features.2"); // the record's check is reused
 * read("pages:home page:title"); // "Invalid key"
 * ```
 */
export function addressReader(): (text: string) => FieldAddress | string {
  // `collection:key` → its parts, or the reason it fails.
  const heads = new Map<string, [string, string] | string>();
  // The last head: a page's markers come record by record, and comparing
  // two strings is cheaper than hashing one.
  let last: string | undefined, lastParts: [string, string] | string = "";
  return (text) => {
    const at = text.lastIndexOf(":");
    const head = text.slice(0, at);
    let parts = head === last ? lastParts : heads.get(head);
    if (parts === undefined) {
      const [collection, key, more] = head.split(":");
      parts = at < 0 || key === undefined || more !== undefined
        ? "Address needs collection:key:field"
        : !isName(collection)
        ? "Invalid collection"
        : !isKey(key)
        ? "Invalid key"
        : [collection, key];
      if (at >= 0) heads.set(head, parts);
    }
    if (at >= 0) {
      last = head;
      lastParts = parts;
    }
    return typeof parts === "string"
      ? parts
      : checkField(parts[0], parts[1], text.slice(at + 1));
  };
}

/**
 * Parses an address, `collection:key:field` or `collection:key:field.N`.
 * Returns the address, or a short reason why it is not one.
 *
 * @example
 * ```ts
 * import { parseAddress } from "./address.ts";
 * parseAddress("pages:título:body");
 * // { collection: "pages", key: "título", field: "body" }
 * parseAddress("pages:home:features.01"); // "Invalid list index"
 * parseAddress("pages:home"); // "Address needs collection:key:field"
 * ```
 */
export function parseAddress(text: string): FieldAddress | string {
  const parts = text.split(":");
  if (parts.length !== 3) return "Address needs collection:key:field";
  return checkAddress(parts[0], parts[1], parts[2]);
}

/**
 * Formats an address as its marker text. The inverse of
 * {@linkcode parseAddress} for every valid address.
 *
 * @example
 * ```ts
 * import { formatAddress } from "./address.ts";
 * formatAddress({ collection: "pages", key: "home", field: "features", index: 2 });
 * // "pages:home:features.2"
 * formatAddress({ collection: "pages", key: "home", field: "title", locale: "de" });
 * // "pages:home:title@de"
 * ```
 */
export function formatAddress(address: FieldAddress): string {
  return `${address.collection}:${address.key}:${fieldPath(address)}`;
}

/**
 * The field part of an address as a save request sends it (`name.N`,
 * `name@locale.N`). For an address that names its stored locale (see
 * `localizeAddress` in `core/locale.ts`) it is the field's path in the
 * stored record and its history.
 *
 * @example
 * ```ts
 * import { fieldPath } from "./address.ts";
 * fieldPath({ collection: "pages", key: "home", field: "features", index: 0 });
 * // "features.0"
 * fieldPath({ collection: "pages", key: "home", field: "features", index: 0, locale: "de" });
 * // "features@de.0"
 * ```
 */
export function fieldPath(address: FieldAddress): string {
  const { field, index, locale } = address;
  return `${field}${locale === undefined ? "" : `@${locale}`}${
    index === undefined ? "" : `.${index}`
  }`;
}

function isName(text: string): boolean {
  return NAME.test(text) && !reserved(text);
}

function isKey(text: string): boolean {
  return KEY.test(text) && text !== "." && text !== ".." &&
    !reserved(text) && text.normalize("NFC") === text;
}
