/**
 * Defaults that never drop an editor's work: with one options object fed
 * to both factories and no `mediaBase`, an image the media endpoint just
 * stored keeps `srcset` and `sizes` through the save endpoint; the edit bar
 * is the spec's (Save, Settings, Done) by default, offers History only when
 * the page config has it, hides Settings at `settings: false`, and an
 * unknown config key gets one warning.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createMediaHandler } from "../../server/media/upload.ts";
import { createSaveHandler } from "../../server/save/handler.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import { MemoryMediaStorage } from "../../server/media/memory.ts";
import type { MediaAnswer } from "../../core/protocol/mod.ts";
import { REMOVED_HEADER } from "../../core/protocol/mod.ts";
import { createClientHandler } from "../../server/bundle/handler.ts";
import { png } from "../fixtures/images.ts";
import { engines, type Page, withBrowser } from "../helpers/browser.ts";
import { serve } from "../helpers/serve.ts";

const client = createClientHandler();

const headers = {
  "Sec-Fetch-Site": "same-origin",
  "Content-Type": "application/json",
};

Deno.test("defaults: srcset and sizes of an uploaded image survive saving without mediaBase", async () => {
  const store = new MemoryContentStore();
  const cms = {
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { body: "rich" } },
    store,
    storage: new MemoryMediaStorage({ publicUrl: "https://cdn.example/media" }),
  } as const;
  const media = createMediaHandler(cms);
  const save = createSaveHandler(cms);
  const up = await media(
    new Request("http://127.0.0.1/api/cms/media", {
      method: "POST",
      headers: { "Sec-Fetch-Site": "same-origin", "Content-Type": "image/png" },
      body: await png(1200, 800),
    }),
  );
  assert.equal(up.status, 200);
  const answer = await up.json() as MediaAnswer;
  assert.ok(answer.variants.length > 0, "sharp made variants");
  // What the client inserts for that answer.
  const srcset = [...answer.variants, answer]
    .map((v) => `${v.url} ${v.width}w`).join(", ");
  const img = `<img src="${answer.url}" width="${answer.width}" ` +
    `height="${answer.height}" alt="A photo" srcset="${srcset}" ` +
    `sizes="(max-width: 600px) 100vw, 600px">`;
  const saveBody = (value: string) =>
    save(
      new Request("http://127.0.0.1/api/cms/save", {
        method: "PATCH",
        headers,
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field: "body",
          value,
        }),
      }),
    );
  const res = await saveBody(`<p>${img}</p>`);
  assert.equal(res.status, 204, await res.text());
  assert.equal(res.headers.get(REMOVED_HEADER), null);
  const stored = String((await store.get("pages", "home"))?.body);
  assert.ok(stored.includes(`srcset="${srcset}"`), stored);
  assert.ok(stored.includes('sizes="(max-width: 600px) 100vw, 600px"'), stored);

  // A srcset pointing anywhere else is still removed (and counted).
  const foreign = await saveBody(
    img.replaceAll("https://cdn.example/media/", "https://evil.example/"),
  );
  assert.equal(foreign.status, 204);
  assert.ok(Number(foreign.headers.get(REMOVED_HEADER)) >= 2);
  assert.doesNotMatch(
    String((await store.get("pages", "home"))?.body),
    /srcset/,
  );
});

const probe = `window.warnings = [];
const warn = console.warn;
console.warn = (...args) => { window.warnings.push(args.join(" ")); warn(...args); };`;

/** A page with one marker and `config`, loading the served client. */
function pageWith(config: Record<string, unknown>): string {
  return `<!doctype html><meta charset="utf-8"><title>t</title>
<script src="/probe.js"></script>
<script type="application/json" id="cms-config">${
    JSON.stringify(config)
  }</script>
<h1 data-cms-field="pages:home:title" data-cms-version="v">Title</h1>
<script type="module" src="${client.mount}"></script>`;
}

Deno.test({
  name:
    "defaults: the bar is Save, Settings (cms:open-drawer), Done; History only when configured; settings: false hides Settings; an unknown key warns once [chromium]",
  ignore: !engines().includes("chromium"),
  fn: async () => {
    const pages: Record<string, string> = {
      "/bare": pageWith({ save: "/api/cms/save", histroy: "/x", colour: 1 }),
      "/full": pageWith({
        save: "/api/cms/save",
        history: "/api/cms/history",
      }),
      "/nodrawer": pageWith({ save: "/api/cms/save", settings: false }),
    };
    const server = serve((req) => {
      const { pathname } = new URL(req.url);
      if (pathname.startsWith(client.base)) return client(req);
      if (pathname === "/probe.js") {
        return new Response(probe, {
          headers: { "Content-Type": "text/javascript" },
        });
      }
      return new Response(pages[pathname] ?? "", {
        headers: { "Content-Type": "text/html; charset=utf-8" },
      });
    });
    const seen = async (page: Page) => {
      await page.waitFor("cms-edit-bar", { timeout: 10_000 });
      return await page.evaluate(() => ({
        buttons: [
          ...document.querySelector("cms-edit-bar")!.shadowRoot!
            .querySelectorAll("button"),
        ].map((b) => b.textContent),
        warnings: (globalThis as unknown as { warnings: string[] }).warnings,
      }));
    };
    try {
      await withBrowser("chromium", async (browser) => {
        const page = await browser.newPage();
        await page.goto(`${server.url}/bare`);
        const bare = await seen(page);
        assert.deepEqual(bare.buttons, ["Save", "Settings", "Done"]);
        assert.deepEqual(bare.warnings, [
          "cms: unknown #cms-config key(s) ignored: histroy, colour",
        ]);
        await page.goto(`${server.url}/full`);
        const full = await seen(page);
        assert.deepEqual(full.buttons, ["Save", "Settings", "History", "Done"]);
        assert.deepEqual(full.warnings, []);
        // Settings opens the host's drawer, with the editor's name.
        const drawer = await page.evaluate(() =>
          new Promise<unknown>((resolve) => {
            document.addEventListener(
              "cms:open-drawer",
              (e) => resolve((e as CustomEvent).detail),
              { once: true },
            );
            const bar = document.querySelector("cms-edit-bar")!.shadowRoot!;
            [...bar.querySelectorAll("button")]
              .find((b) => b.textContent === "Settings")!.click();
          })
        );
        assert.deepEqual(drawer, { editor: "" });
        await page.goto(`${server.url}/nodrawer`);
        assert.deepEqual((await seen(page)).buttons, ["Save", "Done"]);
      });
    } finally {
      await server.close();
    }
  },
});
