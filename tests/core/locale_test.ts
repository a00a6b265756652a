/**
 * Content in several languages: the declaration, the address grammar, the
 * storage layout and fallbacks, then every endpoint per locale over HTTP,
 * run against the memory, Deno KV and PostgreSQL stores.
 */
import assert from "node:assert/strict";
import {
  addressReader,
  checkAddress,
  fieldPath,
  formatAddress,
  parseAddress,
} from "../../core/address.ts";
import {
  defineContent,
  type FieldAddressOf,
  image,
  list,
  type LocaleOptions,
  localesOf,
  plain,
  shared,
} from "../../core/content.ts";
import { localizeAddress, readLocale } from "../../core/locale.ts";
import { createHistoryHandler } from "../../server/history/handler.ts";
import { readLocalized } from "../../server/store/localized.ts";
import { PreviewSigner } from "../../server/drafts/preview.ts";
import { createPreviewHandler } from "../../server/drafts/preview.ts";
import {
  createDiscardHandler,
  createDraftsHandler,
  createPublishHandler,
} from "../../server/drafts/mod.ts";
import { createSaveHandler } from "../../server/save/handler.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import type { DraftStore, PublishMode } from "../../server/store/types.ts";
import { contentVersion } from "../../core/version.ts";
import { draftStoreSuite, type Open } from "../helpers/draft_stores.ts";
import { serve } from "../helpers/serve.ts";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { CmsAlternates, CmsField, CmsList } from "../../fresh/components.tsx";
import { cmsEditMode } from "../../fresh/edit_mode.ts";

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

// ---------------------------------------------------------------------------
// Stores and endpoints per locale, on memory, KV and PostgreSQL

const ADA = { name: "Ada" };

/** A save request for a handler called in process. */
function patch(body: Record<string, unknown>): Request {
  return new Request("http://localhost/api/cms/save", {
    method: "PATCH",
    body: JSON.stringify(body),
  });
}
const SEED = {
  title: "Hello",
  body: "<p>Hi</p>",
  features: ["Fast", "Small"],
  logo: "/m/logo.png",
};

/**
 * Every endpoint on `store`, served on 127.0.0.1, and a host page that
 * renders `pages:home` in English at `/` and German at `/de/` (with drafts
 * behind a valid preview link).
 */
function site(store: DraftStore, publishMode: PublishMode = "direct") {
  const options = { authorize: () => ADA, allowlist: content, store };
  const signer = new PreviewSigner("a-test-secret-of-more-than-32-bytes!!");
  const routes: Record<string, (req: Request) => Promise<Response>> = {
    "/api/cms/save": createSaveHandler({ ...options, publishMode }),
    "/api/cms/history": createHistoryHandler({ ...options, publishMode }),
    "/api/cms/drafts": createDraftsHandler(options),
    "/api/cms/publish": createPublishHandler(options),
    "/api/cms/discard": createDiscardHandler(options),
    "/api/cms/preview": createPreviewHandler({ authorize: () => ADA, signer }),
  };
  const server = serve(async (req) => {
    const url = new URL(req.url);
    const route = routes[url.pathname];
    if (route) return await route(req);
    const locale = { "/": "en", "/de/": "de" }[url.pathname];
    if (!locale) return new Response("Not found", { status: 404 });
    const token = url.searchParams.get("preview");
    if (token !== null && !await signer.verify(token, url.pathname)) {
      return new Response("Forbidden", { status: 403 });
    }
    const page = await readLocalized(store, content, "pages", "home", locale, {
      drafts: token !== null,
    });
    return Response.json(page);
  });
  const call = async (path: string, body?: unknown, method = "POST") => {
    const res = await fetch(server.url + path, {
      method: body === undefined ? "GET" : method,
      ...body === undefined ? {} : { body: JSON.stringify(body) },
    });
    const text = await res.text();
    const type = res.headers.get("Content-Type") ?? "";
    return {
      status: res.status,
      headers: res.headers,
      body: type.includes("json") ? JSON.parse(text) : text,
    };
  };
  return {
    call,
    save: (body: Record<string, unknown>) =>
      call(
        "/api/cms/save",
        { collection: "pages", key: "home", ...body },
        "PATCH",
      ),
    page: async (path: string) => (await call(path)).body,
    [Symbol.asyncDispose]: () => server.close(),
  };
}

