/**
 * Type-level tests of the Preact helpers: `deno test` type-checks this file
 * first, so every `@ts-expect-error` line must really be an error (an unused
 * one fails the check), and every other line must compile.
 */
import assert from "node:assert/strict";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { CmsField, type CmsFieldProps } from "../../fresh/mod.ts";
import { defineContent, list, plain } from "../../core/content.ts";
import type { Allowlist } from "../../core/content.ts";
import { contentVersion } from "../../core/version.ts";

const content = defineContent({
  pages: {
    title: plain({ maxLength: 80 }),
    body: "rich",
    hero: "image",
    features: list(),
  },
  posts: { title: "plain" },
});

/** Props as JSX would pass them, checked against `CmsFieldProps<C>`. */
function props<C extends Allowlist>(p: CmsFieldProps<C>): CmsFieldProps<C> {
  return p;
}

Deno.test("fresh types: declared fields compile, misspelled ones are errors", () => {
  const ok = [
    props({ content, field: "pages:home:title", value: "T" }),
    props({ content, field: "pages:about-us:body", value: "<p>x</p>" }),
    props({ content, field: "pages:home:hero", value: "/m/a.png", alt: "" }),
    props({ content, field: `pages:home:features.${2}`, value: "F" }),
    props({ content, field: "posts:hello:title", value: "P" }),
    // No declaration: any marker text, `rich` says the kind.
    props({ field: "pages:home:anything", value: "<p>x</p>", rich: true }),
  ];
  assert.equal(ok.length, 6);

  const bad = [
    // @ts-expect-error: misspelled field
    props({ content, field: "pages:home:titel", value: "T" }),
    // @ts-expect-error: misspelled collection
    props({ content, field: "page:home:title", value: "T" }),
    // @ts-expect-error: a field of another collection
    props({ content, field: "posts:home:body", value: "T" }),
    // @ts-expect-error: a list field needs an item index
    props({ content, field: "pages:home:features", value: "F" }),
    // @ts-expect-error: only list fields have items
    props({ content, field: "pages:home:title.0", value: "T" }),
    // @ts-expect-error: with a declaration, the kind comes from it
    props({ content, field: "pages:home:body", value: "x", rich: true }),
  ];
  assert.equal(bad.length, 6);

  // The same checks in JSX, as a page writes them.
  const page = (
    <main>
      <CmsField content={content} as="h1" field="pages:home:title" value="T" />
      <CmsField content={content} field="pages:home:features.0" value="F" />
      <CmsField field="legacy:home:body" value="<p>x</p>" rich />
      {/* @ts-expect-error: rich comes from the declaration */}
      <CmsField content={content} field="pages:home:body" value="x" rich />
    </main>
  );
  assert.equal(
    renderToString(page),
    "<main><h1>T</h1><div>F</div><div><p>x</p></div><div>x</div></main>",
  );
  // Misspelled in JSX: a type error, and a TypeError if rendered anyway.
  const misspelled = [
    // @ts-expect-error: misspelled field
    () => <CmsField content={content} field="pages:home:bdy" value="x" />,
    // @ts-expect-error: misspelled collection
    () => <CmsField content={content} field="pgs:home:title" value="x" />,
  ];
  for (const element of misspelled) {
    assert.throws(() => renderToString(element()), TypeError);
  }
});

Deno.test("fresh types: data-cms-type comes from the declaration", () => {
  const render = (p: CmsFieldProps<typeof content>) =>
    renderToString(h(CmsField, { ...p, editing: true, version: "v" }));
  assert.equal(
    render({ content, field: "pages:home:title", value: "T" }),
    '<div data-cms-field="pages:home:title" data-cms-version="v">T</div>',
  );
  assert.equal(
    render({ content, field: "pages:home:body", value: "<p>x</p>" }),
    '<div data-cms-field="pages:home:body" data-cms-type="richtext" data-cms-version="v"><p>x</p></div>',
  );
  assert.equal(
    render({ content, field: "pages:home:hero", value: "/m/a.png", alt: "H" }),
    '<img alt="H" data-cms-field="pages:home:hero" data-cms-type="image" data-cms-version="v" src="/m/a.png"/>',
  );
  assert.equal(
    render({ content, as: "li", field: "pages:home:features.1", value: "F" }),
    '<li data-cms-field="pages:home:features.1" data-cms-version="v">F</li>',
  );
  // Visitors: no markers, but the kind still decides how the value renders.
  assert.equal(
    renderToString(
      h(CmsField, {
        content,
        field: "pages:home:hero",
        value: "/m/a.png",
        alt: "Hero",
      }),
    ),
    '<img alt="Hero" src="/m/a.png"/>',
  );
  // A hand-written allowlist works as a declaration too.
  const allowlist: Allowlist = { pages: { body: "rich" } };
  assert.equal(
    renderToString(
      h(CmsField, {
        content: allowlist,
        field: "pages:home:body",
        value: "<b>x</b>",
        editing: true,
      }),
    ),
    `<div data-cms-field="pages:home:body" data-cms-type="richtext" data-cms-version="${
      contentVersion("<b>x</b>")
    }"><b>x</b></div>`,
  );
});

Deno.test("fresh types: an undeclared field that slips past the types throws", () => {
  const sneaky = "pages:home:nope" as "pages:home:title";
  for (const field of [sneaky, "pages:home:features" as "pages:home:title"]) {
    assert.throws(
      () => renderToString(h(CmsField, { content, field, value: "x" })),
      TypeError,
    );
  }
});
