/**
 * Only what is wired shows: with `publish` but no `schedule` in the page
 * config there is no Publish at… and no request to the schedule endpoint;
 * without `library`, the image panel offers no "Choose from library";
 * drafts on other pages are counted and listed with links to their pages;
 * the dialogs (drafts on other pages, history, schedule, conflict, alt
 * text) fit at 375 and 1280 px without horizontal scroll.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  createDraftsHandler,
  createPublishHandler,
  createScheduleHandler,
} from "../../server/drafts/mod.ts";
import { createHistoryHandler } from "../../server/history/mod.ts";
import {
  createMediaLibraryHandler,
  MemoryMediaStorage,
} from "../../server/media/mod.ts";
import { createSaveHandler } from "../../server/save/handler.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import { createClientHandler } from "../../server/bundle/handler.ts";
import { engines, type Page, withBrowser } from "../helpers/browser.ts";
import { serve } from "../helpers/serve.ts";

const client = createClientHandler();

/** A page with a title marker and `config`, loading the served client. */
function pageWith(config: Record<string, unknown>): string {
  return `<!doctype html><meta charset="utf-8"><title>t</title>
<meta name="viewport" content="width=device-width">
<script type="application/json" id="cms-config">${
    JSON.stringify(config)
  }</script>
<h1 data-cms-field="pages:home:title" data-cms-label="Title">Title</h1>
<img data-cms-field="pages:home:hero" data-cms-type="image" src="/a.png" width="20" height="10" alt="Sea">
<script type="module" src="${client.mount}"></script>`;
}

/** The bar's button labels. */
const buttons = (page: Page) =>
  page.evaluate(() =>
    [
      ...document.querySelector("cms-edit-bar")!.shadowRoot!
        .querySelectorAll("button"),
    ].map((b) => b.textContent ?? "")
  );

/** Clicks the bar's button whose label starts with `label`. */
const press = (page: Page, label: string) =>
  page.evaluate((label) => {
    const b = [
      ...document.querySelector("cms-edit-bar")!.shadowRoot!
        .querySelectorAll("button"),
    ].find((b) => b.textContent?.startsWith(label));
    b!.click();
  }, label);

/** The image field panel's button labels (the panel is opened by Enter). */
const imagePanel = async (page: Page) => {
  await page.evaluate(() =>
    (document.querySelector("img[data-cms-field]") as HTMLElement).focus()
  );
  await page.press("Enter");
  await page.waitFor("cms-image-field");
  const labels = await page.evaluate(() =>
    [
      ...document.querySelector("cms-image-field")!.shadowRoot!
        .querySelectorAll("button"),
    ].filter((b) => !b.hidden).map((b) => b.textContent ?? "")
  );
  await page.press("Escape");
  return labels;
};

/** Open dialog `host`'s widths: the page's and the dialog's own. */
const fits = (page: Page, host: string) =>
  page.evaluate((host) => {
    const d = document.querySelector(host)?.shadowRoot?.querySelector(
      "dialog[open]",
    ) as HTMLElement | null;
    if (!d) return null;
    const r = d.getBoundingClientRect();
    return {
      page: document.documentElement.scrollWidth <= innerWidth,
      dialog: d.scrollWidth <= d.clientWidth,
      inside: r.left >= 0 && r.right <= innerWidth,
    };
  }, host);

