/**
 * The demo with `CMS_LOCALES=en,de` (draft mode, Deno KV): English at `/`,
 * German at `/de/` with fallbacks, an edit of German that shows on `/de/`
 * once published while `/` is unchanged.
 */
import assert from "node:assert/strict";
import { type Site, startSignedIn } from "../helpers/demo.ts";

function headers(site: Site): HeadersInit {
  return {
    Cookie: site.cookie,
    "Sec-Fetch-Site": "same-origin",
    Origin: site.url,
    "Content-Type": "application/json",
  };
}

async function call(site: Site, path: string, body: unknown, method = "POST") {
  const res = await fetch(`${site.url}${path}`, {
    method,
    headers: headers(site),
    body: JSON.stringify(body),
  });
  const type = res.headers.get("Content-Type") ?? "";
  return {
    status: res.status,
    body: type.startsWith("application/json")
      ? await res.json()
      : await res.text(),
  };
}

async function text(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  return { status: res.status, html: await res.text() };
}

Deno.test("demo with CMS_LOCALES=en,de: German at /de/, per locale", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-locale-demo-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-locale-client-" });
  try {
    const { demo, site } = await startSignedIn({
      dataDir,
      clientDir,
      publishMode: "draft",
      locales: ["en", "de"],
    });
    try {
      // Visitors: German falls back to the English values.
      const de = await text(`${site.url}/de/`);
      assert.equal(de.status, 200);
      assert.match(de.html, /<html lang="de"/);
      assert.match(de.html, /Edit this page in place/);
      assert.doesNotMatch(de.html, /data-cms-/);
      assert.equal((await text(`${site.url}/fr/`)).status, 404);
      assert.match((await text(`${site.url}/`)).html, /<html lang="en"/);

      // Edit mode on /de/: markers name the German values.
      const edit = await text(`${site.url}/de/?edit`, {
        headers: { Cookie: site.cookie },
      });
      assert.match(edit.html, /data-cms-field="pages:home:title@de"/);
      assert.match(edit.html, /data-cms-list="pages:home:features@de"/);
      assert.match(edit.html, /data-cms-locale="de"/);
      // Fallback values are marked; the config names the locales' pages.
      assert.match(edit.html, /data-cms-fallback="en"/);
      assert.match(
        edit.html,
        /"locale":"de","locales":\[\{"tag":"en","url":"\/"\},\{"tag":"de","url":"\/de\/"\}\]/,
      );
      assert.match(edit.html, /href="\/de\/">View as visitor/);

      // Save German (a draft), misuse is 400.
      const saved = await call(site, "/api/cms/save", {
        collection: "pages",
        key: "home",
        field: "title",
        locale: "de",
        value: "Diese Seite hier bearbeiten",
      }, "PATCH");
      assert.equal(saved.status, 204);
      const bad = await call(site, "/api/cms/save", {
        collection: "pages",
        key: "home",
        field: "title",
        locale: "fr",
        value: "x",
      }, "PATCH");
      assert.equal(bad.status, 400);
      assert.equal(bad.body, "Unknown locale");
      assert.doesNotMatch((await text(`${site.url}/de/`)).html, /Diese Seite/);

      // A preview link of /de/ shows the German draft.
      const link = await call(site, "/api/cms/preview", { path: "/de/" });
      assert.equal(link.status, 200);
      assert.match((await text(link.body.url)).html, /Diese Seite hier/);

      // Publish German only: /de/ shows it, / is unchanged.
      const published = await call(site, "/api/cms/publish", { locale: "de" });
      assert.equal(published.status, 200);
      assert.deepEqual(published.body.published, ["pages:home:title@de"]);
      assert.match((await text(`${site.url}/de/`)).html, /Diese Seite hier/);
      const en = (await text(`${site.url}/`)).html;
      assert.doesNotMatch(en, /Diese Seite/);
      assert.match(en, /Edit this page in place/);
    } finally {
      await demo.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(clientDir, { recursive: true });
  }
});
