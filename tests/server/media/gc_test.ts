/**
 * Media cleanup and the media library on the memory, local and S3
 * (s3rver) storages: uploads used by a current value, a draft (of a
 * pending schedule) or a kept revision survive, and so do unused ones in
 * their grace period and an upload still being stored; unused old ones
 * (also one whose only revision retention dropped) are reported by a dry
 * run and deleted with their variants by `delete`. The library lists,
 * searches (file name, alt text) and pages.
 */
import assert from "node:assert/strict";
import { collectMedia } from "../../../server/media/gc.ts";
import { createMediaLibraryHandler } from "../../../server/media/library.ts";
import { cleanFileName, recordUpload } from "../../../server/media/_uploads.ts";
import { createMediaHandler } from "../../../server/media/upload.ts";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";
import { LocalMediaStorage } from "../../../server/media/local.ts";
import { S3MediaStorage } from "../../../s3/storage.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import type { ListableMediaStorage } from "../../../server/media/types.ts";
import type { MediaLibraryPage } from "../../../core/protocol/mod.ts";
import { formatReport, parseGcArgs } from "../../../tools/media_gc.ts";
import { startS3rver } from "../../helpers/s3rver.ts";
import { gif } from "../../helpers/client_page.ts";

const DAY = 24 * 60 * 60 * 1000;

/** Stores an upload: an original and one variant. */
async function upload(storage: ListableMediaStorage, name: string) {
  const key = `${name}.jpg`;
  await storage.put(key, new Uint8Array([0xff, 0xd8, 1, 2]), "image/jpeg");
  await storage.put(`${name}-480w.webp`, new Uint8Array([1, 2]), "image/webp");
  return storage.url(key);
}

async function keys(storage: ListableMediaStorage): Promise<string[]> {
  return (await Array.fromAsync(storage.list())).map((o) => o.key).sort();
}

