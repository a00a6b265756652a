import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { h } from "preact";
import {
  CmsConfig,
  cmsEditMode,
  CmsField,
  cmsMediaRoute,
  cmsSaveRoute,
  CmsScript,
  type CmsState,
  type FreshContextLike,
  scriptJson,
} from "../../fresh/mod.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import { MemoryMediaStorage } from "../../server/media/memory.ts";
import { contentVersion } from "../../core/version.ts";
import type { Editor } from "../../server/http/auth.ts";
import { defineContent, image, list, plain } from "../../core/content.ts";
import {
  csrf,
  FRESH_METHODS,
  FreshModelApp,
  type Middleware,
} from "../helpers/fresh_chain.ts";
import { ADA, sessionApp } from "../helpers/fresh_site.ts";

interface State {
  user?: Editor;
  cms?: CmsState;
}

const ORIGIN = "http://site.test";
const ALLOWLIST = {
  pages: { title: "plain", body: "rich", features: "list" },
} as const;

/** A context shaped like Fresh 2's (req, url, params, state, next). */
function ctxFor(
  req: Request,
  state: State = {},
  next: () => Promise<Response> = () =>
    Promise.resolve(new Response("page", { headers: { "X-Page": "1" } })),
): FreshContextLike<State> {
  return { req, url: new URL(req.url), params: {}, state, next };
}

function saveRequest(
  body: unknown,
  headers: HeadersInit = {},
  url = `${ORIGIN}/api/cms/save`,
): Request {
  return new Request(url, {
    method: "PATCH",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const titleBody = (value: string) => ({
  collection: "pages",
  key: "home",
  field: "title",
  value,
});

function seededStore() {
  return new MemoryContentStore({
    "pages:home": { title: "Old", body: "<p>x</p>", features: ["a", "b", "c"] },
  });
}

/** A valid 1×1 RGBA PNG. */
const PNG_1X1 = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/**
 * A Fresh-like app as the example wires it: `csrf()` (optional), the
 * session, then the save and media endpoints as file routes.
 */
function siteApp(options: {
  trustProxy?: boolean;
  withCsrf?: boolean;
  store?: MemoryContentStore;
} = {}) {
  const store = options.store ?? seededStore();
  const app = sessionApp<State>(options);
  const authorize = (ctx: FreshContextLike<State>) => ctx.state.user;
  app.fsRoute("/api/cms/save", {
    handler: cmsSaveRoute<State>({ authorize, allowlist: ALLOWLIST, store }),
  });
  app.fsRoute("/api/cms/media", {
    handler: cmsMediaRoute<State>({
      authorize,
      storage: new MemoryMediaStorage(),
    }),
  });
  return { handle: app.handler(), store };
}

Deno.test("fresh: wrappers are one-parameter functions Fresh accepts as route handlers", () => {
  const save = cmsSaveRoute<State>({
    authorize: (ctx) => ctx.state.user,
    allowlist: ALLOWLIST,
    store: seededStore(),
  });
  const media = cmsMediaRoute<State>({
    authorize: (ctx) => ctx.state.user,
    storage: new MemoryMediaStorage(),
  });
  for (
    const fn of [
      save,
      media,
      cmsEditMode<State>({ authorize: () => null }),
    ]
  ) {
    assert.equal(typeof fn, "function");
    assert.equal(fn.length, 1);
  }
  // The model refuses what Fresh refuses: a handler with two parameters.
  assert.throws(
    () =>
      new FreshModelApp().fsRoute("/x", {
        // Route modules are loaded untyped; Fresh checks this at load time.
        handler: ((_ctx: unknown, _extra: unknown) =>
          new Response()) as unknown as Middleware<unknown>,
      }),
    /only have one argument/,
  );
});

Deno.test("fresh chain: the model behaves as Fresh 2.3 does for methods", async () => {
  const app = new FreshModelApp();
  const ok = () => new Response("ok");
  app.fsRoute("/by-method", { handler: { PATCH: ok } });
  app.on("POST", "/post-only", ok);
  const handle = app.handler();
  const call = (path: string, method: string) =>
    handle(new Request(ORIGIN + path, { method }));
  // File routes take every method; a method the object lacks ends in 404.
  for (const method of ["GET", "PUT", "DELETE", "POST"]) {
    assert.equal((await call("/by-method", method)).status, 404, method);
  }
  assert.equal((await call("/by-method", "PATCH")).status, 200);
  // app.post(): 405 without Allow; OPTIONS: 204 with Allow.
  const put = await call("/post-only", "PUT");
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("Allow"), null);
  await put.body?.cancel();
  const options = await call("/post-only", "OPTIONS");
  assert.equal(options.status, 204);
  assert.equal(options.headers.get("Allow"), "POST");
  assert.equal((await call("/nowhere", "GET")).status, 404);
});

Deno.test("fresh: every method the endpoint doesn't serve gets 405 with Allow", async () => {
  const { handle, store } = siteApp();
  const cases = [
    { path: "/api/cms/save", allow: "PATCH, POST" },
    { path: "/api/cms/media", allow: "POST" },
  ];
  for (const { path, allow } of cases) {
    for (const method of FRESH_METHODS) {
      if (allow.includes(method)) continue;
      const res = await handle(
        new Request(ORIGIN + path, {
          method,
          headers: { Cookie: "session=ada" },
        }),
      );
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("Allow"), allow, `${method} ${path}`);
      await res.body?.cancel();
    }
  }
  assert.equal((await store.get("pages", "home"))?.title, "Old");
  // app.all() hands every method to the wrapper too.
  const app = new FreshModelApp<State>();
  for (const method of FRESH_METHODS) {
    app.on(
      method,
      "/save",
      cmsSaveRoute<State>({
        authorize: () => ADA,
        allowlist: ALLOWLIST,
        store,
      }),
    );
  }
  const put = await app.handler()(
    new Request(ORIGIN + "/save", { method: "PUT" }),
  );
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("Allow"), "PATCH, POST");
  await put.body?.cancel();
});

