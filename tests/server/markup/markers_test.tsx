/**
 * The marker helpers and the Preact components render the same bytes: one
 * table of cases, each rendered both ways (helpers vs. Preact through
 * preact-render-to-string), escaping included.
 */
// The table holds one element per case, not a rendered list: no keys.
// deno-lint-ignore-file jsx-key
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import {
  cmsAlternates,
  cmsConfig,
  cmsField,
  cmsFieldAttributes,
  cmsImage,
  cmsItemAttributes,
  cmsList,
  cmsListAttributes,
  cmsScript,
  defineContent,
  fieldMarkers,
  itemMarkers,
  list,
  listMarkers,
  plain,
  shared,
} from "../../../mod.ts";
import {
  CmsAlternates,
  CmsConfig,
  CmsField,
  CmsImage,
  CmsList,
  CmsScript,
} from "../../../fresh/mod.ts";
import { contentVersion } from "../../../core/version.ts";

const content = defineContent({
  pages: {
    title: plain({ label: 'The "big" <title> & co' }),
    body: "rich",
    hero: "image",
    features: list({ min: 1, max: 6, label: "Features" }),
    logo: shared("image"),
    tags: shared(list()),
  },
}, { locales: ["en", "de"] });
const nasty = `<script>alert("x")</script> & 'quotes' \u2028`;
const image = {
  src: "/media/a.jpg",
  width: 1200,
  height: 800,
  srcset: "/media/a-480w.webp 480w, /media/a.jpg 1200w",
  sizes: "(max-width: 1200px) 100vw, 1200px",
};

