/**
 * Media references as browsers read them: the save endpoint stores an
 * image field's URL in its one spelling (and refuses others, naming it), a
 * rich value's `<img src>` is stored in that spelling, and media cleanup
 * keeps an upload that content points at by any spelling the save endpoint
 * ever accepted (old data), on memory, Deno KV and PostgreSQL. A choice
 * from the media library counts as a use for the grace period, and
 * choosing a file that is gone is refused. The library shows only the alt
 * texts of fields the editor may edit.
 */
import assert from "node:assert/strict";
import { collectMedia } from "../../../server/media/gc.ts";
import { createMediaLibraryHandler } from "../../../server/media/library.ts";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { createSaveHandler } from "../../../server/save/mod.ts";
import { canonicalUrl } from "../../../core/url.ts";
import type { HistoryStore } from "../../../server/store/types.ts";
import type { MediaLibraryPage } from "../../../core/protocol/mod.ts";
import { DRAFT_STORES, skipStore } from "../../helpers/draft_stores.ts";

const DAY = 24 * 60 * 60 * 1000;
const JPEG = new Uint8Array([0xff, 0xd8, 1, 2]);

/** How an upload `K` may have been written into content. */
const SPELLINGS: Record<string, (k: string) => string> = {
  "no leading slash": (k) => `<img src="media/${k}" alt="">`,
  "dot segment": (k) => `<img src="/media/./${k}" alt="">`,
  "dot-dot segment": (k) => `<img src="/media/x/../${k}" alt="">`,
  "backslashes": (k) => `<img src="\\media\\${k}" alt="">`,
  "tab inside": (k) => `<img src="/me\tdia/${k.slice(0, 3)}\t${k.slice(3)}">`,
  "newline inside": (k) => `<img src="/media/\n${k}">`,
  "percent-encoded": (k) =>
    `<img src="/media/%${k.charCodeAt(0).toString(16)}${k.slice(1)}">`,
  "character reference": (k) =>
    `<img src="/media/&#${k.charCodeAt(0)};${k.slice(1)}">`,
  "image field, odd case": (k) => `HTTP://LOCALHOST/media/${k}`,
};

for (const [name, open] of Object.entries(DRAFT_STORES)) {
  Deno.test(`media gc keeps uploads by every spelling: ${name}`, {
    ignore: skipStore(name),
  }, async () => {
    await using opened = await open();
    await using s = await opened();
    const store = s.store as unknown as HistoryStore;
    const storage = new MemoryMediaStorage();
    const keys: string[] = [];
    for (const [i, spell] of Object.values(SPELLINGS).entries()) {
      const key = `k${i}-${crypto.randomUUID()}.jpg`;
      keys.push(key);
      await storage.put(key, JPEG, "image/jpeg");
      await store.update("pages", `p${i}`, (r) => ({ ...r, body: spell(key) }));
    }
    await storage.put("unused.jpg", JPEG, "image/jpeg");
    const report = await collectMedia({
      storage,
      store,
      graceDays: 0,
      now: Date.now() + DAY,
      delete: true,
    });
    assert.deepEqual(report.unused.map((u) => u.key), ["unused.jpg"]);
    const left = (await Array.fromAsync(storage.list())).map((o) => o.key);
    for (const key of keys) assert.ok(left.includes(key), key);
  });
}

function saveWith(store: MemoryContentStore) {
  return createSaveHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { hero: "image", body: "rich" } },
    store,
  });
}

function patch(field: string, value: string): Request {
  return new Request("http://localhost/api/cms/save", {
    method: "PATCH",
    headers: { "Content-Type": "application/json", Origin: "http://localhost" },
    body: JSON.stringify({ collection: "pages", key: "home", field, value }),
  });
}

