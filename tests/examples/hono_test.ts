/**
 * `examples/hono/`: the save, media and history endpoints and the browser
 * client on a real Hono app (`npm:hono`), served on 127.0.0.1.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createApp, kvSessions } from "../../examples/hono/main.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import { LocalMediaStorage } from "../../server/media/local.ts";
import type { HistoryListing, MediaAnswer } from "../../core/protocol/mod.ts";
import { png } from "../fixtures/images.ts";
import { formLoginAndEdit, serve } from "../helpers/serve.ts";

Deno.test("examples/hono: same-origin save 204, cross-site 403, an upload, history and the client", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-hono-" });
  const kv = await Deno.openKv(":memory:");
  const store = new MemoryContentStore();
  const app = createApp({
    store,
    storage: new LocalMediaStorage({ dir, publicUrl: "/media" }),
    ...kvSessions(kv, "pass-1234"),
  });
  const server = serve(app.fetch);
  const base = server.url;
  try {
    const { cookie, page } = await formLoginAndEdit(base, "pass-1234");
    assert.ok(page.includes('<script type="module" src="/cms/mount.js">'));

    const saveWith = (headers: Record<string, string>, value: string) =>
      fetch(`${base}/api/cms/save`, {
        method: "PATCH",
        headers: { cookie, "Content-Type": "application/json", ...headers },
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field: "title",
          value,
        }),
      });
    const same = await saveWith({
      Origin: base,
      "Sec-Fetch-Site": "same-origin",
    }, "Saved through Hono");
    assert.equal(same.status, 204, await same.text());
    assert.ok(same.headers.get("CMS-Version"));
    const cross = await saveWith({
      Origin: "https://evil.example",
      "Sec-Fetch-Site": "cross-site",
    }, "Hijacked");
    assert.equal(cross.status, 403);
    assert.equal(await cross.text(), "Cross-site request");
    assert.equal(
      (await store.get("pages", "home"))?.title,
      "Saved through Hono",
    );
    const anonymous = await fetch(`${base}/api/cms/save`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    await anonymous.body?.cancel();
    assert.equal(anonymous.status, 403);

    const upload = await fetch(`${base}/api/cms/media`, {
      method: "POST",
      headers: {
        cookie,
        "Content-Type": "image/png",
        "Sec-Fetch-Site": "same-origin",
      },
      body: await png(64, 48),
    });
    assert.equal(upload.status, 200);
    const stored = await upload.json() as MediaAnswer;
    assert.deepEqual([stored.width, stored.height, stored.type], [
      64,
      48,
      "image/png",
    ]);
    const file = await fetch(`${base}${stored.url}`);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("Content-Type"), "image/png");
    assert.ok((await file.arrayBuffer()).byteLength > 0);

    const listing = await fetch(
      `${base}/api/cms/history?field=pages:home:title`,
      { headers: { cookie } },
    );
    assert.equal(listing.status, 200);
    const { revisions } = await listing.json() as HistoryListing;
    assert.ok(revisions.length >= 1);

    const entry = await fetch(`${base}/cms/mod.js`);
    assert.equal(entry.status, 200);
    assert.equal(
      entry.headers.get("Content-Type"),
      "text/javascript; charset=utf-8",
    );
    assert.match(await entry.text(), /mountCms/);
    const missing = await fetch(`${base}/cms/nope.js`);
    await missing.body?.cancel();
    assert.equal(missing.status, 404);
    const visitor = await (await fetch(base)).text();
    assert.match(visitor, /<h1>Saved through Hono<\/h1>/);
  } finally {
    await server.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
