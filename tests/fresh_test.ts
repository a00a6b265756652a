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
} from "../fresh/mod.ts";
import { MemoryContentStore } from "../server/store/memory.ts";
import { MemoryMediaStorage } from "../server/media/memory.ts";
import { contentVersion } from "../server/version.ts";
import type { Editor } from "../server/types.ts";

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

function saveRequest(body: unknown, headers: HeadersInit = {}): Request {
  return new Request(`${ORIGIN}/api/cms/save`, {
    method: "PATCH",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

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

Deno.test("fresh: route handlers declare exactly one parameter", () => {
  const save = cmsSaveRoute<State>({
    authorize: (ctx) => ctx.state.user,
    allowlist: ALLOWLIST,
    store: seededStore(),
  });
  const media = cmsMediaRoute<State>({
    authorize: (ctx) => ctx.state.user,
    storage: new MemoryMediaStorage(),
  });
  assert.deepEqual(Object.keys(save).sort(), ["PATCH", "POST"]);
  assert.deepEqual(Object.keys(media), ["POST"]);
  for (const fn of [save.PATCH, save.POST, media.POST]) {
    assert.equal(fn.length, 1);
  }
  assert.equal(cmsEditMode<State>({ authorize: () => null }).length, 1);
});

Deno.test("fresh: save route authorizes from ctx.state and writes through", async () => {
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

  const anon = ctxFor(
    saveRequest({
      collection: "pages",
      key: "home",
      field: "title",
      value: "X",
    }),
  );
  const denied = await handler.PATCH(anon);
  assert.equal(denied.status, 403);
  assert.equal((await store.get("pages", "home"))?.title, "Old");
  assert.equal(seen[0], anon, "authorize gets the Fresh context itself");

  const ctx = ctxFor(
    saveRequest({
      collection: "pages",
      key: "home",
      field: "features.1",
      value: "New <b>item</b>",
      version: contentVersion("b"),
    }),
    { user: { name: "Ada" } },
  );
  const ok = await handler.PATCH(ctx);
  assert.equal(ok.status, 204);
  assert.equal(
    ok.headers.get("CMS-Version"),
    contentVersion("New <b>item</b>"),
  );
  assert.deepEqual((await store.get("pages", "home"))?.features, [
    "a",
    "New <b>item</b>",
    "c",
  ]);

  const viaPost = await handler.POST(ctxFor(
    new Request(`${ORIGIN}/api/cms/save`, {
      method: "POST",
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "body",
        value: "<p onclick=alert(1)>hi<script>alert(1)</script></p>",
      }),
    }),
    { user: { name: "Ada" } },
  ));
  assert.equal(viaPost.status, 204);
  assert.equal((await store.get("pages", "home"))?.body, "<p>hi</p>");
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
  const body = (value: string) => ({
    collection: "pages",
    key: "home",
    field: "title",
    value,
  });
  const [a, b] = await Promise.all([
    handler.PATCH(
      ctxFor(saveRequest(body("from Ada")), { user: { name: "Ada" } }),
    ),
    handler.PATCH(ctxFor(saveRequest(body("from anon")))),
  ]);
  assert.equal(a.status, 204);
  assert.equal(b.status, 403);
  assert.equal((await store.get("pages", "home"))?.title, "from Ada");
});

Deno.test("fresh: save route behind csrf(): same-origin passes, cross-site is 403", async () => {
  const store = seededStore();
  const handler = cmsSaveRoute<State>({
    authorize: (ctx) => ctx.state.user,
    allowlist: ALLOWLIST,
    store,
  });
  const user = { name: "Ada" };
  const body = { collection: "pages", key: "home", field: "title", value: "S" };
  // What a browser sends, which Fresh's csrf() has already let through.
  const same = await handler.PATCH(ctxFor(
    saveRequest(body, { "Sec-Fetch-Site": "same-origin", Origin: ORIGIN }),
    { user },
  ));
  assert.equal(same.status, 204);
  const cross = await handler.PATCH(ctxFor(
    saveRequest({ ...body, value: "evil" }, {
      "Sec-Fetch-Site": "cross-site",
      Origin: "http://evil.test",
    }),
    { user },
  ));
  assert.equal(cross.status, 403);
  assert.equal((await store.get("pages", "home"))?.title, "S");
});

Deno.test("fresh: behind a proxy, allowedOrigins mirrors csrf({ origin })", async () => {
  const body = { collection: "pages", key: "home", field: "title", value: "P" };
  // Fresh sees the internal URL; the browser sent the public origin.
  const proxied = () =>
    new Request("http://127.0.0.1:8000/api/cms/save", {
      method: "PATCH",
      headers: {
        Origin: "https://public.example",
        "Sec-Fetch-Site": "same-site",
      },
      body: JSON.stringify(body),
    });
  const user = { name: "Ada" };
  const strict = cmsSaveRoute<State>({
    authorize: (ctx) => ctx.state.user,
    allowlist: ALLOWLIST,
    store: seededStore(),
  });
  const denied = await strict.PATCH(ctxFor(proxied(), { user }));
  assert.equal(denied.status, 403);
  await denied.body?.cancel();
  const store = seededStore();
  const configured = cmsSaveRoute<State>({
    authorize: (ctx) => ctx.state.user,
    allowlist: ALLOWLIST,
    store,
    allowedOrigins: ["https://public.example"],
  });
  assert.equal(
    (await configured.PATCH(ctxFor(proxied(), { user }))).status,
    204,
  );
  assert.equal((await store.get("pages", "home"))?.title, "P");
});

Deno.test("fresh: media route uploads with ctx authorize, 403 without", async () => {
  const storage = new MemoryMediaStorage();
  const handler = cmsMediaRoute<State>({
    authorize: (ctx) => ctx.state.user,
    storage,
  });
  const upload = () =>
    new Request(`${ORIGIN}/api/cms/media`, { method: "POST", body: PNG_1X1 });
  const denied = await handler.POST(ctxFor(upload()));
  assert.equal(denied.status, 403);
  const res = await handler.POST(ctxFor(upload(), { user: { name: "Ada" } }));
  assert.equal(res.status, 200);
  const media = await res.json();
  assert.equal(media.type, "image/png");
  assert.equal(media.width, 1);
  assert.equal(media.height, 1);
  assert.ok(media.url.endsWith("/" + media.key));
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
