/**
 * The label tables: German says everything English says, with the same
 * placeholders and plural forms, so no UI string falls back or breaks.
 */
import assert from "node:assert/strict";
import { en, type Labels } from "../client/labels.ts";
import { de } from "../client/labels_de.ts";

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
