/**
 * `examples/fresh/`: the whole site (drafts, history, lists, two locales,
 * schedules, the library, responsive images) through its own files: the
 * one options object and `createCms` (`cms.ts`), the catch-all route files
 * and the page component, in the Fresh chain model with `csrf()`, a
 * session and `cmsEditMode` as `routes/_middleware.ts` wires them (Fresh
 * itself can't be installed here).
 *
 * @module
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { cmsEditMode } from "../../fresh/mod.ts";
import type {
  HistoryListing,
  MediaAnswer,
  PublishAnswer,
} from "../../core/protocol/mod.ts";
import { sessionApp } from "../helpers/fresh_site.ts";
import { solid } from "../fixtures/images.ts";

const dir = await Deno.makeTempDir({ prefix: "cms-fresh-" });
Deno.env.set("DATA_DIR", dir);
const site = await import("../../examples/fresh/cms.ts");
const home = await import("../../examples/fresh/components/HomePage.tsx");
const api = await import("../../examples/fresh/routes/api/cms/[...path].ts");
const files = await import("../../examples/fresh/routes/media/[...path].ts");
type State = import("../../examples/fresh/cms.ts").State;

const ORIGIN = "http://127.0.0.1:8000";

function siteHandler() {
  const app = sessionApp<State>();
  app.use(cmsEditMode<State>({
    authorize: (ctx) => ctx.state.user ?? null,
    locale: (ctx) => site.localeOf(ctx.url),
  }));
  app.fsRoute("/api/cms/*", api);
  app.fsRoute("/media/*", files);
  const page = {
    handler: async (ctx: { state: State }) =>
      new Response(
        renderToString(
          <home.HomePage {...await home.loadHome(ctx.state.cms)} />,
        ),
        { headers: { "Content-Type": "text/html" } },
      ),
  };
  app.fsRoute("/", page);
  app.fsRoute("/de/", page);
  return app.handler();
}

Deno.test("examples/fresh: the whole site through one createCms and its route files", async () => {
  const fetch = siteHandler();
  const editor = { Cookie: "session=ada" };
  const write = { ...editor, Origin: ORIGIN, "Sec-Fetch-Site": "same-origin" };
  const get = async (path: string, headers: HeadersInit = {}) =>
    await (await fetch(new Request(ORIGIN + path, { headers }))).text();
  const version = (html: string, field: string) =>
    html.match(
      new RegExp(`data-cms-field="${field}"[^>]*?data-cms-version="([^"]+)"`),
    )?.[1];
  const save = (field: string, value: string, at: string) =>
    fetch(
      new Request(`${ORIGIN}/api/cms/save`, {
        method: "PATCH",
        headers: { ...write, "Content-Type": "application/json" },
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field,
          value,
          version: at,
        }),
      }),
    );
  try {
    // Visitors: published values, no markers, no client.
    const visitor = await get("/");
    assert.match(visitor, /<h1>Hello from Fresh<\/h1>/);
    assert.doesNotMatch(visitor, /data-cms|cms-config|<img/);
    assert.match(await get("/de/"), /<h1>Hallo aus Fresh<\/h1>/);

    // An editor: markers, and a page config naming every routed endpoint.
    const edit = await get("/?edit", editor);
    const config = JSON.parse(edit.match(/id="cms-config">([^<]*)</)![1]);
    assert.equal(config.publish, "/api/cms/publish");
    assert.equal(config.history, "/api/cms/history");
    assert.equal(config.library, "/api/cms/media/library");
    assert.equal(config.schedule, "/api/cms/schedule");
    assert.equal(config.locale, "en");
    assert.match(
      edit,
      /<script type="module" src="\/api\/cms\/client\/mount\.js">/,
    );
    assert.match(
      edit,
      /data-cms-list="pages:home:features"[^>]*data-cms-max="6"/,
    );

    // German: the title is translated, the body falls back to English.
    const de = await get("/de/?edit", editor);
    assert.match(de, /data-cms-field="pages:home:title@de"(?![^>]*fallback)/);
    assert.match(
      de,
      /data-cms-field="pages:home:body@de"[^>]*data-cms-fallback="en"/,
    );

    // A draft of the German title: editors see it, visitors don't yet.
    const titleDe = version(de, "pages:home:title@de")!;
    assert.equal(
      (await save("title@de", "Hallo, Entwurf", titleDe)).status,
      204,
    );
    assert.match(await get("/de/?edit", editor), /Hallo, Entwurf/);
    assert.match(await get("/de/"), /<h1>Hallo aus Fresh<\/h1>/);

    // An upload through the same catch-all, served under /media/.
    const upload = await fetch(
      new Request(`${ORIGIN}/api/cms/media`, {
        method: "POST",
        headers: { ...write, "Content-Type": "image/jpeg" },
        body: await solid(1200, 800, "jpeg"),
      }),
    );
    assert.equal(upload.status, 200);
    const stored = await upload.json() as MediaAnswer;
    const file = await fetch(new Request(ORIGIN + stored.url));
    assert.equal(file.status, 200);
    await file.body?.cancel();
    const hero = version(edit, "pages:home:hero")!;
    assert.equal((await save("hero", stored.url, hero)).status, 204);

    // Publish: visitors get the German title and a responsive hero.
    const publish = await fetch(
      new Request(`${ORIGIN}/api/cms/publish`, {
        method: "POST",
        headers: { ...write, "Content-Type": "application/json" },
        body: "{}",
      }),
    );
    assert.equal(publish.status, 200);
    const { published } = await publish.json() as PublishAnswer;
    assert.deepEqual(published.sort(), [
      "pages:home:hero",
      "pages:home:title@de",
    ]);
    const after = await get("/de/");
    assert.match(after, /<h1>Hallo, Entwurf<\/h1>/);
    assert.match(
      after,
      new RegExp(
        `<img alt src="${stored.url}" width="1200" height="800" ` +
          `srcset="[^"]+-480w\\.webp 480w, [^"]+-960w\\.webp 960w, ${stored.url} 1200w" ` +
          `sizes="\\(max-width: 1200px\\) 100vw, 1200px"/>`,
      ),
    );

    // History, the library and the schedules answer through the route.
    const history = await fetch(
      new Request(`${ORIGIN}/api/cms/history?field=pages:home:title@de`, {
        headers: editor,
      }),
    );
    assert.equal(history.status, 200);
    assert.ok((await history.json() as HistoryListing).revisions.length >= 1);
    for (const path of ["media/library", "schedule"]) {
      const res = await fetch(
        new Request(`${ORIGIN}/api/cms/${path}`, { headers: editor }),
      );
      assert.equal(res.status, 200, path);
      await res.body?.cancel();
    }
    // Not the service's: Fresh's 404.
    const missing = await fetch(new Request(`${ORIGIN}/api/cms/nope`));
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await site.cms.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
