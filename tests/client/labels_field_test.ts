/**
 * Field names in dialogs ("Features, item 2 (Deutsch)") and the history's
 * change excerpt.
 */
import assert from "node:assert/strict";
import { fieldName } from "../../client/labels_field.ts";
import { useLabels } from "../../client/labels.ts";
import { de } from "../../client/labels_de.ts";
import { changeExcerpt, diffWords } from "../../client/diff.ts";

Deno.test("fieldName: declared label, item number from 1, language in itself", () => {
  const el = { getAttribute: () => "Features" } as unknown as Element;
  assert.equal(fieldName("features@de.1", el), "Features, item 2 (Deutsch)");
  assert.equal(fieldName("pages:home:heroTitle"), "Hero title");
  assert.equal(fieldName("pages:home:title@fr"), "Title (français)");
  assert.equal(fieldName("pages:home:features.0"), "Features, item 1");
  useLabels(de);
  try {
    assert.equal(
      fieldName("features@en.2", el),
      "Features, Eintrag 3 (English)",
    );
  } finally {
    useLabels();
  }
});

Deno.test("changeExcerpt: the change with context, not the start of a long value", () => {
  const start = "Intro words. ".repeat(40);
  const parts = changeExcerpt(
    diffWords(`${start}The old ending here.`, `${start}The new ending here.`),
  );
  const text = parts.map(([op, s]) => `${op}:${s}`).join("|");
  assert.match(text, /-1:old\|1:new/);
  assert.ok(parts[0][1].startsWith("…"), text);
  assert.ok(parts.reduce((n, [, s]) => n + s.length, 0) <= 210, text);
  // Nothing changed: the start, cut.
  const same = changeExcerpt(diffWords(start, start));
  assert.equal(same.length, 1);
  assert.ok(same[0][1].length <= 201);
});