const stores: Record<string, (open: Open) => Promise<void>> = {
  "a record written before locales is the default locale's": async (open) => {
    await using s = await open();
    // Written with today's API, before any locale was declared.
    await s.store.update("pages", "home", () => ({ ...SEED }), {
      field: "title",
      editor: "Ada",
    });
    await s.store.updateDraft("pages", "home", (r) => ({
      ...r,
      body: "<p>Draft</p>",
    }), { field: "body", editor: "Ada" });
    const before = await Array.fromAsync(s.store.dump());
    const en = await readLocalized(s.store, content, "pages", "home", "en");
    assert.deepEqual(en, {
      values: SEED,
      from: { title: "en", body: "en", features: "en" },
    });
    const de = await readLocalized(s.store, content, "pages", "home", "de");
    assert.deepEqual(de, en, "German falls back to every English value");
    const drafted = await readLocalized(
      s.store,
      content,
      "pages",
      "home",
      "de-AT",
      {
        drafts: true,
      },
    );
    assert.equal(drafted?.values.body, "<p>Draft</p>");
    assert.equal(drafted?.from.body, "en");
    assert.equal(
      await readLocalized(s.store, content, "pages", "none", "de"),
      null,
    );
    // Reading rewrote nothing.
    assert.deepEqual(await Array.fromAsync(s.store.dump()), before);
    // A German save adds its own value beside the English ones.
    await using web = site(s.store);
    assert.equal(
      (await web.save({ field: "title", locale: "de", value: "Hallo" })).status,
      204,
    );
    assert.deepEqual(await s.store.get("pages", "home"), {
      ...SEED,
      "title@de": "Hallo",
    });
    assert.deepEqual(
      (await s.store.revisions("pages", "home", "title")).map((r) => r.value),
      ["Hello"],
    );
  },

  "save, conflicts, history and restore per locale over HTTP": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ ...SEED }));
    await using web = site(s.store);
    const ok = await web.save({ field: "title", locale: "de", value: "Hallo" });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get("CMS-Version"), contentVersion("Hallo"));
    assert.deepEqual((await web.page("/")).values.title, "Hello");
    assert.deepEqual((await web.page("/de/")).from.title, "de");
    assert.deepEqual((await web.page("/de/")).values.title, "Hallo");

    // Misuse is 400, and nothing is stored.
    const bad: [Record<string, unknown>, string][] = [
      [{ field: "title", locale: "fr", value: "x" }, "Unknown locale"],
      [{ field: "title@fr", value: "x" }, "Unknown locale"],
      [{ field: "title", locale: "de_AT", value: "x" }, "Invalid locale"],
      [{ field: "title", locale: 7, value: "x" }, "Invalid locale"],
      [{ field: "title@de", locale: "de", value: "x" }, "Locale given twice"],
      [
        { field: "logo", locale: "de", value: "/m/x.png" },
        "Shared field has no locale",
      ],
      [
        { field: "logo", locale: "en", value: "/m/x.png" },
        "Shared field has no locale",
      ],
    ];
    const stored = await s.store.get("pages", "home");
    for (const [body, reason] of bad) {
      const res = await web.save(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body, reason);
    }
    assert.deepEqual(await s.store.get("pages", "home"), stored);

    // No locale: the default's; the default named: the same value.
    assert.equal((await web.save({ field: "title", value: "Hi" })).status, 204);
    const en = await web.save({
      field: "title",
      locale: "en",
      value: "Hey",
      version: contentVersion("Hi"),
    });
    assert.equal(en.status, 204);
    assert.equal(
      (await web.save({ field: "logo", value: "/m/l2.png" })).status,
      204,
    );
    const record = await s.store.get("pages", "home");
    assert.equal(record?.title, "Hey");
    assert.equal(record?.["title@de"], "Hallo");
    assert.equal(record?.logo, "/m/l2.png");
    assert.equal((await web.page("/de/")).values.logo, "/m/l2.png");

    // Conflicts are per locale: the English version is stale for German.
    const stale = await web.save({
      field: "title",
      locale: "de",
      value: "Servus",
      version: contentVersion("Hey"),
    });
    assert.equal(stale.status, 409);
    assert.deepEqual(stale.body, {
      error: "conflict",
      value: "Hallo",
      version: contentVersion("Hallo"),
    });
    assert.equal(
      (await web.save({
        field: "title",
        locale: "de",
        value: "Hallo!",
        version: contentVersion("Hallo"),
      })).status,
      204,
    );

    // Lists: a whole German list, then one of its items.
    assert.equal(
      (await web.save({
        field: "features",
        locale: "de",
        value: ["Schnell", "Klein"],
      }))
        .status,
      204,
    );
    assert.equal(
      (await web.save({ field: "features.1", locale: "de", value: "Sicher" }))
        .status,
      204,
    );
    assert.equal(
      (await web.save({ field: "features.5", locale: "de", value: "x" }))
        .status,
      400,
    );
    const lists = await s.store.get("pages", "home");
    assert.deepEqual(lists?.features, ["Fast", "Small"]);
    assert.deepEqual(lists?.["features@de"], ["Schnell", "Sicher"]);
    assert.deepEqual((await web.page("/de/")).values.features, [
      "Schnell",
      "Sicher",
    ]);

    // History per locale, and restore of a German revision.
    const de = await web.call("/api/cms/history?field=pages:home:title@de");
    assert.equal(de.status, 200);
    assert.equal(de.body.field, "pages:home:title@de");
    const values = [];
    for (const r of de.body.revisions) {
      const one = await web.call(
        `/api/cms/history?field=pages:home:title@de&revision=${r.id}`,
      );
      values.push(one.body.value);
    }
    assert.deepEqual(values, ["Hallo!", "Hallo"]);
    const enHistory = await web.call(
      "/api/cms/history?field=pages:home:title@en",
    );
    assert.equal(enHistory.status, 200);
    const enIds = enHistory.body.revisions.map((r: { id: string }) => r.id);
    assert.ok(!enIds.includes(de.body.revisions[1].id));
    for (const field of ["pages:home:title@fr", "pages:home:logo@de"]) {
      const res = await web.call(`/api/cms/history?field=${field}`);
      assert.equal(res.status, 400, field);
    }
    const oldest = de.body.revisions[1].id;
    const wrong = await web.call("/api/cms/history", {
      field: "pages:home:title",
      revision: oldest,
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body, "Revision of another field");
    const restored = await web.call("/api/cms/history", {
      field: "pages:home:title@de",
      revision: oldest,
    });
    assert.equal(restored.status, 204);
    assert.equal((await web.page("/de/")).values.title, "Hallo");
    assert.equal((await web.page("/")).values.title, "Hey");
  },

  "drafts, publish per locale and preview over HTTP": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ ...SEED }));
    await using web = site(s.store, "draft");
    assert.equal(
      (await web.save({ field: "title", locale: "de", value: "Hallo" })).status,
      204,
    );
    assert.equal((await web.save({ field: "title", value: "Hi" })).status, 204);
    assert.equal(
      (await web.save({ field: "logo", value: "/m/l2.png" })).status,
      204,
    );
    // Visitors see the published values, German falling back to English.
    assert.deepEqual((await web.page("/de/")).values.title, "Hello");
    assert.deepEqual((await web.page("/de/")).from.title, "en");
    const fields = async () =>
      ((await web.call("/api/cms/drafts")).body.drafts as { field: string }[])
        .map((d) => d.field).sort();
    assert.deepEqual(await fields(), [
      "pages:home:logo",
      "pages:home:title",
      "pages:home:title@de",
    ]);

    // A preview link of /de/ shows the German drafts there, and only there.
    const link = await web.call("/api/cms/preview", { path: "/de/" });
    assert.equal(link.status, 200);
    const token = new URL(link.body.url, "http://x").searchParams.get(
      "preview",
    );
    const preview = await web.page(`/de/?preview=${token}`);
    assert.equal(preview.values.title, "Hallo");
    assert.equal(preview.from.title, "de");
    assert.equal((await web.call(`/?preview=${token}`)).status, 403);

    // Publish one locale: misuse is 400.
    for (
      const body of [
        { locale: "fr" },
        { locale: 1 },
        { locale: "de", fields: ["pages:home:title@de"] },
        { fields: ["pages:home:title@fr"] },
        { fields: ["pages:home:logo@de"] },
      ]
    ) {
      const res = await web.call("/api/cms/publish", body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    // A conflict is per locale: the German draft changed since it was seen.
    const stale = await web.call("/api/cms/publish", {
      fields: ["pages:home:title@de"],
      versions: { "pages:home:title@de": contentVersion("Hi") },
    });
    assert.equal(stale.status, 409);
    assert.deepEqual(
      stale.body.conflicts.map((c: { field: string }) => c.field),
      [
        "pages:home:title@de",
      ],
    );
    const de = await web.call("/api/cms/publish", { locale: "de" });
    assert.equal(de.status, 200);
    assert.deepEqual(de.body.published, ["pages:home:title@de"]);
    assert.equal((await web.page("/de/")).values.title, "Hallo");
    assert.equal((await web.page("/")).values.title, "Hello");
    assert.deepEqual(await fields(), ["pages:home:logo", "pages:home:title"]);

    // Discard a German draft; the published German value stays.
    await web.save({ field: "title", locale: "de", value: "Hallo 2" });
    const dropped = await web.call("/api/cms/discard", {
      field: "pages:home:title@de",
    });
    assert.equal(dropped.status, 204);
    assert.equal(
      (await web.call("/api/cms/discard", { field: "pages:home:title@fr" }))
        .status,
      400,
    );
    assert.deepEqual(await fields(), ["pages:home:logo", "pages:home:title"]);
    assert.equal(
      (await s.store.getDrafted("pages", "home"))?.["title@de"],
      "Hallo",
    );

    // The default locale alone leaves the shared logo; "all" takes it.
    const en = await web.call("/api/cms/publish", { locale: "en" });
    assert.deepEqual(en.body.published, ["pages:home:title"]);
    const all = await web.call("/api/cms/publish", {});
    assert.deepEqual(all.body.published, ["pages:home:logo"]);
    assert.deepEqual(await s.store.get("pages", "home"), {
      ...SEED,
      title: "Hi",
      "title@de": "Hallo",
      logo: "/m/l2.png",
    });
  },

  "an item of a list the locale lacks creates the locale's list": async (
    open,
  ) => {
    for (const mode of ["direct", "draft"] as const) {
      await using s = await open();
      await s.store.update("pages", "home", () => ({ ...SEED }));
      await using web = site(s.store, mode);
      // de-AT reads English (no German list either): a stale version is 409,
      // a missing item 400, and nothing is written.
      const stale = await web.save({
        field: "features.0",
        locale: "de-AT",
        value: "x",
        version: contentVersion("wrong"),
      });
      assert.equal(stale.status, 409, mode);
      assert.deepEqual(stale.body, {
        error: "conflict",
        value: "Fast",
        version: contentVersion("Fast"),
      });
      const missing = await web.save({
        field: "features.7",
        locale: "de-AT",
        value: "x",
      });
      assert.equal(missing.status, 400);
      assert.equal(missing.body, "List item does not exist");
      const ok = await web.save({
        field: "features.1",
        locale: "de",
        value: "Klein",
        version: contentVersion("Small"),
      });
      assert.equal(ok.status, 204, mode);
      assert.equal(ok.headers.get("CMS-Version"), contentVersion("Klein"));
      const read = mode === "draft"
        ? await s.store.getDrafted("pages", "home")
        : await s.store.get("pages", "home");
      assert.deepEqual(read?.["features@de"], ["Fast", "Klein"], mode);
      assert.deepEqual(read?.features, ["Fast", "Small"]);
      // The next item edit is an ordinary one of the German list.
      assert.equal(
        (await web.save({
          field: "features.0",
          locale: "de",
          value: "Schnell",
        }))
          .status,
        204,
      );
      const history = await web.call(
        "/api/cms/history?field=pages:home:features@de",
      );
      assert.equal(history.body.revisions.length, 1, mode);
      if (mode === "draft") {
        assert.deepEqual(
          (await web.call("/api/cms/drafts")).body.drafts.map((
            d: { field: string },
          ) => d.field),
          ["pages:home:features@de"],
        );
        assert.deepEqual((await web.page("/de/")).values.features, [
          "Fast",
          "Small",
        ]);
        const published = await web.call("/api/cms/publish", { locale: "de" });
        assert.deepEqual(published.body.published, ["pages:home:features@de"]);
      }
      assert.deepEqual((await web.page("/de/")).values.features, [
        "Schnell",
        "Klein",
      ]);
      assert.deepEqual((await web.page("/")).values.features, [
        "Fast",
        "Small",
      ]);
    }
  },
};

