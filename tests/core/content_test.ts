import assert from "node:assert/strict";
import {
  type Content,
  defineContent,
  type FieldAddressOf,
  fieldSpec,
  image,
  isImageValue,
  kindOfMarker,
  list,
  markerType,
  plain,
  rich,
} from "../../core/content.ts";
import { createSaveHandler } from "../../server/save/handler.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import type { Allowlist } from "../../server/http/auth.ts";

const content = defineContent({
  pages: {
    title: plain({ maxLength: 10 }),
    body: rich({ maxLength: 40 }),
    hero: "image",
    features: list(plain({ maxLength: 5 })),
    notes: "plain",
  },
  posts: { title: "plain", cover: image(), tags: list() },
});

Deno.test("defineContent: one declaration gives the allowlist and the rich-field set", () => {
  assert.deepEqual(content, {
    pages: {
      title: "plain",
      body: "rich",
      hero: "image",
      features: "list",
      notes: "plain",
    },
    posts: { title: "plain", cover: "image", tags: "list" },
  });
  assert.ok(Object.isFrozen(content) && Object.isFrozen(content.pages));
  const richSet = Object.entries(content.pages)
    .filter(([, kind]) => kind === "rich").map(([name]) => name);
  assert.deepEqual(richSet, ["body"]);
  assert.deepEqual(fieldSpec(content, "pages", "title"), {
    kind: "plain",
    maxLength: 10,
  });
  assert.deepEqual(fieldSpec(content, "pages", "features")?.item, {
    kind: "plain",
    maxLength: 5,
  });
  // Hand-written allowlists keep working, with bare kinds.
  const hand: Allowlist = { pages: { body: "rich", tags: "list" } };
  assert.deepEqual(fieldSpec(hand, "pages", "body"), { kind: "rich" });
  assert.deepEqual(fieldSpec(hand, "pages", "tags")?.item, { kind: "plain" });
  for (const name of ["toString", "__proto__", "hasOwnProperty", "nope"]) {
    assert.equal(fieldSpec(content, "pages", name), undefined, name);
  }
  assert.equal(fieldSpec(content, "toString", "title"), undefined);
});

Deno.test("defineContent: names outside the address grammar and unknown specs throw", () => {
  const bad: Record<string, Record<string, unknown>>[] = [
    { "pa ges": { title: "plain" } },
    { pages: { "ti.tle": "plain" } },
    { pages: { "1title": "plain" } },
    { pages: { constructor: "plain" } },
    { prototype: { title: "plain" } },
    { pages: { title: "html" } },
    { pages: { title: { kind: "plain", maxLength: 0 } } },
    { pages: { title: { kind: "plain", maxLength: 1.5 } } },
    { pages: { tags: { kind: "list", item: { kind: "rich" } } } },
    { pages: { tags: { kind: "list" } } },
    { pages: { title: { kind: "plain", item: { kind: "plain" } } } },
  ];
  for (const declaration of bad) {
    assert.throws(
      () => defineContent(declaration as never),
      TypeError,
      JSON.stringify(declaration),
    );
  }
  assert.throws(() => plain({ maxLength: -1 }), TypeError);
});

Deno.test("defineContent: field kinds and addresses are types; misspellings do not compile", () => {
  // The kinds are literal types, so the Preact helpers can render
  // data-cms-type from them.
  const kind: "rich" = content.pages.body;
  const list_: "list" = content.posts.tags;
  assert.equal(kind, "rich");
  assert.equal(list_, "list");
  type Address = FieldAddressOf<typeof content>;
  const ok: Address[] = [
    "pages:home:title",
    "pages:título:body",
    "pages:home:features.2",
    "posts:hello:cover",
  ];
  assert.equal(ok.length, 4);
  // @ts-expect-error: misspelled field
  const a: Address = "pages:home:titel";
  // @ts-expect-error: misspelled collection
  const b: Address = "page:home:title";
  // @ts-expect-error: a list field needs an item index
  const c: Address = "pages:home:features";
  // @ts-expect-error: a plain field has no item index
  const d: Address = "pages:home:title.0";
  // @ts-expect-error: a field of another collection
  const e: Address = "posts:home:body";
  // @ts-expect-error: misspelled field kind access
  content.pages.titel;
  // A hand-written allowlist keeps string addresses.
  const loose: FieldAddressOf<Allowlist> = "any:thing:goes";
  assert.deepEqual([a, b, c, d, e, loose].length, 6);
  const typed: Content<{ x: { y: "plain" } }> = defineContent({
    x: { y: "plain" },
  });
  assert.equal(typed.x.y, "plain");
});