Deno.test({
  name:
    "wired: no scheduling unless configured; other pages' drafts listed with links; dialogs fit at 375 and 1280 px [chromium]",
  ignore: !engines().includes("chromium"),
  fn: async () => {
    const store = new MemoryContentStore();
    await store.update("pages", "home", () => ({ title: "Title" }));
    await store.updateDraft("pages", "about", () => ({ body: "<p>A</p>" }), {
      field: "body",
      editor: "Bo",
    });
    const cms = {
      authorize: () => ({ name: "Ada" }),
      allowlist: {
        pages: { title: "plain", body: "rich", hero: "image" },
      } as const,
      storage: new MemoryMediaStorage(),
      store,
      publishMode: "draft" as const,
      pageUrl: () => "/about",
    };
    const routes: Record<string, (req: Request) => Promise<Response>> = {
      "/api/cms/save": createSaveHandler(cms),
      "/api/cms/drafts": createDraftsHandler(cms),
      "/api/cms/publish": createPublishHandler(cms),
      "/api/cms/schedule": createScheduleHandler(cms),
      "/api/cms/history": createHistoryHandler(cms),
      "/api/cms/media/library": createMediaLibraryHandler(cms),
    };
    const pages: Record<string, string> = {
      "/plain": pageWith({ publish: "/api/cms/publish" }),
      "/full": pageWith({
        publish: "/api/cms/publish",
        schedule: "/api/cms/schedule",
        history: "/api/cms/history",
        library: "/api/cms/media/library",
      }),
    };
    const seen: string[] = [];
    const server = serve((req) => {
      const { pathname } = new URL(req.url);
      if (pathname.startsWith(client.base)) return client(req);
      seen.push(pathname);
      if (routes[pathname]) return routes[pathname](req);
      return new Response(pages[pathname] ?? "", {
        status: pages[pathname] ? 200 : 404,
        headers: { "Content-Type": "text/html; charset=utf-8" },
      });
    });
    try {
      await withBrowser("chromium", async (browser) => {
        const page = await browser.newPage();
        await page.goto(`${server.url}/plain`);
        await page.waitFor(
          () =>
            document.querySelector("cms-edit-bar")?.shadowRoot?.textContent
              ?.includes("other pages"),
          { timeout: 10_000 },
        );
        const plain = await buttons(page);
        assert.ok(!plain.some((b) => b.startsWith("Publish at")), `${plain}`);
        assert.ok(plain.includes("1 draft on other pages"), `${plain}`);
        assert.ok(!seen.includes("/api/cms/schedule"), `${seen}`);
        assert.ok(!seen.includes("/api/cms/history"), `${seen}`);
        assert.deepEqual(await imagePanel(page), ["Replace", "Cancel"]);
        assert.ok(!seen.some((p) => p.includes("library")), `${seen}`);

        for (const width of [375, 1280]) {
          await page.setViewport(width, 800);
          await press(page, "1 draft on other pages");
          await page.waitFor(() =>
            document.querySelector("cms-drafts")?.shadowRoot?.querySelector(
              "dialog[open]",
            )
          );
          const link = await page.evaluate(() => {
            const a = document.querySelector("cms-drafts")!.shadowRoot!
              .querySelector("a")!;
            return [a.getAttribute("href"), a.textContent];
          });
          assert.deepEqual(link, ["/about", "Body"]);
          assert.deepEqual(await fits(page, "cms-drafts"), {
            page: true,
            dialog: true,
            inside: true,
          }, `drafts dialog at ${width}`);
          await page.press("Escape");
        }

        await page.goto(`${server.url}/full`);
        await page.waitFor(
          () =>
            document.querySelector("cms-edit-bar")?.shadowRoot?.textContent
              ?.includes("Publish at"),
          { timeout: 10_000 },
        );
        assert.ok(seen.includes("/api/cms/schedule"), `${seen}`);
        assert.deepEqual(await imagePanel(page), [
          "Replace",
          "Choose from library",
          "Cancel",
        ]);
        for (const width of [375, 1280]) {
          await page.setViewport(width, 800);
          for (
            const [label, host] of [["History", "cms-history"], [
              "Publish at",
              "cms-schedule",
            ]]
          ) {
            await press(page, label);
            await page.waitFor(
              (host) =>
                document.querySelector(host)?.shadowRoot?.querySelector(
                  "dialog[open]",
                ),
              {},
              host,
            );
            assert.deepEqual(await fits(page, host), {
              page: true,
              dialog: true,
              inside: true,
            }, `${host} at ${width}`);
            await page.press("Escape");
            await page.waitFor(
              (host) => !document.querySelector(host),
              {},
              host,
            );
          }
        }
      });
    } finally {
      await server.close();
    }
  },
});