Deno.test("save: an image field's URL in one spelling, others refused with it", async () => {
  const store = new MemoryContentStore();
  const save = saveWith(store);
  for (
    const [odd, canonical] of [
      ["/media/./a.jpg", "/media/a.jpg"],
      ["/media/x/../a.jpg", "/media/a.jpg"],
      ["\\media\\a.jpg", "/media/a.jpg"],
      ["HTTPS://CDN.Example/a.jpg", "https://cdn.example/a.jpg"],
    ]
  ) {
    const res = await save(patch("hero", odd));
    assert.equal(res.status, 400, odd);
    assert.equal(await res.text(), `Image URL must be written as ${canonical}`);
  }
  const relative = await save(patch("hero", "media/a.jpg"));
  assert.equal(relative.status, 400);
  assert.match(await relative.text(), /must start with \//);
  assert.equal((await save(patch("hero", "/media/a.jpg"))).status, 204);
  assert.equal((await store.get("pages", "home"))?.hero, "/media/a.jpg");
});

Deno.test("save: a rich value's image address is stored in its one spelling", async () => {
  const store = new MemoryContentStore();
  const res = await saveWith(store)(
    patch(
      "body",
      '<p><img src="/media/x/../a.jpg" width="4" height="3" alt="A"></p>',
    ),
  );
  assert.equal(res.status, 204);
  assert.equal(
    (await store.get("pages", "home"))?.body,
    '<p><img src="/media/a.jpg" width="4" height="3" alt="A"></p>',
  );
  assert.equal(canonicalUrl("/me\tdia/./a.jpg"), "/media/a.jpg");
});

function library(
  store: MemoryContentStore,
  storage: MemoryMediaStorage,
  canEdit?: (req: Request, f: { field: string }) => boolean,
) {
  return createMediaLibraryHandler({
    authorize: () => ({ name: "Ada" }),
    storage,
    store,
    canEdit,
  });
}

function choose(key: string): Request {
  return new Request("http://localhost/api/cms/media/library", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: "http://localhost" },
    body: JSON.stringify({ chosen: key }),
  });
}

Deno.test("media library: a choice protects the upload for the grace period", async () => {
  const store = new MemoryContentStore();
  const storage = new MemoryMediaStorage();
  await storage.put("old.jpg", JPEG, "image/jpeg");
  const later = Date.now() + 30 * DAY; // the upload is a month old by then
  const dry = await collectMedia({ storage, store, now: later });
  assert.deepEqual(dry.unused.map((u) => u.key), ["old.jpg"]);

  const res = await library(store, storage)(choose("old.jpg"));
  assert.equal(res.status, 204);
  // Chosen now: a week of grace from now, then unused again.
  const soon = await collectMedia({ storage, store, delete: true });
  assert.equal(soon.unused.length, 0);
  assert.equal(soon.recent, 1);
  const afterGrace = await collectMedia({
    storage,
    store,
    now: Date.now() + 8 * DAY,
  });
  assert.deepEqual(afterGrace.unused.map((u) => u.key), ["old.jpg"]);

  const gone = await library(store, storage)(choose("deleted.jpg"));
  assert.equal(gone.status, 404);
  assert.match(await gone.text(), /no longer stored/);
  const bad = await library(store, storage)(choose(""));
  assert.equal(bad.status, 400);
});

Deno.test("media library: alt texts only from fields the editor may edit", async () => {
  const store = new MemoryContentStore();
  const storage = new MemoryMediaStorage();
  await storage.put("a.jpg", JPEG, "image/jpeg");
  await store.update("pages", "home", () => ({
    title: '<img src="/media/a.jpg" alt="Shown in title">',
  }));
  await store.updateDraft("pages", "home", (r) => ({
    ...r,
    body: '<p><img src="/media/a.jpg" alt="Secret draft alt"></p>',
  }), { field: "body", editor: "Bo" });
  const titlesOnly = (_req: Request, f: { field: string }) =>
    f.field === "title";
  const get = async (q: string, canEdit?: typeof titlesOnly) =>
    await (await library(store, storage, canEdit)(
      new Request(`http://localhost/api/cms/media/library?q=${q}`),
    )).json() as MediaLibraryPage;
  assert.deepEqual((await get("")).uploads[0].alts, [
    "Secret draft alt",
    "Shown in title",
  ]);
  assert.deepEqual((await get("", titlesOnly)).uploads[0].alts, [
    "Shown in title",
  ]);
  assert.equal((await get("secret", titlesOnly)).total, 0);
  assert.equal((await get("secret")).total, 1);
});