draftStoreSuite("locales", stores);

// ---------------------------------------------------------------------------
// Fresh: markers carry the locale

Deno.test("locales: CmsField and CmsList render data-cms-locale", () => {
  const html = (el: unknown) => renderToString(el as VNode);
  const title = html(CmsField({
    content,
    field: "pages:home:title",
    value: "Hallo",
    locale: "de",
    editing: true,
  }));
  assert.match(title, /data-cms-field="pages:home:title@de"/);
  assert.match(title, /data-cms-locale="de"/);
  const en = html(CmsField({
    content,
    field: "pages:home:title",
    value: "Hello",
    locale: "en",
    editing: true,
  }));
  assert.match(en, /data-cms-field="pages:home:title"/);
  assert.match(en, /data-cms-locale="en"/);
  const visitor = html(CmsField({
    content,
    field: "pages:home:title",
    value: "Hallo",
    locale: "de",
  }));
  assert.equal(visitor, "<div>Hallo</div>");
  const logo = html(CmsField({
    content,
    field: "pages:home:logo",
    value: "/m/l.png",
    alt: "",
    locale: "de",
    editing: true,
  }));
  assert.doesNotMatch(logo, /data-cms-locale/);
  assert.throws(
    () =>
      CmsField({
        content,
        field: "pages:home:title",
        value: "x",
        locale: "fr",
        editing: true,
      }),
    TypeError,
  );
  const items = html(CmsList({
    content,
    field: "pages:home:features",
    value: ["A", "B"],
    locale: "de",
    editing: true,
  }));
  assert.equal(items.match(/data-cms-locale="de"/g)?.length, 3);
  assert.match(items, /data-cms-list="pages:home:features@de"/);
  assert.match(items, /data-cms-field="pages:home:features@de\.1"/);
  const visitorList = html(CmsList({
    content,
    field: "pages:home:features",
    value: ["A"],
    locale: "de",
  }));
  assert.equal(visitorList, "<ul><li>A</li></ul>");
  assert.throws(
    () =>
      CmsList({
        content,
        field: "pages:home:features",
        value: [],
        locale: "fr",
      }),
    TypeError,
  );
});

