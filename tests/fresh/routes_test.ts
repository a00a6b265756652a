/**
 * The Fresh wrappers of history, drafts and preview (`cmsHistoryRoute`,
 * `cmsDraftRoutes`, `cmsPreviewRoute`) through the Fresh chain model: 405
 * with `Allow` on the methods they don't serve, same-site calls pass behind
 * `trustProxy`, cross-site calls get 403 and change nothing.
 */
import assert from "node:assert/strict";
import {
  cmsDraftRoutes,
  cmsHistoryRoute,
  cmsPreviewRoute,
  type FreshContextLike,
} from "../../fresh/mod.ts";
import { PreviewSigner } from "../../server/drafts/preview.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import { FRESH_METHODS } from "../helpers/fresh_chain.ts";
import { sessionApp, type SessionState } from "../helpers/fresh_site.ts";

type State = SessionState;

const ALLOWLIST = { pages: { title: "plain", body: "rich" } } as const;
const SECRET = "a preview secret of at least 32 bytes, for tests";

/** A store whose title has history and an unpublished draft of body. */
async function draftedStore() {
  const store = new MemoryContentStore({
    "pages:home": { title: "Old", body: "<p>Old</p>" },
  });
  await store.update("pages", "home", (r) => ({ ...r, title: "New" }), {
    field: "title",
    editor: "Ada",
  });
  await store.updateDraft("pages", "home", (r) => ({
    ...r,
    body: "<p>Draft</p>",
  }), { field: "body", editor: "Ada" });
  return store;
}

/** The app as a host wires it: csrf() (optional), session, the routes. */
async function siteApp(options: { trustProxy: boolean; withCsrf: boolean }) {
  const store = await draftedStore();
  const signer = new PreviewSigner(SECRET);
  const app = sessionApp<State>(options);
  const authorize = (ctx: FreshContextLike<State>) => ctx.state.user ?? null;
  const hooks = { authorize, allowlist: ALLOWLIST, store };
  const drafts = cmsDraftRoutes<State>(hooks);
  app.fsRoute("/api/cms/history", { handler: cmsHistoryRoute<State>(hooks) });
  app.fsRoute("/api/cms/drafts", { handler: drafts.drafts });
  app.fsRoute("/api/cms/publish", { handler: drafts.publish });
  app.fsRoute("/api/cms/discard", { handler: drafts.discard });
  app.fsRoute("/api/cms/schedule", { handler: drafts.schedule });
  app.fsRoute("/api/cms/schedule/cancel", { handler: drafts.cancelSchedule });
  app.fsRoute("/api/cms/preview", {
    handler: cmsPreviewRoute<State>({ authorize, signer }),
  });
  return { handle: app.handler(), store, signer };
}

const ROUTES = [
  { path: "/api/cms/history", allow: "GET, HEAD, POST" },
  { path: "/api/cms/drafts", allow: "GET, HEAD" },
  { path: "/api/cms/publish", allow: "POST" },
  { path: "/api/cms/discard", allow: "POST" },
  { path: "/api/cms/schedule", allow: "GET, HEAD" },
  { path: "/api/cms/schedule/cancel", allow: "POST" },
  { path: "/api/cms/preview", allow: "POST" },
];

Deno.test("fresh routes: history, drafts and preview answer other methods 405 with Allow", async () => {
  const { handle, store } = await siteApp({
    trustProxy: false,
    withCsrf: true,
  });
  let checked = 0;
  for (const { path, allow } of ROUTES) {
    for (const method of FRESH_METHODS) {
      if (allow.split(", ").includes(method)) continue;
      const res = await handle(
        new Request(`http://site.test${path}`, {
          method,
          headers: { Cookie: "session=ada", "Sec-Fetch-Site": "same-origin" },
        }),
      );
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("Allow"), allow, `${method} ${path}`);
      await res.body?.cancel();
      checked++;
    }
  }
  const served = ROUTES.flatMap((r) => r.allow.split(", ")).length;
  assert.equal(checked, FRESH_METHODS.length * ROUTES.length - served);
  // Nothing changed: the draft is still a draft, the title as it was.
  assert.equal((await store.drafts()).length, 1);
  assert.equal((await store.get("pages", "home"))?.title, "New");
});

