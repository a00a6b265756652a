import assert from "node:assert/strict";
import { serve } from "./helpers/serve.ts";
import { withBrowser } from "./helpers/browser.ts";

Deno.test("test helpers: a served page renders in Chromium", async () => {
  const server = serve(() =>
    new Response("<title>ok</title><p id=x>hello</p>", {
      headers: { "content-type": "text/html" },
    })
  );
  try {
    const text = await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await page.goto(server.url);
      return await page.$eval("#x", (el) => el.textContent);
    });
    assert.equal(text, "hello");
  } finally {
    await server.close();
  }
});