Deno.test("locales: CmsField and CmsList from mark a fallback value (data-cms-fallback)", () => {
  const html = (el: unknown) => renderToString(el as VNode);
  const props = {
    content,
    field: "pages:home:title",
    value: "Hello",
    locale: "de",
  } as const;
  // From English on a German page: a fallback, in edit mode only.
  const fallback = html(CmsField({ ...props, from: "en", editing: true }));
  assert.match(fallback, /data-cms-locale="de"/);
  assert.match(fallback, /data-cms-fallback="en"/);
  assert.equal(html(CmsField({ ...props, from: "en" })), "<div>Hello</div>");
  // The page's own value, or no `from`: no mark.
  const own = html(CmsField({ ...props, from: "de", editing: true }));
  assert.doesNotMatch(own, /data-cms-fallback/);
  assert.doesNotMatch(
    html(CmsField({ ...props, editing: true })),
    /data-cms-fallback/,
  );
  // A shared field has one value for all locales: never a fallback.
  const logo = html(CmsField({
    content,
    field: "pages:home:logo",
    value: "/m/l.png",
    alt: "",
    locale: "de",
    from: "en",
    editing: true,
  }));
  assert.doesNotMatch(logo, /data-cms-fallback/);
  // A list: its container.
  const items = html(CmsList({
    content,
    field: "pages:home:features",
    value: ["A"],
    locale: "de",
    from: "en",
    editing: true,
  }));
  assert.match(items, /<ul[^>]* data-cms-fallback="en"/);
  assert.equal(items.match(/data-cms-fallback/g)?.length, 1);
});

