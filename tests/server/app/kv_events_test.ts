/**
 * `createCms` on Deno KV: with events on and no `bus` given, editor events
 * travel over the store's KV database, so two services that share one KV
 * file (two processes, here two handles in one) hear each other's saves.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createCms } from "../../../server/app/mod.ts";
import { KvContentStore } from "../../../server/store/mod.ts";
import { openEvents } from "../../helpers/sse.ts";
import { authorize, content } from "./contract.ts";

Deno.test("createCms over KvContentStore: a save on one service reaches an editor's stream on another sharing the KV file", async () => {
  const dir = await Deno.makeTempDir();
  const kvs = [await Deno.openKv(`${dir}/kv`), await Deno.openKv(`${dir}/kv`)];
  const services = kvs.map((kv) =>
    createCms({
      authorize,
      allowlist: content,
      store: new KvContentStore(kv),
      events: { heartbeatMs: 60_000 },
    })
  );
  const servers = services.map((cms) =>
    Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async (req) =>
        await cms.handle(req) ?? new Response(null, { status: 404 }),
    )
  );
  const [a, b] = servers.map((s) => `http://127.0.0.1:${s.addr.port}`);
  const stream = await openEvents(`${b}/api/cms/events?page=/`, {
    Cookie: "sid=ok",
  });
  try {
    assert.equal(stream.res.status, 200);
    await stream.next((e) => e.event === "hello", 5000);
    const save = await fetch(`${a}/api/cms/save`, {
      method: "PATCH",
      headers: { Cookie: "sid=ok", "Content-Type": "application/json" },
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value: "From A",
      }),
    });
    assert.equal(save.status, 204, await save.text());
    // Polled every 500 ms by default: well inside 10 s on a loaded machine.
    const saved = await stream.next((e) => e.event === "saved", 10_000);
    assert.match(saved.data, /pages:home:title/);
  } finally {
    stream.close();
    for (const cms of services) await cms.close();
    for (const s of servers) await s.shutdown();
    for (const kv of kvs) kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
