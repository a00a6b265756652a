import assert from "node:assert/strict";
import { serve } from "./serve.ts";
import { engineTest } from "./browser.ts";

engineTest("test helpers: a served page renders", async (_t, browser) => {
  const server = serve(() =>
    new Response("<title>ok</title><p id=x>hello</p>", {
      headers: { "content-type": "text/html" },
    })
  );
  try {
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      const text = await page.evaluate(() =>
        document.querySelector("#x")?.textContent
      );
      assert.equal(text, "hello");
    } finally {
      await page.close();
    }
  } finally {
    await server.close();
  }
});
