/**
 * Refusals and the host page, in Chromium, against canned endpoints that
 * refuse everything: each refusal (publish, discard, schedule, upload,
 * media library, save, restore) shows the server's reason in the edit bar
 * (status and toast) and in the panel that asked, and nothing refused is
 * marked saved or published; a toast leaves when typing starts. The page
 * sits inside a host `<form>` whose submit would navigate: clicking every
 * control the editor adds (bar, schedule dialog, image panel, media
 * library, history, rich toolbar and its link dialog, list controls)
 * submits nothing.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createClientHandler } from "../../server/bundle/handler.ts";
import { png } from "../fixtures/images.ts";
import { engines, type Page, withBrowser } from "../helpers/browser.ts";
import { serve } from "../helpers/serve.ts";

const client = createClientHandler();
const DRAFTED = ["pages:home:title", "pages:home:intro"];
const plain = (status: number, text: string) =>
  new Response(text, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
const json = (body: unknown) => Response.json(body);

/** The page: every kind of region inside a host form that would navigate. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>t</title>
<script type="application/json" id="cms-config">${
  JSON.stringify({
    editor: "Ada",
    history: "/api/cms/history",
    publish: "/api/cms/publish",
    schedule: "/api/cms/schedule",
    library: "/api/cms/media/library",
  })
}</script>
<form action="/left" method="get">
<h1 data-cms-field="pages:home:title" data-cms-version="v1">Title</h1>
<p data-cms-field="pages:home:intro" data-cms-version="v2">Intro</p>
<img data-cms-field="pages:home:hero" data-cms-type="image" src="/a.png" width="20" height="10" alt="Sea">
<div data-cms-field="pages:home:body" data-cms-type="richtext" data-cms-version="v3"><p>Body text</p></div>
<ul data-cms-list="pages:home:features" data-cms-version="v4"><li data-cms-field="pages:home:features.0">One</li><li data-cms-field="pages:home:features.1">Two</li></ul>
<input name="q"><button>Host submit</button>
</form>
<script type="module" src="${client.mount}"></script>`;

/** A site whose endpoints refuse everything; `hits` counts paths. */
async function refusingSite() {
  const image = await png(20, 10);
  const hits: string[] = [];
  const server = serve((req) => {
    const { pathname, searchParams } = new URL(req.url);
    hits.push(`${req.method} ${pathname}`);
    if (pathname.startsWith(client.base)) return client(req);
    switch (pathname) {
      case "/":
        return new Response(PAGE, {
          headers: { "Content-Type": "text/html; charset=utf-8" },
        });
      case "/a.png":
        return new Response(image, {
          headers: { "Content-Type": "image/png" },
        });
      case "/api/cms/drafts":
        return json({
          drafts: DRAFTED.map((field) => ({ field, at: "", editor: "Ada" })),
        });
      case "/api/cms/schedule":
        return json({ schedules: [] });
      case "/api/cms/publish":
        return plain(413, "Publish too large for this server");
      case "/api/cms/discard":
        return new Response("<html><h1>500 Internal Server Error</h1>", {
          status: 500,
          headers: { "Content-Type": "text/html" },
        });
      case "/api/cms/save":
        return plain(413, "Value too large");
      case "/api/cms/media":
        return plain(413, "Image too large");
      case "/api/cms/media/library":
        return plain(503, "Library is resting");
      case "/api/cms/history": {
        const at = new Date(0).toISOString();
        return searchParams.has("revision")
          ? json({ id: "r1", at, editor: "Ada", value: "Old title" })
          : json({
            field: "pages:home:title",
            revisions: ["r2", "r1"].map((id) => ({
              id,
              at,
              editor: "Ada",
              bytes: 9,
            })),
          });
      }
    }
    return new Response("not found", { status: 404 });
  });
  return { server, hits };
}

