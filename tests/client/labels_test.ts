/**
 * The label tables: German says everything English says, with the same
 * placeholders and plural forms, so no UI string falls back or breaks.
 */
import assert from "node:assert/strict";
import { en, format, type Labels, useLabels } from "../../client/labels.ts";
import { de } from "../../client/labels_de.ts";

const placeholders = (s: string) =>
  [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

Deno.test("labels: German has every key, the same placeholders and plural forms", () => {
  const keys = Object.keys(en) as (keyof Labels)[];
  assert.deepEqual(Object.keys(de).sort(), [...keys].sort());
  for (const key of keys) {
    if (key === "lang") continue;
    const english = en[key], german = de[key];
    assert.ok(german.trim() !== "", `${key} is empty in German`);
    assert.equal(
      german.split("|").length,
      english.split("|").length,
      `${key}: plural forms`,
    );
    assert.deepEqual(placeholders(german), placeholders(english), key);
  }
  assert.equal(de.lang, "de");
});

Deno.test("labels: every German text sits at its key's place (the comment on its line names it)", async () => {
  const source = await Deno.readTextFile(
    new URL("../../client/labels_de.ts", import.meta.url),
  );
  const list = source.slice(source.indexOf("const TEXTS = ["));
  const named = [...list.matchAll(/^ {2}".*", \/\/ (\w+)$/gm)].map((m) => m[1]);
  assert.deepEqual(named, Object.keys(en));
  assert.equal(Object.values(de).length, named.length);
  assert.equal(de.save, "Speichern");
  assert.equal(de.fromLibrary, "Aus der Mediathek wählen");
});

Deno.test("labels: plural forms follow Intl.PluralRules' categories", () => {
  for (const table of [en, de]) {
    const categories = new Intl.PluralRules(table.lang).resolvedOptions()
      .pluralCategories.length;
    for (const [key, value] of Object.entries(table)) {
      const forms = value.split("|").length;
      assert.ok(forms === 1 || forms === categories, `${table.lang}.${key}`);
    }
  }
});

Deno.test("labels: format picks the plural form for n in the table's language, then fills", () => {
  const text = "{when} · {n} field · {who}|{when} · {n} fields · {who}";
  assert.equal(
    format(text, { when: "9:00", n: 1, who: "Ada" }),
    "9:00 · 1 field · Ada",
  );
  assert.equal(
    format(text, { when: "9:00", n: 3, who: "Ada" }),
    "9:00 · 3 fields · Ada",
  );
  assert.equal(format("{n} of {total}", { n: 2, total: 5 }), "2 of 5");
  useLabels(de);
  try {
    assert.equal(format("{n} Feld|{n} Felder", { n: 0 }), "0 Felder");
  } finally {
    useLabels({});
  }
});
