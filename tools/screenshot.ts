/**
 * Takes a screenshot of the edit bar over a page with a heading, a plain and
 * a rich region: builds the client, serves a demo page on 127.0.0.1, mounts
 * it in Chromium, makes one edit (so the dot shows "unsaved") and writes a
 * PNG.
 *
 * Run: `deno run -A tools/screenshot.ts [out.png]` (default
 * `docs/edit-bar.png`).
 *
 * @module
 */
import { launch } from "../tests/helpers/browser.ts";
import { serve } from "../tests/helpers/serve.ts";
import { buildClient } from "./build_client.ts";
import type { PageGlobals } from "../tests/helpers/client_page.ts";

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Field notes</title><link rel="icon" href="data:,">
<style>
body{margin:0;font:17px/1.6 Georgia,serif;color:#1f2328;background:#f6f5f1}
header{background:#24292f;color:#fff;padding:14px 32px;font:600 15px system-ui,sans-serif}
main{max-width:680px;margin:32px auto;padding:0 24px 120px}
h1{font-size:38px;line-height:1.15;margin:0 0 8px}
.lede{font-size:20px;color:#57606a;margin:0 0 24px}
article img{max-width:100%;height:auto}
</style>
<script type="application/json" id="cms-config">{"editor":"Ada Lovelace","exit":"/"}</script>
</head><body><header>Field notes</header><main>
<h1 data-cms-field="posts:alps:title">Three days above the tree line</h1>
<p class="lede" data-cms-field="posts:alps:lede">Notes from a slow walk along the Haute Route.</p>
<article data-cms-field="posts:alps:body" data-cms-type="richtext"><p>We left Chamonix before dawn, with <b>too much bread</b> and not enough water.</p><h2>Day one</h2><p>The first climb is the worst: switchbacks, loose scree, and a view that keeps getting better.</p><ul><li>Start early</li><li>Carry more water than you think</li></ul></article>
</main><script type="module">import { mountCms } from "/dist/mod.js"; window.cmsHandle = mountCms();</script></body></html>`;

/** Writes the screenshot to `out` and returns its path. */
export async function screenshot(out = "docs/edit-bar.png"): Promise<string> {
  const dist = await Deno.makeTempDir({ prefix: "cms-shot-" });
  await buildClient(dist);
  const server = serve(async (req) => {
    const { pathname } = new URL(req.url);
    if (
      pathname.startsWith("/dist/") && /^[\w.-]+\.js$/.test(pathname.slice(6))
    ) {
      return new Response(await Deno.readFile(`${dist}/${pathname.slice(6)}`), {
        headers: { "content-type": "text/javascript" },
      });
    }
    return new Response(PAGE, { headers: { "content-type": "text/html" } });
  });
  const browser = await launch("chromium");
  try {
    const page = (await browser.newPage()).puppeteer!;
    await page.setViewport({ width: 960, height: 640, deviceScaleFactor: 1 });
    await page.goto(server.url + "/");
    await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).cmsHandle.ready
    );
    await page.focus("p.lede");
    await page.keyboard.press("End");
    await page.keyboard.type(" Updated.");
    await page.mouse.move(0, 0);
    await page.screenshot({ path: out });
    return out;
  } finally {
    await browser.close();
    await server.close();
    await Deno.remove(dist, { recursive: true });
  }
}

if (import.meta.main) {
  console.log(`wrote ${await screenshot(Deno.args[0])}`);
}