/** The edit bar's status, toast and buttons. */
function bar(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const toast = root.querySelector<HTMLElement>(".n")!;
    return {
      state: root.querySelector(".b")!.getAttribute("data-state"),
      status: root.querySelector("[aria-live]")!.textContent,
      toast: toast.hidden ? "" : toast.firstChild?.textContent ?? "",
      buttons: [...root.querySelectorAll(".r button")].map((b) =>
        b.textContent
      ),
    };
  });
}

/** Clicks the button of shadow root `host` whose text starts with `label`. */
function press(page: Page, host: string, label: string) {
  return page.evaluate(
    (host, label) => {
      const root = document.querySelector(host)!.shadowRoot!;
      const b = [...root.querySelectorAll("button")]
        .find((b) => b.textContent!.startsWith(label));
      if (!b) throw new Error(`no ${label} in ${host}`);
      b.click();
    },
    host,
    label,
  );
}

/** Waits for the text of `selector` in `host`'s shadow root to match. */
function waitText(page: Page, host: string, selector: string, re: string) {
  return page.waitFor(
    (host: string, selector: string, re: string) =>
      new RegExp(re).test(
        document.querySelector(host)?.shadowRoot?.querySelector(selector)
          ?.textContent ?? "",
      ),
    { timeout: 10_000 },
    host,
    selector,
    re,
  );
}

const statusIs = (page: Page, re: string) =>
  waitText(page, "cms-edit-bar", "[aria-live]", re);

Deno.test({
  name:
    "refusals: publish, discard, schedule, upload, library, save and restore each show the server's reason in the bar and the panel; nothing is marked saved or published [chromium]",
  ignore: !engines().includes("chromium"),
  fn: async () => {
    const { server, hits } = await refusingSite();
    const file = await Deno.makeTempFile({ suffix: ".png" });
    await Deno.writeFile(file, await png(30, 20));
    try {
      await withBrowser("chromium", async (browser) => {
        const page = await browser.newPage();
        await page.goto(`${server.url}/`);
        await statusIs(page, "^2 unpublished changes$");
        await page.evaluate(() => {
          (globalThis as unknown as { stay: number }).stay = 1;
          globalThis.confirm = () => true;
        });

        // Publish: 413 with a plain-text reason (the case from a real site).
        await press(page, "cms-edit-bar", "Publish (2)");
        await statusIs(page, "Not published");
        let seen = await bar(page);
        const why = "Not published: Publish too large for this server";
        assert.equal(seen.state, "error");
        assert.equal(seen.status, why);
        assert.equal(seen.toast, why);
        assert.ok(seen.buttons.includes("Publish (2)"), "still 2 to publish");
        assert.equal(
          await page.evaluate(() =>
            document.querySelectorAll("[data-cms-draft]").length
          ),
          2,
          "both fields stay marked as drafts",
        );

        // Discard: an HTML error page shows as its status, the page stays.
        await press(page, "cms-edit-bar", "Discard drafts");
        await statusIs(page, "Not discarded");
        seen = await bar(page);
        assert.equal(seen.status, "Not discarded: HTTP 500");
        assert.equal(seen.toast, "Not discarded: HTTP 500");
        assert.ok(seen.buttons.includes("Publish (2)"));

        // Publish at…: in the dialog and in the bar.
        await press(page, "cms-edit-bar", "Publish at");
        await page.waitFor("cms-schedule", { timeout: 10_000 });
        await press(page, "cms-schedule", "Schedule");
        const late = "Not scheduled: Publish too large for this server";
        await waitText(page, "cms-schedule", ".e", `^${late}$`);
        await statusIs(page, `^${late}$`);
        assert.equal((await bar(page)).toast, late);
        await press(page, "cms-schedule", "Close");

        // The image field's upload: in its panel and in the bar.
        await page.click("img");
        await page.waitFor(
          () =>
            document.querySelector("cms-image-field")?.shadowRoot
              ?.querySelector("input[type=file]"),
          { timeout: 10_000 },
        );
        await page.upload("cms-image-field >>> input[type=file]", file);
        await waitText(
          page,
          "cms-image-field",
          "[role=status]",
          "Image too large",
        );
        await statusIs(page, "^Upload failed: Image too large$");
        assert.equal((await bar(page)).toast, "Upload failed: Image too large");
        assert.equal(
          await page.evaluate(() => document.querySelector("img")!.src),
          `${server.url}/a.png`,
          "the image is not replaced",
        );

        // The media library's listing.
        await press(page, "cms-image-field", "Choose from library");
        await waitText(
          page,
          "cms-media-library",
          "[role=status]",
          "Library is resting",
        );
        await statusIs(page, "Library is resting");
        await page.press("Escape");
        await page.press("Escape");

        // Typing makes the toast go; the refused save keeps the field dirty.
        await page.click("h1");
        await page.type("!");
        seen = await bar(page);
        assert.equal(seen.toast, "", "typing clears the toast");
        assert.equal(seen.status, "1 unsaved change");
        await press(page, "cms-edit-bar", "Save");
        await statusIs(page, "^Not saved: Value too large");
        seen = await bar(page);
        assert.equal(seen.toast, "Not saved: Value too large");
        assert.equal(
          await page.evaluate(() =>
            document.querySelector("h1")!.getAttribute("data-cms-state")
          ),
          "error",
        );

        // History: a refused restore keeps the panel open, saying why.
        await press(page, "cms-edit-bar", "History");
        await page.waitFor(
          () =>
            document.querySelector("cms-history")?.shadowRoot
              ?.querySelector("li:nth-child(2) button"),
          { timeout: 10_000 },
        );
        await press(page, "cms-history", "Restore");
        await press(page, "cms-history", "Restore this version");
        await waitText(
          page,
          "cms-history",
          "[role=status]",
          "^Not restored: Value too large$",
        );
        assert.ok(
          await page.evaluate(() =>
            document.querySelector("cms-history")!.shadowRoot!
              .querySelector("dialog")!.open
          ),
        );
        seen = await bar(page);
        assert.equal(seen.status, "Not saved: Value too large");
        assert.equal(seen.toast, "Not saved: Value too large");
        assert.equal(
          await page.evaluate(() =>
            (globalThis as unknown as { stay?: number }).stay
          ),
          1,
          "never navigated",
        );
      });
    } finally {
      await server.close();
      await Deno.remove(file);
    }
    assert.equal(hits.filter((h) => h.endsWith(" /left")).length, 0);
  },
});

