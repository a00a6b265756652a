/**
 * `examples/hono/`: `createCms` mounted on a real Hono app (`npm:hono`):
 * the shared contract through its `mountCms`, then the example site over
 * HTTP on 127.0.0.1 (sign in, save a draft, upload, publish, history).
 *
 * @module
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { createApp, kvSessions, mountCms } from "../../examples/hono/main.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import { LocalMediaStorage } from "../../server/media/local.ts";
import type {
  HistoryListing,
  MediaAnswer,
  PublishAnswer,
} from "../../core/protocol/mod.ts";
import { png } from "../fixtures/images.ts";
import { formLoginAndEdit, serve } from "../helpers/serve.ts";
import { cmsContract } from "../server/app/contract.ts";

Deno.test("examples/hono: mountCms passes the createCms contract", async () => {
  await cmsContract((cms) => {
    const app = mountCms(new Hono(), cms);
    return async (req) => await app.fetch(req);
  });
});

Deno.test("examples/hono: sign in, save a draft, upload, publish, history, the client", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-hono-" });
  const kv = await Deno.openKv(":memory:");
  const store = new MemoryContentStore();
  const { app, cms } = createApp({
    store,
    storage: new LocalMediaStorage({ dir, publicUrl: "/media" }),
    ...kvSessions(kv, "pass-1234"),
  });
  const server = serve(app.fetch);
  const base = server.url;
  try {
    const { cookie, page, version } = await formLoginAndEdit(
      base,
      "pass-1234",
    );
    assert.ok(
      page.includes('<script type="module" src="/api/cms/client/mount.js">'),
    );
    const config = JSON.parse(
      page.match(/id="cms-config">([^<]*)</)?.[1] ?? "null",
    );
    assert.equal(config.publish, "/api/cms/publish");
    assert.equal(config.history, "/api/cms/history");
    assert.equal(config.library, "/api/cms/media/library");

    const saveWith = (headers: Record<string, string>, value: string) =>
      fetch(`${base}/api/cms/save`, {
        method: "PATCH",
        headers: { cookie, "Content-Type": "application/json", ...headers },
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field: "title",
          value,
          version,
        }),
      });
    const same = await saveWith({
      Origin: base,
      "Sec-Fetch-Site": "same-origin",
    }, "Saved through Hono");
    assert.equal(same.status, 204, await same.text());
    const cross = await saveWith({
      Origin: "https://evil.example",
      "Sec-Fetch-Site": "cross-site",
    }, "Hijacked");
    assert.equal(cross.status, 403);
    assert.equal(await cross.text(), "Cross-site request");
    // A draft: visitors still see the published page.
    assert.match(await (await fetch(base)).text(), /<h1>Hello from Hono/);
    const edit = await (await fetch(`${base}/?edit`, { headers: { cookie } }))
      .text();
    assert.match(edit, />Saved through Hono<\/h1>/);

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
    assert.deepEqual([stored.width, stored.height], [64, 48]);
    const file = await fetch(`${base}${stored.url}`);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("Content-Type"), "image/png");
    await file.body?.cancel();

    const publish = await fetch(`${base}/api/cms/publish`, {
      method: "POST",
      headers: {
        cookie,
        "Content-Type": "application/json",
        "Sec-Fetch-Site": "same-origin",
      },
      body: "{}",
    });
    assert.equal(publish.status, 200);
    const { published } = await publish.json() as PublishAnswer;
    assert.deepEqual(published, ["pages:home:title"]);
    assert.match(
      await (await fetch(base)).text(),
      /<h1>Saved through Hono<\/h1>/,
    );

    const listing = await fetch(
      `${base}/api/cms/history?field=pages:home:title`,
      { headers: { cookie } },
    );
    assert.equal(listing.status, 200);
    const { revisions } = await listing.json() as HistoryListing;
    assert.ok(revisions.length >= 1);

    const entry = await fetch(`${base}/api/cms/client/mod.js`);
    assert.equal(entry.status, 200);
    assert.match(await entry.text(), /mountCms/);
    const missing = await fetch(`${base}/api/cms/nope`);
    await missing.body?.cancel();
    assert.equal(missing.status, 404);
  } finally {
    await server.close();
    await cms.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
