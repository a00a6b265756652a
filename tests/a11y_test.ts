/**
 * axe-core on the edit-mode page in every engine: a rich region focused
 * (its toolbar shown), the edit bar with unsaved changes. Goal: 0 serious
 * or critical violations, also at 200% zoom and (Chromium, emulated over
 * CDP) with `forced-colors: active`.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "./helpers/browser.ts";
import {
  type ClientSite,
  clientSiteTest,
  marker,
  type PageGlobals,
} from "./helpers/client_page.ts";

const SEED = {
  "pages:home": {
    title: "Hello",
    subtitle: "Sub",
    body: "<p>Body text</p><ul><li>One</li></ul>",
    features: ["Fast"],
  },
};

async function homePage(site: ClientSite): Promise<string> {
  return `<main>
${await marker(site, "h2", "pages:home:title")}
${await marker(site, "p", "pages:home:subtitle")}
${await marker(site, "div", "pages:home:body", true)}
<ul>${await marker(site, "li", "pages:home:features.0")}</ul></main>`;
}

/** Runs axe in the page; returns the serious and critical violations. */
async function seriousViolations(page: Page): Promise<string[]> {
  return await page.evaluate(async (source: string) => {
    const w = globalThis as unknown as { axe?: typeof axe };
    if (!w.axe) (0, eval)(source);
    const result = await w.axe!.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) =>
        `${v.id} (${v.impact}): ${
          v.nodes.map((n) => n.target.join(" ")).join(", ")
        }`
      );
  }, axe.source);
}

/** Opens the page, makes one edit and focuses the rich region. */
async function editMode(page: Page, site: ClientSite) {
  await page.goto(site.url + "/");
  await page.evaluate(() =>
    (globalThis as unknown as PageGlobals).cmsHandle.ready
  );
  await page.click("p[data-cms-field]");
  await page.press("End");
  await page.type("!");
  await page.click("div[data-cms-field] p");
  await page.waitFor(() =>
    document.activeElement?.matches("div[data-cms-field]") === true
  );
}

clientSiteTest(
  "a11y: axe-core finds no serious or critical violations in edit mode",
  { pages: { "/": homePage }, seed: SEED },
  async (t, site, browser) => {
    await t.step("region focused, toolbar shown", async () => {
      const page = await browser.newPage();
      try {
        await editMode(page, site);
        assert.deepEqual(await seriousViolations(page), []);
      } finally {
        await page.close();
      }
    });

    await t.step("at 200% zoom (a 1280×800 screen)", async () => {
      const page = await browser.newPage();
      try {
        await page.setViewport(640, 400);
        await editMode(page, site);
        assert.deepEqual(await seriousViolations(page), []);
      } finally {
        await page.close();
      }
    });

    // forced-colors emulation needs CDP (Emulation.setEmulatedMedia).
    if (browser.engine === "chromium") {
      await t.step("with forced-colors: active", async () => {
        const page = await browser.newPage();
        try {
          await page.puppeteer!.emulateMediaFeatures([
            { name: "forced-colors", value: "active" },
          ]);
          await editMode(page, site);
          assert.ok(
            await page.evaluate(() =>
              matchMedia("(forced-colors: active)").matches
            ),
          );
          assert.deepEqual(await seriousViolations(page), []);
        } finally {
          await page.close();
        }
      });
    }
  },
);