Deno.test("fresh: saves and uploads through the chain, authorize sees ctx.state", async () => {
  const { handle, store } = siteApp();
  const same = { Origin: ORIGIN, "Sec-Fetch-Site": "same-origin" };
  const anon = await handle(saveRequest(titleBody("anon"), same));
  assert.equal(anon.status, 403);
  await anon.body?.cancel();
  const ok = await handle(
    saveRequest(titleBody("New"), { ...same, Cookie: "session=ada" }),
  );
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get("CMS-Version"), contentVersion("New"));
  assert.equal((await store.get("pages", "home"))?.title, "New");

  const upload = await handle(
    new Request(`${ORIGIN}/api/cms/media`, {
      method: "POST",
      headers: { ...same, Cookie: "session=ada" },
      body: PNG_1X1,
    }),
  );
  assert.equal(upload.status, 200);
  const media = await upload.json();
  assert.equal(media.type, "image/png");
  assert.equal(media.width, 1);
  assert.ok(media.url.endsWith("/" + media.key));
});

/** A browser's save to the public site, as a proxy forwards it. */
function proxied(
  internal: string,
  forwardedHost: string,
  origin: string,
  site: string | null = "same-site",
) {
  const headers: Record<string, string> = {
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": forwardedHost,
    Origin: origin,
    Cookie: "session=ada",
  };
  if (site) headers["Sec-Fetch-Site"] = site;
  return saveRequest(titleBody(`via ${forwardedHost}`), headers, internal);
}

Deno.test("fresh: trustProxy: the origin check uses ctx.url, as csrf() does", async () => {
  for (const withCsrf of [true, false]) {
    const label = withCsrf ? "with csrf()" : "wrapper alone";
    // Same-site save: Origin is compared (Sec-Fetch-Site is not
    // same-origin), and matches the forwarded origin.
    const { handle, store } = siteApp({ trustProxy: true, withCsrf });
    const pass = await handle(
      proxied(
        "http://127.0.0.1/api/cms/save",
        "cms.example",
        "https://cms.example",
      ),
    );
    assert.equal(pass.status, 204, label);
    assert.equal((await store.get("pages", "home"))?.title, "via cms.example");
    // Origin only (no Sec-Fetch-Site), as older browsers send.
    const originOnly = await handle(
      proxied(
        "http://127.0.0.1/api/cms/save",
        "cms.example",
        "https://cms.example",
        null,
      ),
    );
    assert.equal(originOnly.status, 204, label);
    // A cross-site page is still refused.
    const cross = await handle(
      proxied(
        "http://127.0.0.1/api/cms/save",
        "cms.example",
        "https://evil.example",
        "cross-site",
      ),
    );
    assert.equal(cross.status, 403, label);
    await cross.body?.cancel();
    assert.equal((await store.get("pages", "home"))?.title, "via cms.example");
  }
});