Deno.test("locales: a marker read as the client reads it saves its locale", async () => {
  const store = new MemoryContentStore({ "pages:home": { ...SEED } });
  const save = createSaveHandler({
    authorize: () => ADA,
    allowlist: content,
    store,
  });
  const marker = renderToString(CmsField({
    content,
    field: "pages:home:title",
    value: "Hello",
    locale: "de",
    editing: true,
  }) as VNode);
  const text = /data-cms-field="([^"]+)"/.exec(marker)![1];
  // The client's marker reader and the field part it sends.
  const address = addressReader()(text);
  assert.ok(typeof address !== "string");
  const res = await save(
    patch({
      collection: address.collection,
      key: address.key,
      field: fieldPath(address),
      value: "Hallo",
      version: contentVersion("Hello"),
    }),
  );
  assert.equal(res.status, 204);
  const record = await store.get("pages", "home");
  assert.equal(record?.title, "Hello");
  assert.equal(record?.["title@de"], "Hallo");
});

Deno.test("locales: onSave names the field with its locale", async () => {
  const store = new MemoryContentStore({ "pages:home": { ...SEED } });
  const fields: string[] = [];
  const save = createSaveHandler({
    authorize: () => ADA,
    allowlist: content,
    store,
    onSave: (e) => void fields.push(`${e.field}=${e.value}`),
  });
  for (
    const body of [
      { field: "title", locale: "de", value: "Hallo" },
      { field: "title", locale: "en", value: "Hi" },
      { field: "features.1", locale: "de", value: "Klein" },
      { field: "logo", value: "/m/x.png" },
    ]
  ) {
    const res = await save(
      patch({ collection: "pages", key: "home", ...body }),
    );
    assert.equal(res.status, 204);
  }
  assert.deepEqual(fields, [
    "title@de=Hallo",
    "title=Hi",
    "features@de.1=Klein",
    "logo=/m/x.png",
  ]);
});

