/**
 * Browser test (Chromium, Firefox, WebKit) of where the one rich toolbar
 * sits: above its region when there is room; below a region wholly in view
 * at the page's top; and, for a long region whose top is scrolled away,
 * pinned to the window's top, so it never covers what follows the region,
 * where the editor clicks next (a click there once hit the toolbar's Undo
 * and took back the last typing).
 */
import assert from "node:assert/strict";
import type { Page } from "../helpers/browser.ts";
import { clientSiteTest } from "../helpers/client_page.ts";

const LONG = Array.from(
  { length: 60 },
  (_, i) => `<p>Paragraph ${i} of a long article.</p>`,
).join("");

const SCRIPT = `import * as cms from "/dist/mod.js";
window.eds = Promise.all([...document.querySelectorAll(".r")].map((el) =>
  cms.mountRichText(el, { label: el.id })));`;

/** The shown toolbar's box, and the box of `after`. */
const boxes = (page: Page, after: string) =>
  page.evaluate((after: string) => {
    const bar = [...document.querySelectorAll("cms-rich-toolbar")]
      .map((h) => h.shadowRoot!.querySelector(".w") as HTMLElement)
      .find((w) => !w.hidden)!;
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom };
    };
    return { bar: box(bar), after: box(document.querySelector(after)!) };
  }, after);

/** Focuses region `id` with the caret at its end; scrolls `to` to center. */
const focusThenScroll = (page: Page, id: string, to: string) =>
  page.evaluate(
    (id: string, to: string) => {
      const el = document.getElementById(id)!;
      el.focus();
      const range = document.createRange();
      range.selectNodeContents(el);
      range.collapse(false);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
      document.querySelector(to)!.scrollIntoView({ block: "center" });
    },
    id,
    to,
  );

clientSiteTest(
  "rich toolbar: never over what follows a long region",
  {
    pages: {
      "/": () =>
        `<div class="r" id="top"><p>Title region</p></div>
<p style="height:200px">Between</p>
<div class="r" id="long">${LONG}</div><p id="after">After the article</p>
<div style="height:1200px"></div>`,
    },
    script: SCRIPT,
  },
  async (t, site, browser) => {
    const page = await browser.newPage();
    try {
      await page.setViewport(1000, 700);
      await page.goto(site.url + "/");
      await page.evaluate(async () => {
        await (globalThis as unknown as { eds: Promise<unknown> }).eds;
      });

      await t.step("a long region scrolled: pinned to the top", async () => {
        await focusThenScroll(page, "long", "#after");
        // Scroll events place it; wait until it is at the top.
        await page.waitFor(() => {
          const w = [...document.querySelectorAll("cms-rich-toolbar")]
            .map((h) => h.shadowRoot!.querySelector(".w") as HTMLElement)
            .find((w) => !w.hidden);
          return w !== undefined && w.getBoundingClientRect().top < 10;
        }, { timeout: 5000 });
        const { bar, after } = await boxes(page, "#after");
        assert.ok(
          bar.bottom <= after.top || bar.top >= after.bottom,
          `toolbar ${JSON.stringify(bar)} over ${JSON.stringify(after)}`,
        );
        const hit = await page.evaluate(() => {
          const r = document.getElementById("after")!.getBoundingClientRect();
          return document.elementFromPoint(r.left + 5, r.top + r.height / 2)
            ?.id;
        });
        assert.equal(hit, "after", "a click on what follows lands there");
      });

      await t.step("a region at the page's top: below it", async () => {
        await page.evaluate(() => scrollTo(0, 0));
        await focusThenScroll(page, "top", "#top");
        await page.evaluate(() => scrollTo(0, 0));
        await page.waitFor(() => {
          const w = [...document.querySelectorAll("cms-rich-toolbar")]
            .map((h) => h.shadowRoot!.querySelector(".w") as HTMLElement)
            .find((w) => !w.hidden);
          const r = document.getElementById("top")!.getBoundingClientRect();
          return w !== undefined && w.getBoundingClientRect().top >= r.bottom;
        }, { timeout: 5000 });
      });
    } finally {
      await page.close();
    }
  },
);
