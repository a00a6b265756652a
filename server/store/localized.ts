/**
 * Reading a record in one locale from any content store: the store keeps
 * every locale's values in one record (`core/locale.ts`), so a locale's
 * page read is one `get`, with its fallbacks resolved in memory.
 *
 * @module
 */
import type { Allowlist } from "../../core/content.ts";
import { type LocalizedRecord, readLocale } from "../../core/locale.ts";
import type { ContentStore, DraftStore } from "./types.ts";

export type { LocalizedRecord };

/**
 * Reads one record in `locale`: each localized field's own value, else the
 * first fallback that has one (the default locale ends every chain), and
 * which locale each came from. With `drafts: true` it reads the record with
 * its drafts over it (edit mode, preview links; the store must have
 * drafts). `null` when the record does not exist. Throws a `RangeError`
 * for a locale the declaration lacks.
 *
 * @example
 * ```ts
 * import { defineContent, MemoryContentStore, readLocalized } from "@inplace/cms";
 * const content = defineContent({ pages: { title: "plain" } }, { locales: ["en", "de"] });
 * const store = new MemoryContentStore();
 * await store.update("pages", "home", () => ({ title: "Hello" }));
 * const page = await readLocalized(store, content, "pages", "home", "de");
 * page?.values.title; // "Hello" (page.from.title: "en", not translated yet)
 * ```
 */
export async function readLocalized(
  store: ContentStore,
  allowlist: Allowlist,
  collection: string,
  key: string,
  locale: string,
  options: { drafts?: boolean } = {},
): Promise<LocalizedRecord | null> {
  const record = options.drafts
    ? await (store as DraftStore).getDrafted(collection, key)
    : await store.get(collection, key);
  return record && readLocale(record, allowlist, collection, locale);
}
