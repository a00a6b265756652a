/**
 * `createCms`: the contract on plain `Deno.serve` wiring and on Fresh's
 * catch-all route (through the Fresh model), and the option checks.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createCms } from "../../../server/app/mod.ts";
import { MemoryContentStore } from "../../../server/store/mod.ts";
import {
  LocalMediaStorage,
  MemoryMediaStorage,
} from "../../../server/media/mod.ts";
import { MemoryEventBus } from "../../../server/events/mod.ts";
import { PreviewSigner } from "../../../server/drafts/mod.ts";
import { cmsRoute } from "../../../fresh/routes.ts";
import { csrf, FreshModelApp } from "../../helpers/fresh_chain.ts";
import { authorize, cmsContract, content } from "./contract.ts";

Deno.test("createCms on Deno.serve: cms.handle(req) ?? the host's own page", async () => {
  await cmsContract((cms) => async (req) =>
    await cms.handle(req) ?? new Response("Not found", { status: 404 })
  );
});

Deno.test("createCms: cms.fetch answers 404 for what isn't routed", async () => {
  await cmsContract((cms) => cms.fetch);
});

Deno.test("createCms on Fresh: one catch-all route file per prefix, behind csrf()", async () => {
  await cmsContract((cms) => {
    const app = new FreshModelApp<Record<string, never>>();
    app.use(csrf());
    const route = { handler: cmsRoute(cms) };
    // routes/api/cms/[...path].ts (or the base path's folder) and
    // routes/media/[...path].ts for local media files.
    app.fsRoute(`${cms.basePath}/:path*`, route);
    app.fsRoute("/media/:path*", route);
    return app.handler();
  });
});

Deno.test("createCms: the Fresh context reaches authorize", async () => {
  const cms = createCms({
    authorize: (_req, ctx) =>
      (ctx as { state: { user?: { name: string } } }).state.user ?? null,
    allowlist: content,
    store: new MemoryContentStore(),
  });
  const app = new FreshModelApp<{ user?: { name: string } }>();
  app.use((ctx) => {
    if (ctx.req.headers.get("Cookie") === "sid=ok") {
      ctx.state.user = { name: "Ada" };
    }
    return ctx.next();
  });
  app.fsRoute("/api/cms/:path*", { handler: cmsRoute(cms) });
  const save = (cookie: string) =>
    app.handler()(
      new Request("http://127.0.0.1/api/cms/save", {
        method: "PATCH",
        headers: { Cookie: cookie, "Content-Type": "application/json" },
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field: "title",
          value: "From Fresh",
        }),
      }),
    );
  assert.equal((await save("sid=no")).status, 403);
  assert.equal((await save("sid=ok")).status, 204);
  await cms.close();
});

Deno.test("createCms: a bus turns events on; the page config names them", async () => {
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    bus: new MemoryEventBus(),
  });
  assert.equal(cms.pageConfig().events, "/api/cms/events");
  assert.ok(cms.events);
  await cms.close();
  const off = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    bus: new MemoryEventBus(),
    events: false,
  });
  assert.equal(off.pageConfig().events, undefined);
  await off.close();
});

Deno.test("createCms: a memory storage gets media and library, no file route", async () => {
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    storage: new MemoryMediaStorage(),
  });
  const names = new Set(cms.routes.map((r) => r.name));
  assert.deepEqual([...names].sort(), [
    "client",
    "history",
    "library",
    "media",
    "save",
  ]);
  await cms.close();
});

Deno.test("createCms: contradictory options fail at set-up with the reason", () => {
  const base = {
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
  };
  const plain = {
    get: () => Promise.resolve(null),
    set: () => Promise.resolve(),
  } as unknown as MemoryContentStore;
  const cases: [Parameters<typeof createCms>[0], RegExp][] = [
    [{ ...base, schedules: true }, /schedules needs publishMode: "draft"/],
    [
      { ...base, preview: new PreviewSigner("x".repeat(32)) },
      /preview needs publishMode: "draft"/,
    ],
    [{ ...base, store: plain, history: true }, /keeps history/],
    [{ ...base, store: plain, publishMode: "draft" }, /store with drafts/],
    [{ ...base, library: true }, /lists its uploads/],
    [{ ...base, basePath: "api/cms" }, /basePath must be a path/],
    [{ ...base, basePath: "/api cms" }, /basePath must be a path/],
  ];
  for (const [options, reason] of cases) {
    assert.throws(() => createCms(options), reason);
  }
  // A store without history gets no history endpoint by default.
  const cms = createCms({ ...base, store: plain });
  assert.ok(!cms.routes.some((r) => r.name === "history"));
});

Deno.test("createCms: a malformed Host is a 400, not an exception", async () => {
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
  });
  const res = await cms.handle(
    new Request("http://127.0.0.1/api/cms/save", {
      headers: { Host: "a b" },
    }),
  );
  assert.equal(res?.status, 400);
  await cms.close();
});

Deno.test("createCms: local media outside the base path are routed by the storage's URL", async () => {
  const dir = await Deno.makeTempDir();
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    storage: new LocalMediaStorage({ dir, publicUrl: "/uploads" }),
    serveMedia: false,
  });
  assert.ok(!cms.routes.some((r) => r.name === "files"));
  const on = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    storage: new LocalMediaStorage({ dir, publicUrl: "/uploads" }),
  });
  assert.deepEqual(
    on.routes.filter((r) => r.name === "files").map((r) => r.path),
    ["/uploads/*", "/uploads/*"],
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("createCms: editorScripts escapes the page config and loads the client", async () => {
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    basePath: "/cms",
  });
  const html = cms.editorScripts({ editor: "</script><b>Ada</b>" });
  assert.doesNotMatch(html, /<\/script><b>/);
  const json = html.match(/id="cms-config">([^<]*)<\/script>/)?.[1];
  assert.deepEqual(JSON.parse(json ?? "null"), {
    save: "/cms/save",
    history: "/cms/history",
    editor: "</script><b>Ada</b>",
  });
  assert.match(
    html,
    /\n<script type="module" src="\/cms\/client\/mount\.js"><\/script>$/,
  );
  await cms.close();
  const bare = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    client: false,
  });
  assert.doesNotMatch(bare.editorScripts(), /type="module"/);
});