/** A request as it reaches the app behind a proxy for cms.example. */
function proxied(
  path: string,
  method: "GET" | "POST",
  body: unknown,
  origin: string,
  site: string,
): Request {
  // The internal URL has no port: a forwarded host without one keeps the
  // internal port, as Fresh does.
  return new Request(`http://127.0.0.1${path}`, {
    method,
    headers: {
      "Content-Type": "application/json",
      "X-Forwarded-Proto": "https",
      "X-Forwarded-Host": "cms.example",
      Origin: origin,
      "Sec-Fetch-Site": site,
      Cookie: "session=ada",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

Deno.test("fresh routes: behind trustProxy a same-site call passes, a cross-site one gets 403", async () => {
  for (const withCsrf of [true, false]) {
    const label = withCsrf ? "with csrf()" : "wrappers alone";
    const { handle, store, signer } = await siteApp({
      trustProxy: true,
      withCsrf,
    });
    const same = (path: string, method: "GET" | "POST", body?: unknown) =>
      handle(proxied(path, method, body, "https://cms.example", "same-site"));
    const cross = async (path: string, body: unknown) => {
      const res = await handle(
        proxied(path, "POST", body, "https://evil.example", "cross-site"),
      );
      assert.equal(res.status, 403, `${label}: cross-site ${path}`);
      await res.body?.cancel();
    };
    const [, oldest] = await store.revisions("pages", "home", "title");
    const field = "pages:home:title";

    // Cross-site: every write is refused and nothing changes.
    await cross("/api/cms/history", { field, revision: oldest.id });
    await cross("/api/cms/publish", {});
    await cross("/api/cms/discard", { field: "pages:home:body" });
    await cross("/api/cms/preview", { path: "/" });
    assert.equal((await store.get("pages", "home"))?.title, "New", label);
    assert.equal((await store.drafts()).length, 1, label);

    // Same-site, through the forwarded origin.
    const list = await same(`/api/cms/history?field=${field}`, "GET");
    assert.equal(list.status, 200, label);
    assert.equal((await list.json()).revisions.length, 2, label);
    const listed = await same("/api/cms/drafts", "GET");
    assert.equal(listed.status, 200, label);
    assert.deepEqual(
      (await listed.json()).drafts.map((d: { field: string }) => d.field),
      ["pages:home:body"],
      label,
    );
    const restore = await same("/api/cms/history", "POST", {
      field,
      revision: oldest.id,
    });
    assert.equal(restore.status, 204, `${label}: ${await restore.text()}`);
    assert.equal((await store.get("pages", "home"))?.title, "Old", label);
    const preview = await same("/api/cms/preview", "POST", { path: "/" });
    assert.equal(preview.status, 200, label);
    const link = new URL((await preview.json()).url);
    assert.equal(link.origin, "https://cms.example", label);
    assert.ok(
      await signer.verify(link.searchParams.get("preview"), "/"),
      label,
    );
    const published = await same("/api/cms/publish", "POST", {});
    assert.equal(published.status, 200, label);
    assert.deepEqual((await published.json()).published, [
      "pages:home:body",
    ], label);
    assert.equal((await store.get("pages", "home"))?.body, "<p>Draft</p>");
    await store.updateDraft(
      "pages",
      "home",
      (r) => ({ ...r, body: "<p>x</p>" }),
      {
        field: "body",
        editor: "Ada",
      },
    );
    const discarded = await same("/api/cms/discard", "POST", {
      field: "pages:home:body",
    });
    assert.equal(discarded.status, 204, label);
    assert.equal((await store.drafts()).length, 0, label);

    // Without a session: 403 even same-site (authorize sees ctx.state).
    const anon = proxied(
      "/api/cms/publish",
      "POST",
      {},
      "https://cms.example",
      "same-site",
    );
    anon.headers.delete("Cookie");
    const refused = await handle(anon);
    assert.equal(refused.status, 403, label);
    await refused.body?.cancel();
  }
});