Deno.test("locales: canEdit sees the locale (absent for the default)", async () => {
  const store = new MemoryContentStore({ "pages:home": { ...SEED } });
  const seen: (string | undefined)[] = [];
  const save = createSaveHandler({
    authorize: () => ADA,
    allowlist: content,
    store,
    // A translator who may only edit German.
    canEdit: (_req, field) => {
      seen.push(field.locale);
      return field.locale === "de";
    },
  });
  const status = async (body: Record<string, unknown>) => {
    const res = await save(
      patch({ collection: "pages", key: "home", ...body }),
    );
    await res.body?.cancel();
    return res.status;
  };
  assert.equal(await status({ field: "title", locale: "de", value: "A" }), 204);
  assert.equal(await status({ field: "title@en", value: "B" }), 403);
  assert.equal(await status({ field: "title", value: "C" }), 403);
  assert.deepEqual(seen, ["de", undefined, undefined]);
  assert.deepEqual(await store.get("pages", "home"), {
    ...SEED,
    "title@de": "A",
  });
});

Deno.test("locales: hreflang alternates and Content-Language", async () => {
  const links = renderToString(
    CmsAlternates({
      content,
      href: (l) => l === "en" ? "/" : `/${l.toLowerCase()}/`,
    }) as VNode,
  );
  assert.equal(
    links,
    '<link rel="alternate" hreflang="en" href="/"/>' +
      '<link rel="alternate" hreflang="de" href="/de/"/>' +
      '<link rel="alternate" hreflang="de-AT" href="/de-at/"/>' +
      '<link rel="alternate" hreflang="x-default" href="/"/>',
  );
  assert.throws(
    () => CmsAlternates({ content: { pages: { t: "plain" } }, href: String }),
    TypeError,
  );

  type State = { user?: { name: string }; cms?: unknown };
  const mw = cmsEditMode<State>({
    authorize: (ctx) => ctx.state.user ?? null,
    locale: (ctx) => ctx.url.pathname.startsWith("/de/") ? "de" : null,
  });
  const run = async (path: string, user?: { name: string }) => {
    const state: State = user ? { user } : {};
    const res = await mw({
      req: new Request("https://site.example" + path),
      url: new URL("https://site.example" + path),
      params: {},
      state,
      next: () => Promise.resolve(new Response("page")),
    });
    return { res, cms: state.cms };
  };
  const de = await run("/de/");
  assert.deepEqual(de.cms, { editing: false, editor: null, locale: "de" });
  assert.equal(de.res.headers.get("Content-Language"), "de");
  assert.equal(de.res.headers.get("Vary"), null);
  const editing = await run("/de/?edit", { name: "Ada" });
  assert.deepEqual(editing.cms, {
    editing: true,
    editor: { name: "Ada" },
    locale: "de",
  });
  assert.equal(editing.res.headers.get("Content-Language"), "de");
  assert.equal(editing.res.headers.get("Cache-Control"), "private, no-store");
  const en = await run("/");
  assert.deepEqual(en.cms, { editing: false, editor: null });
  assert.equal(en.res.headers.get("Content-Language"), null);
});