/** Waits (bounded) until the wall clock is in a later second than `t`. */
async function nextSecond(t: number) {
  for (
    let i = 0;
    i < 40 && Math.floor(Date.now() / 1000) <= Math.floor(t / 1000);
    i++
  ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(Math.floor(Date.now() / 1000) > Math.floor(t / 1000));
}

async function scenario(storage: ListableMediaStorage) {
  const store = new MemoryContentStore({}, { retention: { keep: 2 } });
  const url = {
    current: await upload(storage, "current"),
    draft: await upload(storage, "draft"),
    history: await upload(storage, "history"),
    pruned: await upload(storage, "pruned"),
    unused: await upload(storage, "unused"),
  };
  const ed = (field: string) => ({ field, editor: "Ada" });
  // hero: pruned → history → current; retention keeps the last two.
  for (const v of [url.pruned, url.history, url.current]) {
    await store.update("pages", "home", (r) => ({ ...r, hero: v }), ed("hero"));
  }
  assert.equal((await store.revisions("pages", "home", "hero")).length, 2);
  // A draft of a rich field, with a pending schedule to publish it.
  await store.updateDraft("pages", "home", (r) => ({
    ...r,
    body: `<p><img src="${url.draft}" alt="Sunset &amp; sea"></p>`,
  }), { field: "body", editor: "Bo" });
  await store.addSchedule({
    id: crypto.randomUUID(),
    at: new Date(Date.now() + DAY).toISOString(),
    fields: [{ collection: "pages", key: "home", field: "body" }],
    editor: "Bo",
    created: new Date().toISOString(),
  });
  const stored = Date.now();

  // Default grace (7 days): everything was just stored; nothing goes.
  const fresh = await collectMedia({ storage, store, delete: true });
  assert.equal(fresh.unused.length, 0);
  assert.equal(fresh.recent, 2);
  assert.equal((await keys(storage)).length, 10);

  // Uploads after the cutoff: a finished one, and one still being stored
  // (its variant is in, its original not yet).
  await nextSecond(stored);
  // The next whole second after the old ones (S3 times are whole seconds).
  const cutoff = Math.floor(stored / 1000) * 1000 + 1000;
  await upload(storage, "recent");
  await storage.put("inflight-480w.webp", new Uint8Array([1]), "image/webp");
  const now = Date.now();
  const graceDays = (now - cutoff) / DAY;

  const dry = await collectMedia({ storage, store, graceDays, now });
  assert.deepEqual(dry.unused.map((u) => u.key).sort(), [
    "pruned.jpg",
    "unused.jpg",
  ]);
  assert.equal(dry.deleted, false);
  assert.equal(dry.recent, 2);
  assert.equal((await keys(storage)).length, 13);
  assert.match(formatReport(dry), /2 unused .* not deleted \(dry run/);

  const done = await collectMedia({
    storage,
    store,
    graceDays,
    now,
    delete: true,
  });
  assert.equal(done.unused.length, 2);
  assert.deepEqual(await keys(storage), [
    "current-480w.webp",
    "current.jpg",
    "draft-480w.webp",
    "draft.jpg",
    "history-480w.webp",
    "history.jpg",
    "inflight-480w.webp",
    "recent-480w.webp",
    "recent.jpg",
  ]);
  return { store, url };
}

Deno.test("media gc: memory storage", async () => {
  await scenario(new MemoryMediaStorage());
});

Deno.test("media gc: local storage", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-gc-" });
  try {
    const storage = new LocalMediaStorage({ dir, publicUrl: "/media" });
    await scenario(storage);
    // Type sidecars went with their files.
    const left = await Array.fromAsync(Deno.readDir(dir));
    assert.equal(left.filter((e) => e.name.startsWith(".")).length, 9);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("media gc: S3 storage (s3rver)", async () => {
  await using s3rver = await startS3rver();
  const storage = new S3MediaStorage({
    endpoint: s3rver.endpoint,
    region: "us-east-1",
    bucket: s3rver.bucket,
    accessKeyId: s3rver.accessKeyId,
    secretAccessKey: s3rver.secretAccessKey,
    publicUrl: "https://media.example.com",
    pathStyle: true,
  });
  await scenario(storage);
});

Deno.test("media library: lists, searches by file name and alt, pages", async () => {
  const storage = new MemoryMediaStorage();
  const { store, url } = await scenario(storage);
  const library = createMediaLibraryHandler({
    authorize: (req) =>
      req.headers.get("Cookie") === "s=ok" ? { name: "Ada" } : null,
    storage,
    store,
  });
  const get = async (query: string, cookie = "s=ok") => {
    const res = await library(
      new Request(`http://localhost/api/cms/media/library${query}`, {
        headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" },
      }),
    );
    return res;
  };
  // The media endpoint recorded who uploaded "recent" (not used yet).
  await recordUpload(store, "recent.jpg", "Cy", "Evening river.jpg");
  const all: MediaLibraryPage = await (await get("")).json();
  assert.equal(all.total, 5);
  const draft = all.uploads.find((u) => u.key === "draft.jpg");
  assert.ok(draft);
  assert.equal(draft.url, url.draft);
  assert.deepEqual(draft.alts, ["Sunset & sea"]);
  assert.equal(draft.uploader, "Bo");
  assert.equal(draft.used, true);
  assert.equal(draft.size, 6);
  assert.deepEqual(draft.variants.map((v) => v.url), [
    storage.url("draft-480w.webp"),
  ]);
  assert.equal(
    all.uploads.find((u) => u.key === "history.jpg")?.uploader,
    "Ada",
  );
  const recent = all.uploads.find((u) => u.key === "recent.jpg");
  assert.equal(recent?.used, false, "its record is not a use");
  assert.equal(recent?.uploader, "Cy");
  assert.equal(recent?.name, "Evening river.jpg");
  assert.equal(draft.name, "draft.jpg");

  const byAlt: MediaLibraryPage = await (await get("?q=SUNSET")).json();
  assert.deepEqual(byAlt.uploads.map((u) => u.key), ["draft.jpg"]);
  const byName: MediaLibraryPage = await (await get("?q=histo")).json();
  assert.deepEqual(byName.uploads.map((u) => u.key), ["history.jpg"]);
  const byFile: MediaLibraryPage = await (await get("?q=evening")).json();
  assert.deepEqual(byFile.uploads.map((u) => u.key), ["recent.jpg"]);

  const seen: string[] = [];
  let cursor: string | null = "0";
  for (let i = 0; i < 10 && cursor !== null; i++) {
    const page: MediaLibraryPage =
      await (await get(`?limit=2&cursor=${cursor}`))
        .json();
    assert.ok(page.uploads.length <= 2);
    seen.push(...page.uploads.map((u) => u.key));
    cursor = page.next;
  }
  assert.deepEqual(seen, all.uploads.map((u) => u.key));

  for (const bad of ["?limit=0", "?limit=500", "?cursor=-1", "?cursor=x"]) {
    const res = await get(bad);
    assert.equal(res.status, 400, bad);
    await res.body?.cancel();
  }
  const anon = await get("", "s=no");
  assert.equal(anon.status, 403);
  await anon.body?.cancel();
});

Deno.test("media:gc arguments", () => {
  assert.deepEqual(parseGcArgs([]), { delete: false, graceDays: 7 });
  assert.deepEqual(parseGcArgs(["--delete", "--grace-days=30"]), {
    delete: true,
    graceDays: 30,
  });
  assert.throws(() => parseGcArgs(["--force"]), /unknown argument/);
});

Deno.test("media endpoint records the uploader and file name", async () => {
  const storage = new MemoryMediaStorage();
  const store = new MemoryContentStore();
  const media = createMediaHandler({
    authorize: () => ({ name: "Ada" }),
    storage,
    uploads: store,
  });
  const image = gif(1, 1);
  const res = await media(
    new Request("http://localhost/api/cms/media", {
      method: "POST",
      headers: {
        Origin: "http://localhost",
        "X-File-Name": encodeURIComponent("../My photo\u0007.gif"),
      },
      body: image as Uint8Array<ArrayBuffer>,
    }),
  );
  assert.equal(res.status, 200, await res.clone().text());
  const { key } = await res.json();
  const [item] = (await (await createMediaLibraryHandler({
    authorize: () => ({ name: "Bo" }),
    storage,
    store,
  })(new Request("http://localhost/api/cms/media/library"))).json()).uploads;
  assert.equal(item.key, key);
  assert.equal(item.uploader, "Ada");
  assert.equal(item.name, "My photo.gif");
  assert.equal(cleanFileName("a%ZZ/b.jpg"), "b.jpg");
  assert.equal(cleanFileName(null), "");
});