/** One case: the helper's string and the Preact element it must equal. */
const cases: [string, string, unknown][] = [
  [
    "plain field, visitor",
    cmsField({ content, field: "pages:home:title", value: nasty, as: "h1" }),
    <CmsField
      content={content}
      field="pages:home:title"
      value={nasty}
      as="h1"
    />,
  ],
  [
    "plain field, editing, label and value escaped",
    cmsField({
      content,
      field: "pages:home:title",
      value: nasty,
      as: "h1",
      editing: true,
      attrs: { class: 'a"b', id: "t", hidden: false, "aria-hidden": false },
    }),
    <CmsField
      content={content}
      field="pages:home:title"
      value={nasty}
      as="h1"
      editing
      class={`a"b`}
      id="t"
      hidden={false}
      aria-hidden={false}
    />,
  ],
  [
    "rich field, editing, in German with an English fallback",
    cmsField({
      content,
      field: "pages:home:body",
      value: "<p>Hi &amp; bye</p>",
      editing: true,
      locale: "de",
      from: "en",
    }),
    <CmsField
      content={content}
      field="pages:home:body"
      value={`<p>Hi &amp; bye</p>`}
      editing
      locale="de"
      from="en"
    />,
  ],
  [
    "rich field without a declaration, version given",
    cmsField({
      field: "posts:x:body",
      value: "<p>x</p>",
      rich: true,
      editing: true,
      version: 'v"1',
    }),
    <CmsField
      field="posts:x:body"
      value="<p>x</p>"
      rich
      editing
      version={`v"1`}
    />,
  ],
  [
    "image field, editing, alt empty",
    cmsField({
      content,
      field: "pages:home:hero",
      value: "/media/a.jpg?x=1&y=2",
      editing: true,
      attrs: { alt: "" },
    }),
    <CmsField
      content={content}
      field="pages:home:hero"
      value="/media/a.jpg?x=1&y=2"
      editing
      alt=""
    />,
  ],
  [
    "image field without a value: no src",
    cmsField({ content, field: "pages:home:hero", value: null, editing: true }),
    <CmsField content={content} field="pages:home:hero" value={null} editing />,
  ],
  [
    "shared image field in German: no locale markers",
    cmsField({
      content,
      field: "pages:home:logo",
      value: "/l.png",
      editing: true,
      locale: "de",
    }),
    <CmsField
      content={content}
      field="pages:home:logo"
      value="/l.png"
      editing
      locale="de"
    />,
  ],
  [
    "list, editing, limits, label, items escaped",
    cmsList({
      content,
      field: "pages:home:features",
      value: ["Fast", nasty],
      editing: true,
      attrs: { class: "f" },
      itemAttrs: { class: "i" },
    }),
    <CmsList
      content={content}
      field="pages:home:features"
      value={["Fast", nasty]}
      editing
      class="f"
      itemClass="i"
    />,
  ],
  [
    "list in German, fallback, own elements",
    cmsList({
      content,
      field: "pages:home:features",
      value: ["Schnell"],
      editing: true,
      locale: "de",
      from: "en",
      as: "ol",
      itemAs: "p",
    }),
    <CmsList
      content={content}
      field="pages:home:features"
      value={["Schnell"]}
      editing
      locale="de"
      from="en"
      as="ol"
      itemAs="p"
    />,
  ],
  [
    "shared list in German, no declaration limits overridden",
    cmsList({
      content,
      field: "pages:home:tags",
      value: ["a"],
      editing: true,
      locale: "de",
      max: 3,
    }),
    <CmsList
      content={content}
      field="pages:home:tags"
      value={["a"]}
      editing
      locale="de"
      max={3}
    />,
  ],
  [
    "list, visitor",
    cmsList({ content, field: "pages:home:features", value: ["a", "b"] }),
    <CmsList
      content={content}
      field="pages:home:features"
      value={["a", "b"]}
    />,
  ],
  [
    "responsive image, editing",
    cmsImage({
      content,
      field: "pages:home:hero",
      image,
      editing: true,
      attrs: { alt: 'A "hero"', loading: "lazy" },
    }),
    <CmsImage
      content={content}
      field="pages:home:hero"
      image={image}
      editing
      alt={`A "hero"`}
      loading="lazy"
    />,
  ],
  [
    "image of an unknown URL, visitor, no declaration",
    cmsImage({ field: "pages:home:hero", image: { src: "https://x/a.png" } }),
    <CmsImage field="pages:home:hero" image={{ src: "https://x/a.png" }} />,
  ],
  [
    "image without a value, editing, no declaration",
    cmsImage({ field: "pages:home:hero", image: null, editing: true }),
    <CmsImage field="pages:home:hero" image={null} editing />,
  ],
  [
    "image without a value, visitor: nothing",
    cmsImage({ field: "pages:home:hero", image: null, attrs: { alt: "H" } }),
    <CmsImage field="pages:home:hero" image={null} alt="H" />,
  ],
  [
    "image field without a value through cmsField, visitor: nothing",
    cmsField({ content, field: "pages:home:hero", value: "" }),
    <CmsField content={content} field="pages:home:hero" value="" />,
  ],
  [
    "page config, editing, a value that would close the script",
    cmsConfig({ editing: true, config: { editor: "</script><b>", exit: "/" } }),
    <CmsConfig editing config={{ editor: "</script><b>", exit: "/" }} />,
  ],
  [
    "config and loader, nonce",
    cmsScript({
      editing: true,
      src: "/api/cms/client/mod.js",
      nonce: 'n"1',
      config: { save: "/api/cms/save" },
    }),
    <CmsScript
      editing
      src="/api/cms/client/mod.js"
      nonce={`n"1`}
      config={{ save: "/api/cms/save" }}
    />,
  ],
  [
    "config and the mount module, no inline script",
    cmsScript({
      editing: true,
      mount: "/api/cms/client/mount.js?v=1&x",
      config: { editor: "Ada" },
    }),
    <CmsScript
      editing
      mount="/api/cms/client/mount.js?v=1&x"
      config={{ editor: "Ada" }}
    />,
  ],
  [
    "config only, for a service without the client",
    cmsScript({ editing: true, mount: null, config: { editor: "Ada" } }),
    <CmsScript editing mount={null} config={{ editor: "Ada" }} />,
  ],
  [
    "alternates",
    cmsAlternates({
      content,
      href: (l) => l === "en" ? "/?a=1&b=2" : `/${l}/`,
    }),
    <CmsAlternates
      content={content}
      href={(l) => l === "en" ? "/?a=1&b=2" : `/${l}/`}
    />,
  ],
];