/**
 * Buttons that would submit a form without a handler of ours: every
 * button in the document and in open shadow roots that is a submit button
 * of a form with no `onsubmit` (a panel's Apply has one; the host's own
 * submit button is left out).
 */
function loose(page: Page) {
  return page.evaluate(() => {
    const found: string[] = [];
    const walk = (root: Document | ShadowRoot) => {
      for (const el of root.querySelectorAll("*")) {
        if (el.shadowRoot) walk(el.shadowRoot);
        const b = el as HTMLButtonElement;
        if (
          el.tagName === "BUTTON" && b.type === "submit" && b.form &&
          !b.form.onsubmit && b.textContent !== "Host submit"
        ) found.push(b.textContent || b.getAttribute("aria-label") || "?");
      }
    };
    walk(document);
    return found;
  });
}

/** Clicks every button of `host`'s shadow root but `skip`; answers their
 * names, and whether the page is still the same document after each. */
function clickAll(page: Page, host: string, skip: string[] = []) {
  return page.evaluate(
    async (host, skip) => {
      const root = document.querySelector(host)?.shadowRoot;
      if (!root) throw new Error(`no ${host}`);
      const names: string[] = [];
      for (const b of [...root.querySelectorAll("button")]) {
        const name = b.getAttribute("aria-label") || b.textContent || "";
        if (skip.some((s) => name.startsWith(s)) || !b.isConnected) continue;
        b.click();
        names.push(name);
        await new Promise((r) => setTimeout(r, 30));
      }
      return names;
    },
    host,
    skip,
  );
}