Deno.test("markerType and kindOfMarker are inverses; image values are URLs", () => {
  for (const k of ["plain", "rich", "image"] as const) {
    assert.equal(kindOfMarker(markerType(k) ?? null), k);
  }
  assert.equal(markerType("list"), undefined);
  assert.equal(kindOfMarker("html"), undefined);
  assert.equal(kindOfMarker(""), undefined);
  for (
    const good of [
      "/media/media/a.png",
      "https://cdn.example/a.webp",
      "http://x.example/a.gif?w=2#x",
      "a.png",
    ]
  ) {
    assert.ok(isImageValue(good), good);
  }
  for (
    const bad of [
      "",
      "javascript:alert(1)",
      "data:image/png;base64,AAAA",
      "//evil.example/a.png",
      "\\\\evil.example/a.png",
      "/a b.png",
      " /a.png",
      "/a.png\n",
      "/a\u0000.png",
      "java\tscript:alert(1)",
      "/" + "a".repeat(2048),
    ]
  ) {
    assert.ok(!isImageValue(bad), JSON.stringify(bad));
  }
});

function setup(allowlist: Allowlist = content) {
  const store = new MemoryContentStore({
    "pages:home": { features: ["a", "b"] },
  });
  const handler = createSaveHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist,
    store,
  });
  const save = async (field: string, value: unknown) => {
    const res = await handler(
      new Request("https://site.example/api/cms/save", {
        method: "PATCH",
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field,
          value,
        }),
      }),
    );
    return { status: res.status, reason: await res.text() };
  };
  return { save, home: () => store.get("pages", "home") };
}

Deno.test("save with a declaration: per-field limits in characters, 400 with the limit, nothing stored", async () => {
  const { save, home } = setup();
  assert.equal((await save("title", "ñ".repeat(10))).status, 204);
  const long = await save("title", "ñ".repeat(11));
  assert.equal(long.status, 400);
  assert.match(long.reason, /limit 10/);
  assert.equal((await save("title", "😀".repeat(10))).status, 204);
  assert.equal((await save("title", 12345678901)).status, 400);
  assert.equal((await save("features.1", "12345")).status, 204);
  assert.equal((await save("features.1", "123456")).status, 400);
  // Rich limits count the stored (sanitized) HTML.
  const dropped = `<p>${"x".repeat(30)}</p><script>${"y".repeat(99)}</script>`;
  assert.equal((await save("body", dropped)).status, 204);
  assert.equal((await save("body", `<p>${"x".repeat(40)}</p>`)).status, 400);
  // No limit declared: only the body cap applies.
  assert.equal((await save("notes", "n".repeat(5000))).status, 204);
  assert.deepEqual(await home(), {
    title: "😀".repeat(10),
    features: ["a", "12345"],
    body: `<p>${"x".repeat(30)}</p>`,
    notes: "n".repeat(5000),
  });
});

Deno.test("save: image fields store a URL; anything else is 400", async () => {
  for (
    const allowlist of [content, { pages: { hero: "image" } } as Allowlist]
  ) {
    const { save, home } = setup(allowlist);
    assert.equal((await save("hero", "/media/media/a.png")).status, 204);
    assert.equal((await home())?.hero, "/media/media/a.png");
    for (
      const bad of [
        "javascript:alert(1)",
        "//evil.example/x.png",
        "<img src=x>",
        "/a b.png",
        42,
        true,
        null,
      ]
    ) {
      const res = await save("hero", bad);
      assert.equal(res.status, 400, String(bad));
      assert.equal(res.reason, "Invalid image URL");
    }
    assert.equal((await home())?.hero, "/media/media/a.png");
  }
});