Deno.test("fresh: trustProxy keeps the internal port when X-Forwarded-Host has none", async () => {
  for (const withCsrf of [true, false]) {
    const label = withCsrf ? "with csrf()" : "wrapper alone";
    const { handle, store } = siteApp({ trustProxy: true, withCsrf });
    // ctx.url becomes https://cms.example:8000: the browser's Origin
    // doesn't match, so csrf() and the wrapper both refuse…
    const quirk = await handle(
      proxied(
        "http://127.0.0.1:8000/api/cms/save",
        "cms.example",
        "https://cms.example",
      ),
    );
    assert.equal(quirk.status, 403, label);
    await quirk.body?.cancel();
    // …unless the browser says same-origin, or the proxy sends the port.
    const sameOrigin = await handle(
      proxied(
        "http://127.0.0.1:8000/api/cms/save",
        "cms.example",
        "https://cms.example",
        "same-origin",
      ),
    );
    assert.equal(sameOrigin.status, 204, label);
    const withPort = await handle(
      proxied(
        "http://127.0.0.1:8000/api/cms/save",
        "cms.example:443",
        "https://cms.example",
      ),
    );
    assert.equal(withPort.status, 204, label);
    assert.equal(
      (await store.get("pages", "home"))?.title,
      "via cms.example:443",
    );
  }
});

Deno.test("fresh: without trustProxy, forwarded headers are ignored", async () => {
  const { handle, store } = siteApp({ trustProxy: false, withCsrf: false });
  const res = await handle(
    proxied(
      "http://127.0.0.1/api/cms/save",
      "cms.example",
      "https://cms.example",
    ),
  );
  assert.equal(res.status, 403);
  await res.body?.cancel();
  assert.equal((await store.get("pages", "home"))?.title, "Old");
});

Deno.test("fresh: csrf() and the wrapper's own check agree on every header combination", async () => {
  const csrfOnly = new FreshModelApp();
  csrfOnly.use(csrf());
  csrfOnly.fsRoute("/api/cms/save", {
    handler: () => new Response(null, { status: 204 }),
  });
  const fresh = csrfOnly.handler();
  const { handle: ours } = siteApp({ withCsrf: false });
  const sites = [null, "none", "same-origin", "same-site", "cross-site"];
  const origins = [null, ORIGIN, "http://evil.test", "null"];
  let refused = 0;
  for (const site of sites) {
    for (const origin of origins) {
      const headers: Record<string, string> = { Cookie: "session=ada" };
      if (site) headers["Sec-Fetch-Site"] = site;
      if (origin) headers.Origin = origin;
      const a = await fresh(saveRequest(titleBody("x"), headers));
      const b = await ours(saveRequest(titleBody("x"), headers));
      await a.body?.cancel();
      await b.body?.cancel();
      const label = `Sec-Fetch-Site ${site}, Origin ${origin}`;
      assert.equal(a.status === 403, b.status === 403, label);
      assert.ok(b.status === 204 || b.status === 403, label);
      if (b.status === 403) refused++;
    }
  }
  assert.ok(refused > 0 && refused < sites.length * origins.length);
});

Deno.test("fresh: concurrent requests each see their own context", async () => {
  const store = seededStore();
  const handler = cmsSaveRoute<State>({
    authorize: async (ctx) => {
      await new Promise((r) => setTimeout(r, 5));
      return ctx.state.user ?? null;
    },
    allowlist: ALLOWLIST,
    store,
  });
  const [a, b] = await Promise.all([
    handler(ctxFor(saveRequest(titleBody("from Ada")), { user: ADA })),
    handler(ctxFor(saveRequest(titleBody("from anon")))),
  ]);
  assert.equal(a.status, 204);
  assert.equal(b.status, 403);
  await b.body?.cancel();
  assert.equal((await store.get("pages", "home"))?.title, "from Ada");
});

Deno.test("fresh: save route sanitizes rich values and checks list items", async () => {
  const store = seededStore();
  const seen: FreshContextLike<State>[] = [];
  const handler = cmsSaveRoute<State>({
    authorize: (ctx) => {
      seen.push(ctx);
      return ctx.state.user ?? null;
    },
    allowlist: ALLOWLIST,
    store,
  });
  const item = ctxFor(
    saveRequest({
      collection: "pages",
      key: "home",
      field: "features.1",
      value: "New <b>item</b>",
      version: contentVersion("b"),
    }),
    { user: ADA },
  );
  assert.equal((await handler(item)).status, 204);
  assert.equal(seen[0], item, "authorize gets the Fresh context itself");
  assert.deepEqual((await store.get("pages", "home"))?.features, [
    "a",
    "New <b>item</b>",
    "c",
  ]);
  const viaPost = await handler(ctxFor(
    new Request(`${ORIGIN}/api/cms/save`, {
      method: "POST",
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "body",
        value: "<p onclick=alert(1)>hi<script>alert(1)</script></p>",
      }),
    }),
    { user: ADA },
  ));
  assert.equal(viaPost.status, 204);
  assert.equal((await store.get("pages", "home"))?.body, "<p>hi</p>");
});