const stayed = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { stay?: number }).stay);

Deno.test({
  name:
    "refusals: inside a host <form>, no control the editor adds submits it (bar, schedule, image panel, media library, history, rich toolbar, link dialog, list controls) [chromium]",
  ignore: !engines().includes("chromium"),
  fn: async () => {
    const { server, hits } = await refusingSite();
    try {
      await withBrowser("chromium", async (browser) => {
        const page = await browser.newPage();
        // A navigation's "Leave site?" prompt is answered "stay".
        page.puppeteer?.on("dialog", (d) => void d.dismiss());
        await page.goto(`${server.url}/`);
        await statusIs(page, "^2 unpublished changes$");
        await page.evaluate(() => {
          (globalThis as unknown as { stay: number }).stay = 1;
          globalThis.confirm = () => false;
        });
        const clicked: string[] = [];
        const check = async (what: string) => {
          assert.equal(await stayed(page), 1, `${what} navigated`);
          assert.deepEqual(await loose(page), [], `${what}: submit buttons`);
        };

        // The edit bar (Done leaves by design; History opens its panel).
        clicked.push(
          ...await clickAll(page, "cms-edit-bar", ["Done", "History"]),
        );
        await check("edit bar");
        // "Publish at…" opened the schedule dialog.
        await page.waitFor("cms-schedule", { timeout: 10_000 });
        clicked.push(...await clickAll(page, "cms-schedule"));
        await check("schedule dialog");
        await press(page, "cms-edit-bar", "History");
        await page.waitFor("cms-history", { timeout: 10_000 });
        await page.waitFor(
          () =>
            document.querySelector("cms-history")?.shadowRoot
              ?.querySelector("li:nth-child(2) button"),
          { timeout: 10_000 },
        );
        await press(page, "cms-history", "Restore");
        await check("history compare");
        clicked.push(
          ...await clickAll(page, "cms-history", ["Restore this version"]),
        );
        await check("history");

        // The image field's panel and the media library.
        await page.click("img");
        await page.waitFor("cms-image-field", { timeout: 10_000 });
        await check("image panel");
        await press(page, "cms-image-field", "Replace");
        await check("Replace");
        await press(page, "cms-image-field", "Choose from library");
        await page.waitFor("cms-media-library", { timeout: 10_000 });
        await check("media library");
        clicked.push(...await clickAll(page, "cms-media-library"));
        await check("media library buttons");
        clicked.push(...await clickAll(page, "cms-image-field"));
        await check("image panel buttons");

        // The rich toolbar, its link dialog, and the list controls.
        await page.click('[data-cms-field="pages:home:body"] p');
        await page.waitFor(
          () =>
            document.querySelector("cms-rich-toolbar")?.shadowRoot
              ?.querySelector("button"),
          { timeout: 10_000 },
        );
        clicked.push(...await clickAll(page, "cms-rich-toolbar"));
        await check("rich toolbar and link dialog");
        clicked.push(...await clickAll(page, "cms-rich-toolbar"));
        await check("rich toolbar, again");
        await page.click('[data-cms-field="pages:home:features.0"]');
        await page.waitFor(
          () =>
            document.querySelector("cms-list")?.shadowRoot
              ?.querySelector("button"),
          { timeout: 10_000 },
        );
        clicked.push(...await clickAll(page, "cms-list"));
        await check("list controls");

        for (
          const name of [
            "Save",
            "Settings",
            "Publish at…",
            "Back",
            "Close",
            "Replace",
            "Cancel",
            "Link",
            "Add item",
          ]
        ) assert.ok(clicked.includes(name), `${name} was clicked: ${clicked}`);
      });
    } finally {
      await server.close();
    }
    assert.deepEqual(hits.filter((h) => h.endsWith(" /left")), []);
    assert.equal(hits.filter((h) => h === "GET /").length, 1);
  },
});
