/**
 * Content in several languages: the declaration, the address grammar, the
 * storage layout and fallbacks, then every endpoint per locale over HTTP,
 * run against the memory, Deno KV and PostgreSQL stores.
 */
import assert from "node:assert/strict";
import { checkAddress, formatAddress, parseAddress } from "../core/address.ts";
import {
  defineContent,
  type FieldAddressOf,
  image,
  list,
  type LocaleOptions,
  localesOf,
  plain,
  shared,
} from "../core/content.ts";
import { localizeAddress, readLocale } from "../core/locale.ts";
import { createHistoryHandler } from "../server/history.ts";
import { readLocalized } from "../server/locale.ts";
import { PreviewSigner } from "../server/preview.ts";
import { createPreviewHandler } from "../server/preview.ts";
import {
  createDiscardHandler,
  createDraftsHandler,
  createPublishHandler,
} from "../server/publish.ts";
import { createSaveHandler } from "../server/save.ts";
import type { DraftStore, PublishMode } from "../server/types.ts";
import { contentVersion } from "../server/version.ts";
import { draftStoreSuite, type Open } from "./helpers/draft_stores.ts";
import { serve } from "./helpers/serve.ts";

const content = defineContent({
  pages: {
    title: plain({ maxLength: 40 }),
    body: "rich",
    features: list(),
    logo: shared(image()),
  },
}, {
  locales: ["en", "de", "de-AT"],
  defaultLocale: "en",
  fallbacks: { "de-AT": ["de"] },
});

// ---------------------------------------------------------------------------
// Declaration and grammar

Deno.test("locales: chains end at the default locale", () => {
  const config = localesOf(content)!;
  assert.equal(config.defaultLocale, "en");
  assert.deepEqual(config.chains, {
    en: ["en"],
    de: ["de", "en"],
    "de-AT": ["de-AT", "de", "en"],
  });
  const first = defineContent({ p: { t: "plain" } }, { locales: ["fr", "en"] });
  assert.equal(localesOf(first)?.defaultLocale, "fr");
  assert.equal(localesOf(defineContent({ p: { t: "plain" } })), undefined);
  assert.equal(localesOf({ p: { t: "plain" } }), undefined);
  assert.equal(content.pages.logo, "image");
});

Deno.test("locales: bad declarations throw", () => {
  const bad: LocaleOptions[] = [
    { locales: [] },
    { locales: ["en", "en"] },
    { locales: ["en", "de_DE"] },
    { locales: ["en"], defaultLocale: "de" },
    { locales: ["en", "de"], fallbacks: { de: ["fr"] } },
    { locales: ["en", "de"], fallbacks: { fr: ["en"] } },
  ];
  for (const options of bad) {
    assert.throws(
      () => defineContent({ p: { t: "plain" } }, options),
      TypeError,
      JSON.stringify(options),
    );
  }
  assert.throws(() => defineContent({ p: { "t@de": "plain" } }), TypeError);
  // deno-lint-ignore no-explicit-any
  assert.throws(() => shared("video" as any), TypeError);
});

Deno.test("locales: the address grammar carries a locale", () => {
  assert.deepEqual(parseAddress("pages:home:title@de"), {
    collection: "pages",
    key: "home",
    field: "title",
    locale: "de",
  });
  assert.deepEqual(parseAddress("pages:home:features@de-AT.2"), {
    collection: "pages",
    key: "home",
    field: "features",
    index: 2,
    locale: "de-AT",
  });
  for (const text of ["pages:home:features@de-AT.2", "pages:home:title@de"]) {
    const a = parseAddress(text);
    assert.equal(typeof a === "string" ? a : formatAddress(a), text);
  }
  assert.equal(parseAddress("pages:home:title@"), "Invalid locale");
  assert.equal(parseAddress("pages:home:title@de_AT"), "Invalid locale");
  assert.equal(parseAddress("pages:home:title@d"), "Invalid locale");
  assert.equal(parseAddress("pages:home:@de"), "Invalid field");
  assert.equal(parseAddress("pages:home:features.2@de"), "Invalid list index");
  assert.deepEqual(checkAddress("pages", "home", "title", "de"), {
    collection: "pages",
    key: "home",
    field: "title",
    locale: "de",
  });
  assert.equal(checkAddress("pages", "home", "title", "x y"), "Invalid locale");
  assert.equal(
    checkAddress("pages", "home", "title@de", "de"),
    "Locale given twice",
  );
  // Without a locale nothing changes.
  assert.deepEqual(parseAddress("pages:home:title"), {
    collection: "pages",
    key: "home",
    field: "title",
  });
});

Deno.test("locales: localizeAddress checks and drops the default", () => {
  const at = (field: string, locale?: string) => ({
    collection: "pages",
    key: "home",
    field,
    ...locale === undefined ? {} : { locale },
  });
  assert.deepEqual(localizeAddress(content, at("title", "en")), at("title"));
  assert.deepEqual(
    localizeAddress(content, at("title", "de")),
    at("title", "de"),
  );
  assert.deepEqual(localizeAddress(content, at("title")), at("title"));
  assert.equal(localizeAddress(content, at("title", "fr")), "Unknown locale");
  assert.equal(
    localizeAddress(content, at("logo", "de")),
    "Shared field has no locale",
  );
  assert.deepEqual(localizeAddress(content, at("logo")), at("logo"));
  const plainContent = defineContent({ pages: { title: "plain" } });
  assert.equal(
    localizeAddress(plainContent, at("title", "en")),
    "Unknown locale",
  );
});

Deno.test("locales: readLocale takes each field's first fallback", () => {
  const record = {
    title: "Hello",
    "title@de": "Hallo",
    body: "<p>Hi</p>",
    "body@de-AT": "<p>Servus</p>",
    "features@de": ["Schnell"],
    features: ["Fast", "Small"],
    logo: "/m/logo.png",
    hostOnly: "kept",
  };
  assert.deepEqual(readLocale(record, content, "pages", "de-AT"), {
    values: {
      title: "Hallo",
      body: "<p>Servus</p>",
      features: ["Schnell"],
      logo: "/m/logo.png",
      hostOnly: "kept",
    },
    from: { title: "de", body: "de-AT", features: "de" },
  });
  assert.deepEqual(readLocale(record, content, "pages", "en"), {
    values: {
      title: "Hello",
      body: "<p>Hi</p>",
      features: ["Fast", "Small"],
      logo: "/m/logo.png",
      hostOnly: "kept",
    },
    from: { title: "en", body: "en", features: "en" },
  });
  // An empty string is the locale's own value; a missing field stays missing.
  assert.deepEqual(
    readLocale({ "title@de": "" }, content, "pages", "de"),
    { values: { title: "" }, from: { title: "de" } },
  );
  assert.throws(() => readLocale(record, content, "pages", "fr"), RangeError);
});

Deno.test("locales: types still reject misspelled fields", () => {
  const ok: FieldAddressOf<typeof content>[] = [
    "pages:home:title",
    "pages:home:logo",
    "pages:home:features.1",
  ];
  // @ts-expect-error: no field "titel"
  const bad: FieldAddressOf<typeof content> = "pages:home:titel";
  assert.equal(ok.length + [bad].length, 4);
});
