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
import { png } from "../../fixtures/images.ts";

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
  const root = new LocalMediaStorage({ dir: "media", publicUrl: "/" });
  assert.throws(
    () => createCms({ ...base, storage: root }),
    /local media under a path of its own/,
  );
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
    /<\/script><script type="module" src="\/cms\/client\/mount\.js"><\/script>$/,
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

Deno.test("createCms on Fresh: with trustProxy, the forwarded origin is the site's own", async () => {
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
  });
  const app = new FreshModelApp<Record<string, never>>({ trustProxy: true });
  app.use(csrf());
  app.fsRoute("/api/cms/:path*", { handler: cmsRoute(cms) });
  const save = (origin: string) =>
    app.handler()(
      new Request("http://127.0.0.1:8000/api/cms/save", {
        method: "PATCH",
        headers: {
          Cookie: "sid=ok",
          "Content-Type": "application/json",
          "X-Forwarded-Proto": "https",
          "X-Forwarded-Host": "www.example.com",
          Origin: origin,
        },
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field: "title",
          value: "Behind a proxy",
        }),
      }),
    );
  assert.equal((await save("https://www.example.com:8000")).status, 204);
  const evil = await save("https://evil.example");
  await evil.body?.cancel();
  assert.equal(evil.status, 403);
  await cms.close();
});

/** A same-origin editor request with a JSON body. */
function call(path: string, body: unknown, method = "POST"): Request {
  return new Request(`http://127.0.0.1${path}`, {
    method,
    headers: {
      Cookie: "sid=ok",
      "Sec-Fetch-Site": "same-origin",
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
}

const title = (value: string) => ({
  collection: "pages",
  key: "home",
  field: "title",
  value,
});

Deno.test("createCms: the host's hooks hear saves, publishes (scheduled too) and discards, beside the events", async () => {
  const heard: string[] = [];
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    publishMode: "draft",
    schedules: { pollMs: 20 },
    events: true,
    onSave: (e) => void heard.push(`save ${e.field}`),
    onPublish: (p) => void heard.push(`publish ${p.length}`),
    onDiscard: (f) => void heard.push(`discard ${f}`),
    pageUrl: () => "/home",
  });
  const ok = async (req: Request, status: number) => {
    const res = await cms.fetch(req);
    assert.equal(res.status, status, await res.text());
  };
  await ok(call("/api/cms/save", title("One"), "PATCH"), 204);
  const drafts = await cms.fetch(
    new Request("http://127.0.0.1/api/cms/drafts", {
      headers: { Cookie: "sid=ok" },
    }),
  );
  assert.match(await drafts.text(), /"page":"\/home"/);
  await ok(call("/api/cms/publish", {}), 200);
  await ok(call("/api/cms/save", title("Two"), "PATCH"), 204);
  await ok(call("/api/cms/discard", { field: "pages:home:title" }), 204);
  await ok(call("/api/cms/save", title("Three"), "PATCH"), 204);
  const at = new Date(Date.now() + 30).toISOString();
  await ok(call("/api/cms/publish", { at }), 202);
  for (let i = 0; i < 100 && heard.at(-1) !== "publish 1"; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(heard, [
    "save title",
    "publish 1",
    "save title",
    "discard pages:home:title",
    "save title",
    "publish 1",
  ]);
  await cms.close();
});

Deno.test("createCms: schedules elsewhere route the endpoints and run no scheduler", async () => {
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    publishMode: "draft",
    schedules: "elsewhere",
  });
  assert.equal(cms.scheduler, null);
  assert.equal(cms.pageConfig().schedule, "/api/cms/schedule");
  await cms.fetch(call("/api/cms/save", title("Later"), "PATCH"));
  const at = new Date(Date.now() + 60_000).toISOString();
  const res = await cms.fetch(call("/api/cms/publish", { at }));
  assert.equal(res.status, 202, await res.text());
  await cms.close();
  // Without schedules, a publish with `at` is refused: nothing would fire it.
  const none = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    publishMode: "draft",
  });
  await none.fetch(call("/api/cms/save", title("Later"), "PATCH"));
  const refused = await none.fetch(call("/api/cms/publish", { at }));
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /does not schedule/);
});

Deno.test("createCms: preview links only for the paths the host allows", async () => {
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    publishMode: "draft",
    preview: {
      signer: new PreviewSigner("a-long-random-secret-of-32-bytes-or-more"),
      allowPath: (path) => path === "/",
    },
  });
  const home = await cms.fetch(call("/api/cms/preview", { path: "/" }));
  assert.equal(home.status, 200);
  assert.match((await home.json()).url, /^http:\/\/127\.0\.0\.1\/\?preview=/);
  const other = await cms.fetch(call("/api/cms/preview", { path: "/x" }));
  assert.equal(other.status, 400, await other.text());
});

Deno.test("createCms on Fresh: media files under the base path need no second route file", async () => {
  const dir = await Deno.makeTempDir();
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    storage: new LocalMediaStorage({ dir, publicUrl: "/api/cms/uploads" }),
  });
  const app = new FreshModelApp<Record<string, never>>();
  app.fsRoute("/api/cms/:path*", { handler: cmsRoute(cms) });
  const handler = app.handler();
  try {
    const upload = await handler(
      new Request("http://127.0.0.1/api/cms/media", {
        method: "POST",
        headers: {
          Cookie: "sid=ok",
          "Sec-Fetch-Site": "same-origin",
          "Content-Type": "image/png",
        },
        body: await png(8, 8),
      }),
    );
    assert.equal(upload.status, 200, await upload.clone().text());
    const { url } = await upload.json() as { url: string };
    assert.match(url, /^\/api\/cms\/uploads\//);
    const file = await handler(new Request(`http://127.0.0.1${url}`));
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("Content-Type"), "image/png");
    await file.body?.cancel();
    // The library keeps its own path beside the files.
    const library = await handler(
      new Request("http://127.0.0.1/api/cms/media/library", {
        headers: { Cookie: "sid=ok" },
      }),
    );
    assert.equal(library.status, 200, await library.text());
  } finally {
    await cms.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createCms: cms.ready resolves once missed schedules have fired", async () => {
  const store = new MemoryContentStore();
  const base = {
    authorize,
    allowlist: content,
    store,
    publishMode: "draft" as const,
  };
  const first = createCms({ ...base, schedules: "elsewhere" });
  await first.fetch(call("/api/cms/save", title("Missed"), "PATCH"));
  const at = new Date(Date.now() + 20).toISOString();
  const made = await first.fetch(call("/api/cms/publish", { at }));
  assert.equal(made.status, 202, await made.text());
  await first.close();
  await new Promise((r) => setTimeout(r, 40));
  assert.equal((await store.get("pages", "home"))?.title, undefined);
  // The next start: its first round fires what was missed, long before
  // the next poll.
  const next = createCms({ ...base, schedules: { pollMs: 60_000 } });
  await next.ready;
  assert.equal((await store.get("pages", "home"))?.title, "Missed");
  await next.close();
});

Deno.test("createCms: a failing disk under the media files is a logged 500 with an id, not a crash", async () => {
  class Broken extends LocalMediaStorage {
    override open(): never {
      throw new Error("disk gone");
    }
  }
  const cms = createCms({
    authorize,
    allowlist: content,
    store: new MemoryContentStore(),
    storage: new Broken({ dir: "unused", publicUrl: "/media" }),
  });
  const res = await cms.fetch(new Request("http://127.0.0.1/media/a.png"));
  assert.equal(res.status, 500);
  assert.match(await res.text(), /^Internal error \(id \w+\)$/);
  await cms.close();
});