Deno.test("fresh: canEdit and authorizeMedia get the Fresh context", async () => {
  const store = seededStore();
  const save = cmsSaveRoute<State>({
    authorize: (ctx) => ctx.state.user,
    allowlist: ALLOWLIST,
    store,
    // Only Ada's own record; the context is the request's own.
    canEdit: (ctx, field, editor) =>
      ctx.state.user === editor && field.key === "home" &&
      ctx.url.pathname === "/api/cms/save",
  });
  const other = await save(ctxFor(
    saveRequest({ ...titleBody("x"), key: "about" }),
    { user: ADA },
  ));
  assert.equal(other.status, 403);
  assert.equal(await other.text(), "Not allowed to edit this field");
  assert.equal(await store.get("pages", "about"), null);
  assert.equal(
    (await save(ctxFor(saveRequest(titleBody("Mine")), { user: ADA }))).status,
    204,
  );

  const media = cmsMediaRoute<State>({
    authorize: (ctx) => ctx.state.user,
    authorizeMedia: (ctx) => ctx.state.user?.name === "Admin" ? ADA : null,
    storage: new MemoryMediaStorage(),
  });
  const upload = (user: Editor) =>
    media(ctxFor(
      new Request(`${ORIGIN}/api/cms/media`, { method: "POST", body: PNG_1X1 }),
      { user },
    ));
  const denied = await upload(ADA);
  assert.equal(denied.status, 403);
  await denied.body?.cancel();
  const ok = await upload({ name: "Admin" });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
});

Deno.test("fresh: an explicit publicOrigin wins over ctx.url", async () => {
  const store = seededStore();
  const app = sessionApp<State>({ trustProxy: true, withCsrf: false });
  app.fsRoute("/api/cms/save", {
    handler: cmsSaveRoute<State>({
      authorize: (ctx) => ctx.state.user,
      allowlist: ALLOWLIST,
      store,
      publicOrigin: "https://www.cms.example",
    }),
  });
  const handle = app.handler();
  const forwarded = await handle(
    proxied(
      "http://127.0.0.1/api/cms/save",
      "cms.example",
      "https://cms.example",
    ),
  );
  assert.equal(forwarded.status, 403);
  await forwarded.body?.cancel();
  const configured = await handle(
    proxied(
      "http://127.0.0.1/api/cms/save",
      "cms.example",
      "https://www.cms.example",
    ),
  );
  assert.equal(configured.status, 204);
  assert.equal((await store.get("pages", "home"))?.title, "via cms.example");
});

Deno.test("fresh: edit mode only for an editor who asks with ?edit", async () => {
  let calls = 0;
  const mw = cmsEditMode<State>({
    authorize: (ctx) => {
      calls++;
      return ctx.state.user ?? null;
    },
  });
  const run = async (path: string, state: State) => {
    const ctx = ctxFor(new Request(ORIGIN + path), state);
    const res = await mw(ctx);
    return { res, cms: ctx.state.cms };
  };

  const visitor = await run("/", {});
  assert.deepEqual(visitor.cms, { editing: false, editor: null });
  assert.equal(visitor.res.headers.get("Cache-Control"), null);
  assert.equal(visitor.res.headers.get("Vary"), null);
  assert.equal(calls, 0, "no ?edit: authorize is not even called");

  const editorNoParam = await run("/", { user: { name: "Ada" } });
  assert.equal(editorNoParam.cms?.editing, false);
  assert.equal(editorNoParam.res.headers.get("Cache-Control"), null);

  const visitorAsks = await run("/?edit", {});
  assert.deepEqual(visitorAsks.cms, { editing: false, editor: null });
  assert.equal(visitorAsks.res.headers.get("Cache-Control"), null);
  assert.equal(visitorAsks.res.headers.get("Vary"), "Cookie");

  const editor = await run("/?edit=1", { user: { name: "Ada" } });
  assert.deepEqual(editor.cms, { editing: true, editor: { name: "Ada" } });
  assert.equal(editor.res.headers.get("Cache-Control"), "private, no-store");
  assert.equal(editor.res.headers.get("Vary"), "Cookie");
  assert.equal(
    editor.res.headers.get("X-Page"),
    "1",
    "same response passed on",
  );
  assert.equal(await editor.res.text(), "page");
});