for (const [name, html, vnode] of cases) {
  Deno.test(`markup: ${name}: helper and Preact agree`, () => {
    assert.equal(html, renderToString(vnode as never));
  });
}

Deno.test("markup: not editing, no markers and no scripts", () => {
  assert.equal(cmsConfig({ config: {} }), "");
  assert.equal(cmsScript({ src: "/c.js" }), "");
  assert.equal(cmsScript({ mount: "/m.js", editing: false }), "");
  assert.equal(
    cmsFieldAttributes({ content, field: "pages:home:title", value: "x" }),
    "",
  );
  assert.deepEqual(fieldMarkers({ field: "a:b:c", value: "x" }), {});
  assert.deepEqual(listMarkers({ field: "a:b:c", value: [] }), {});
  assert.deepEqual(itemMarkers({ field: "a:b:c", value: ["x"] }, 0), {});
  assert.equal(cmsListAttributes({ field: "a:b:c", value: [] }), "");
  assert.equal(cmsItemAttributes({ field: "a:b:c", value: ["x"] }, 0), "");
});

Deno.test("markup: attribute strings for tags the host writes", () => {
  const value = 'Tom & "Jerry"';
  assert.equal(
    cmsFieldAttributes({
      content,
      field: "pages:home:title",
      value,
      editing: true,
      locale: "de",
    }),
    `data-cms-field="pages:home:title@de" ` +
      `data-cms-label="The &quot;big&quot; &lt;title> &amp; co" ` +
      `data-cms-version="${contentVersion(value)}" data-cms-locale="de"`,
  );
  const items = {
    content,
    field: "pages:home:features",
    value: ["a", "b"],
    editing: true,
  };
  assert.equal(
    cmsListAttributes(items),
    `data-cms-list="pages:home:features" data-cms-version="${
      contentVersion(["a", "b"])
    }" data-cms-min="1" data-cms-max="6" data-cms-label="Features"`,
  );
  assert.equal(
    cmsItemAttributes(items, 1),
    `data-cms-field="pages:home:features.1" data-cms-version="${
      contentVersion("b")
    }"`,
  );
});

Deno.test("markup: misnamed fields, lists, locales, tags and attributes throw", () => {
  const bad: [() => unknown, RegExp][] = [
    [
      () =>
        // @ts-expect-error: not a declared field
        cmsField({
          content,
          field: "pages:home:nope",
          value: "",
        }),
      /not declared/,
    ],
    [
      () =>
        cmsField({
          content,
          field: "pages:home:title",
          value: "",
          locale: "fr",
        }),
      /unknown locale/,
    ],
    [
      () => cmsList({ content, field: "pages:home:title", value: [] }),
      /not a list/,
    ],
    [
      () => cmsList({ field: "pages:home:features.1", value: [] }),
      /not a list/,
    ],
    [
      () => cmsImage({ content, field: "pages:home:title", image: null }),
      /not an image field/,
    ],
    [
      () => cmsField({ field: "a:b:c", value: "", as: "h1 onclick=x" }),
      /Invalid tag/,
    ],
    [
      () => cmsField({ field: "a:b:c", value: "", attrs: { 'a"b': "x" } }),
      /Invalid attribute/,
    ],
    [
      () =>
        cmsAlternates({
          content: defineContent({ p: { t: "plain" } }),
          href: String,
        }),
      /no locales/,
    ],
  ];
  for (const [run, message] of bad) assert.throws(run, message);
});
