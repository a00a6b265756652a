/**
 * The editor's surfaces keep their look under aggressive host CSS, in every
 * engine: with the edit bar, the rich toolbar and the link panel open, each
 * element in their shadow roots is measured (display, font size, width and
 * height); then the page gets `* { all: revert }`, `button { display: none }`
 * and `input { font-size: 40px }`, and every measure must be the same.
 * A check that it can fail: the same host rules do change the page's own
 * input (the test site's own hostile CSS already forces its buttons to
 * `display: block !important`).
 */
import assert from "node:assert/strict";
import {
  clientSiteTest,
  marker,
  type PageGlobals,
} from "../helpers/client_page.ts";

const HOSTILE =
  "* { all: revert } button { display: none } input { font-size: 40px }";

clientSiteTest(
  "style isolation: host CSS does not change the editor's panels",
  {
    pages: {
      "/": async (site) =>
        `<main>${await marker(site, "h2", "pages:home:title")}
${await marker(site, "div", "pages:home:body", true)}
<button id="own">Host button</button><input id="own-input"></main>`,
    },
    seed: { "pages:home": { title: "Hello", body: "<p>Body text</p>" } },
  },
  async (_t, site, browser) => {
    const page = await browser.newPage();
    try {
      await page.goto(site.url + "/");
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.ready
      );
      await page.click("div[data-cms-field] p");
      await page.evaluate(() => {
        const text = document.querySelector("div[data-cms-field] p")!
          .firstChild!;
        getSelection()!.setBaseAndExtent(text, 0, text, 4);
      });
      await page.press("k", ["Control"]);
      await page.waitFor(() =>
        document.querySelector("cms-rich-toolbar")?.shadowRoot
          ?.querySelector("form input[name=linkUrl]")
      );
      const measure = () =>
        page.evaluate(() => {
          const out: string[] = [];
          for (const host of ["cms-edit-bar", "cms-rich-toolbar"]) {
            const root = document.querySelector(host)!.shadowRoot!;
            for (const el of root.querySelectorAll("*")) {
              const s = getComputedStyle(el);
              const r = el.getBoundingClientRect();
              out.push(
                `${host} ${el.localName}.${el.className} ${s.display} ${s.fontSize} ${
                  Math.round(r.width)
                }x${Math.round(r.height)}`,
              );
            }
          }
          const own = (sel: string) => {
            const el = document.querySelector(sel)!;
            return `${getComputedStyle(el).display} ${
              getComputedStyle(el).fontSize
            }`;
          };
          return { out, button: own("#own"), input: own("#own-input") };
        });
      const before = await measure();
      assert.ok(before.out.length > 20, "the panels have elements");
      // A constructed sheet: the test site's CSP allows no inline <style>.
      await page.evaluate((css: string) => {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(css);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      }, HOSTILE);
      const after = await measure();
      assert.notEqual(after.input, before.input, "host rules apply");
      assert.deepEqual(after.out, before.out);
    } finally {
      await page.close();
    }
  },
);