Deno.test("locales: a German list made between read and write with another item is a conflict", async () => {
  // `get` answers from before another editor's save made the German list.
  class Stale extends MemoryContentStore {
    override get() {
      return Promise.resolve({ ...SEED } as Record<string, string | string[]>);
    }
  }
  const store = new Stale({
    "pages:home": { ...SEED, "features@de": ["Eins", "Zwei"] },
  });
  const save = createSaveHandler({
    authorize: () => ADA,
    allowlist: content,
    store,
  });
  const res = await save(
    patch({
      collection: "pages",
      key: "home",
      field: "features.1",
      locale: "de",
      value: "Klein",
      version: contentVersion("Small"),
    }),
  );
  assert.equal(res.status, 409);
  assert.deepEqual(await res.json(), {
    error: "conflict",
    value: "Zwei",
    version: contentVersion("Zwei"),
  });
  const record = await store.update("pages", "home", (r) => r);
  assert.deepEqual(record?.["features@de"], ["Eins", "Zwei"]);
});

Deno.test("locales: item saves sent side by side on a fallback list all go in", async () => {
  // `get` answers from before the first item's save made the German list
  // from the English one: the second item is written into that list.
  class Stale extends MemoryContentStore {
    override get() {
      return Promise.resolve({ ...SEED } as Record<string, string | string[]>);
    }
  }
  const store = new Stale({
    "pages:home": { ...SEED, "features@de": ["Schnell", "Small"] },
  });
  const save = createSaveHandler({
    authorize: () => ADA,
    allowlist: content,
    store,
  });
  const res = await save(
    patch({
      collection: "pages",
      key: "home",
      field: "features.1",
      locale: "de",
      value: "Klein",
      version: contentVersion("Small"),
    }),
  );
  assert.equal(res.status, 204);
  const record = await store.update("pages", "home", (r) => r);
  assert.deepEqual(record?.["features@de"], ["Schnell", "Klein"]);
  assert.deepEqual(record?.features, ["Fast", "Small"]);
});
