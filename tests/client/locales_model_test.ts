/**
 * The locale chunk's model, without a DOM: the switcher's entries, which
 * fields are still untranslated, and "Copy from …" as an edit that Save
 * sends to the locale's own address.
 */
import assert from "node:assert/strict";
import {
  copyFallback,
  localeLinks,
  localeName,
  untranslatedFields,
} from "../../client/locales.ts";
import { createModel, type Field } from "../../client/model.ts";

Deno.test("localeLinks: names from Intl.DisplayNames, URLs in edit mode", () => {
  const links = localeLinks(
    [
      { tag: "en", url: "/" },
      { tag: "de", url: "/de/" },
      { tag: "fr", url: "https://fr.example.com/a?x=1" },
      { tag: 3, url: "/bad/" },
      null,
    ],
    "de",
    "https://example.com/de/?edit",
  );
  assert.deepEqual(links, [
    {
      tag: "en",
      label: "English",
      href: "https://example.com/?edit",
      current: false,
    },
    {
      tag: "de",
      label: "Deutsch",
      href: "https://example.com/de/?edit",
      current: true,
    },
    {
      tag: "fr",
      label: "français",
      href: "https://fr.example.com/a?x=1&edit",
      current: false,
    },
  ]);
  assert.deepEqual(localeLinks({ tag: "en" }, "en", "https://e.com/"), []);
});

Deno.test("localeName: in a given language; an unknown shape is its tag", () => {
  assert.equal(localeName("en", "de"), "Englisch");
  assert.equal(localeName("de", "en"), "German");
  assert.equal(localeName("not a tag!"), "not a tag!");
});

/** A German page: the title falls back to English, the body is German. */
function page() {
  const init = [
    {
      id: "pages:home:title@de",
      collection: "pages",
      key: "home",
      field: "title@de",
      rich: false,
    },
    {
      id: "pages:home:body@de",
      collection: "pages",
      key: "home",
      field: "body@de",
      rich: false,
    },
  ];
  const sent: { field: string; value: string }[] = [];
  const model = createModel(init, ["Hello", "Hallo Welt"], {
    send(body) {
      sent.push({ field: body.field, value: String(body.value) });
      return Promise.resolve({ status: 204, text: "", version: "v2" });
    },
  });
  const fallback: Record<string, string> = { "pages:home:title@de": "en" };
  const from = (f: Field) => fallback[f.id];
  return { model, sent, from };
}

Deno.test("untranslatedFields: fallback values, until edited or saved", async () => {
  const { model, sent, from } = page();
  const own = new Set<string>();
  const ids = () =>
    untranslatedFields(model.fields, from, own).map((f) => f.id);
  assert.deepEqual(ids(), ["pages:home:title@de"]);
  // Typing there: no longer counted (Save will make it the locale's own).
  model.edit("pages:home:title@de", "Hallo");
  assert.deepEqual(ids(), []);
  // Reverted: untranslated again.
  model.revert("pages:home:title@de");
  assert.deepEqual(ids(), ["pages:home:title@de"]);
  model.edit("pages:home:title@de", "Hallo");
  await model.save();
  assert.deepEqual(sent, [{ field: "title@de", value: "Hallo" }]);
  own.add("pages:home:title@de"); // the view adds it at `cms:saved`
  assert.deepEqual(ids(), []);
});

Deno.test("copyFallback: the shown value becomes an edit; Save stores it in the locale", async () => {
  const { model, sent, from } = page();
  const title = model.get("pages:home:title@de")!;
  copyFallback(model, title);
  assert.equal(title.value, "Hello");
  assert.equal(model.status().dirty, 1);
  assert.deepEqual(untranslatedFields(model.fields, from, new Set()), []);
  await model.save();
  assert.deepEqual(sent, [{ field: "title@de", value: "Hello" }]);
  assert.equal(model.status().dirty, 0);
});

Deno.test("untranslatedFields: a fallback list, until one of its items is edited or saved", () => {
  const list = {
    id: "pages:home:features@de",
    collection: "pages",
    key: "home",
    field: "features@de",
    rich: false,
    list: true,
  };
  const item = {
    id: "pages:home:features@de.0",
    collection: "pages",
    key: "home",
    field: "features@de.0",
    rich: false,
  };
  const model = createModel([list, item], ['["Fast"]', "Fast"], {
    send: () => Promise.resolve({ status: 204, text: "", version: "v2" }),
  });
  const from = (f: Field) => f.id === list.id ? "en" : undefined;
  const ids = (own: Set<string>) =>
    untranslatedFields(model.fields, from, own).map((f) => f.id);
  assert.deepEqual(ids(new Set()), [list.id]);
  // A list named like the start of another is not its item.
  assert.deepEqual(ids(new Set(["pages:home:features@de2"])), [list.id]);
  model.edit(item.id, "Schnell");
  assert.deepEqual(ids(new Set()), []);
  model.revert(item.id);
  assert.deepEqual(ids(new Set([item.id])), []);
});