Deno.test("fresh: edit mode copies responses whose headers are immutable", async () => {
  const mw = cmsEditMode<State>({ authorize: (ctx) => ctx.state.user });
  const ctx = ctxFor(
    new Request(ORIGIN + "/?edit"),
    { user: { name: "Ada" } },
    () => Promise.resolve(Response.redirect(ORIGIN + "/login", 303)),
  );
  const res = await mw(ctx);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("Location"), ORIGIN + "/login");
  assert.equal(res.headers.get("Cache-Control"), "private, no-store");
});

Deno.test("fresh: CmsField renders markers only in edit mode, plain text escaped", () => {
  const title = 'Hi <script>alert("x")</script> & bye';
  const visitor = renderToString(
    h(CmsField, {
      as: "h1",
      field: "pages:home:title",
      value: title,
      class: "t",
    }),
  );
  assert.equal(
    visitor,
    '<h1 class="t">Hi &lt;script>alert(&quot;x&quot;)&lt;/script> &amp; bye</h1>',
  );
  assert.ok(!visitor.includes("data-cms"));

  const edit = renderToString(
    h(CmsField, {
      as: "h1",
      field: "pages:home:title",
      value: title,
      editing: true,
    }),
  );
  assert.ok(edit.includes('data-cms-field="pages:home:title"'));
  assert.ok(edit.includes(`data-cms-version="${contentVersion(title)}"`));
  assert.ok(!edit.includes("data-cms-type"));
  assert.ok(!edit.includes("<script>"));

  const rich = renderToString(
    h(CmsField, {
      field: "pages:home:body",
      value: '<p>Hi <img src="/m/a.png" width="2" height="3"></p>',
      rich: true,
      editing: true,
      version: "v1",
    }),
  );
  assert.equal(
    rich,
    '<div data-cms-field="pages:home:body" data-cms-type="richtext" data-cms-version="v1"><p>Hi <img src="/m/a.png" width="2" height="3"></p></div>',
  );
  const richVisitor = renderToString(
    h(CmsField, { field: "pages:home:body", value: "<p>x</p>", rich: true }),
  );
  assert.equal(richVisitor, "<div><p>x</p></div>");

  const item = renderToString(
    h(CmsField, {
      as: "li",
      field: "pages:home:features.2",
      value: undefined,
      editing: true,
    }),
  );
  assert.equal(
    item,
    `<li data-cms-field="pages:home:features.2" data-cms-version="${
      contentVersion("")
    }"></li>`,
  );
});

Deno.test("fresh: CmsScript renders config and loader only in edit mode", () => {
  const config = {
    editor: "</script><script>alert(1)</script>",
    save: "/api/cms/save",
    exit: "/",
  };
  assert.equal(
    renderToString(h(CmsScript, { src: "/cms/mod.js", config })),
    "",
  );
  assert.equal(renderToString(h(CmsConfig, { config })), "");

  const html = renderToString(
    h(CmsScript, { src: "/cms/mod.js", config, editing: true, nonce: "n1" }),
  );
  const m = html.match(
    /^<script type="application\/json" id="cms-config">(.*?)<\/script>/,
  );
  assert.ok(m, html);
  assert.ok(!m[1].includes("<"), "no raw < inside the JSON");
  assert.deepEqual(JSON.parse(m[1]), config);
  assert.equal((html.match(/<\/script>/g) ?? []).length, 2);
  assert.ok(html.includes('<script type="module" nonce="n1">'));
  assert.ok(html.includes('import("/cms/mod.js").then((m) => m.mountCms())'));

  assert.equal(
    scriptJson({ a: "<!--&\u2028>" }),
    '{"a":"\\u003c!--\\u0026\\u2028\\u003e"}',
  );
});

Deno.test("fresh: CmsField carries the declared label (data-cms-label)", () => {
  const content = defineContent({
    pages: {
      title: plain({ label: "Page title" }),
      features: list("plain", { label: "Key points" }),
      subtitle: "plain",
    },
  });
  const render = (field: string) =>
    renderToString(
      h(CmsField, {
        content,
        field: field as "pages:home:title",
        value: "x",
        editing: true,
      }),
    );
  assert.match(render("pages:home:title"), /data-cms-label="Page title"/);
  assert.match(render("pages:home:features.1"), /data-cms-label="Key points"/);
  assert.doesNotMatch(render("pages:home:subtitle"), /data-cms-label/);
  assert.throws(() => plain({ label: " " }), TypeError);
  assert.throws(() => image({ label: 3 as unknown as string }), TypeError);
});
