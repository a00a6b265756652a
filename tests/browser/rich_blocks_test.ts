/**
 * The rich toolbar's block types, inline code, bold and italic, by keyboard,
 * in Chromium, Firefox and WebKit: the block-type menu from the toolbar
 * (arrows, Enter), Ctrl+E for inline code, Ctrl+B / Ctrl+I stored as
 * `<strong>` / `<em>`, spaces typed at a line's end stored without
 * `&nbsp;`; saved, then read back from the store in a fresh page. The
 * shortcuts list opens with Ctrl+/ and closes with Esc.
 */
import assert from "node:assert/strict";
import type { Page } from "../helpers/browser.ts";
import {
  clientSiteTest,
  marker,
  type PageGlobals,
  waitState,
} from "../helpers/client_page.ts";

const RICH = "div[data-cms-field]";
const BAR = "cms-rich-toolbar";

/** Puts the caret in (or selects) `text` inside the region. */
function select(page: Page, text: string, collapse = false) {
  return page.evaluate(
    (sel: string, text: string, collapse: boolean) => {
      const el = document.querySelector(sel) as HTMLElement;
      el.focus();
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n; (n = walker.nextNode());) {
        const at = n.textContent!.indexOf(text);
        if (at < 0) continue;
        const end = at + text.length;
        getSelection()!.setBaseAndExtent(n, collapse ? end : at, n, end);
        return;
      }
      throw new Error(`no text ${text}`);
    },
    RICH,
    text,
    collapse,
  );
}

/** The element focused inside the toolbar's shadow root: its name. */
const focusedInBar = (page: Page) =>
  page.evaluate((bar: string) => {
    const el = document.querySelector(bar)!.shadowRoot!.activeElement;
    return el?.getAttribute("aria-label") ?? el?.textContent ?? "";
  }, BAR);

/** Picks block type number `steps` below Paragraph by keyboard. */
async function blockByKeyboard(page: Page, steps: number) {
  // From the region, Shift+Tab reaches the toolbar (its one tab stop).
  await page.press("Tab", ["Shift"]);
  await page.press("Home");
  assert.equal(await focusedInBar(page), "Bold");
  for (let i = 0; i < 4; i++) await page.press("ArrowRight");
  assert.match(await focusedInBar(page), /^Block type: /);
  await page.press("Enter");
  await page.waitFor(
    (bar: string) =>
      document.querySelector(bar)!.shadowRoot!.activeElement?.getAttribute(
        "role",
      ) === "menuitemradio",
    { timeout: 5000 },
    BAR,
  );
  await page.press("Home");
  for (let i = 0; i < steps; i++) await page.press("ArrowDown");
  await page.press("Enter");
}

clientSiteTest(
  "rich: block types, inline code, strong/em, no stray &nbsp; (saved and reloaded)",
  {
    pages: {
      "/": async (site) => await marker(site, "div", "pages:home:body", true),
    },
    seed: {
      "pages:home": {
        body:
          "<p>Bold words here</p><p>Sub title</p><p>Quoted line</p><p>let x = 1;</p><p>Use npm now</p>",
      },
    },
  },
  async (t, site, browser) => {
    const page = await browser.newPage();
    try {
      await page.goto(site.url + "/");
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.ready
      );
      await t.step("Ctrl+B and Ctrl+I", async () => {
        await select(page, "Bold");
        await page.press("b", ["Control"]);
        await select(page, "words");
        await page.press("i", ["Control"]);
      });
      await t.step("block types from the menu, by keyboard", async () => {
        await select(page, "Sub title", true);
        await blockByKeyboard(page, 2); // Paragraph, Heading 2, Heading 3
        await select(page, "Quoted line", true);
        await blockByKeyboard(page, 4); // … Heading 4, Quote
        await select(page, "let x", true);
        await blockByKeyboard(page, 5); // … Code block
        const html = await page.evaluate(
          (sel: string) => document.querySelector(sel)!.innerHTML,
          RICH,
        );
        assert.match(html, /<h3>Sub title<\/h3>/);
        assert.match(
          html,
          /<blockquote>(<p>)?Quoted line(<\/p>)?<\/blockquote>/,
        );
        assert.match(html, /<pre>let x = 1;<\/pre>/);
        // Esc closes the open menu; focus goes back to its button.
        await page.press("Tab", ["Shift"]);
        await page.press("Home");
        for (let i = 0; i < 4; i++) await page.press("ArrowRight");
        await page.press("Enter");
        await page.waitFor(
          (bar: string) =>
            document.querySelector(bar)!.shadowRoot!.activeElement
              ?.getAttribute("role") === "menuitemradio",
          { timeout: 5000 },
          BAR,
        );
        await page.press("Escape");
        assert.equal(await focusedInBar(page), "Block type: Code block");
        assert.equal(
          await page.evaluate(
            (bar: string) =>
              document.querySelector(bar)!.shadowRoot!.querySelector<
                HTMLElement
              >("[role=menu]")!.hidden,
            BAR,
          ),
          true,
        );
      });
      await t.step("Ctrl+E: inline code", async () => {
        await select(page, "npm");
        await page.press("e", ["Control"]);
        const pressed = await page.evaluate(
          (bar: string) =>
            document.querySelector(bar)!.shadowRoot!.querySelector(
              "[aria-label='Inline code']",
            )!.getAttribute("aria-pressed"),
          BAR,
        );
        assert.equal(pressed, "true");
      });
      await t.step("spaces typed at the end", async () => {
        await select(page, "now", true);
        await page.type("  ");
      });
      await t.step("the shortcuts list: Ctrl+/, Esc", async () => {
        await page.press("/", ["Control"]);
        await page.waitFor(
          (bar: string) =>
            document.querySelector(bar)!.shadowRoot!.querySelector(".ks"),
          { timeout: 5000 },
          BAR,
        );
        assert.equal(await focusedInBar(page), "Close");
        const rows = await page.evaluate(
          (bar: string) =>
            document.querySelector(bar)!.shadowRoot!.querySelectorAll(".ks dt")
              .length,
          BAR,
        );
        assert.ok(rows >= 10);
        await page.press("Escape");
        await page.waitFor(
          (bar: string) =>
            !document.querySelector(bar)!.shadowRoot!.querySelector(".ks"),
          { timeout: 5000 },
          BAR,
        );
      });
      await t.step("saved and reloaded", async () => {
        await page.press("s", ["Control"]);
        await waitState(page, "clean");
        const stored = (await site.store.get("pages", "home"))?.body as string;
        assert.match(stored, /<strong>Bold<\/strong>/);
        assert.match(stored, /<em>words<\/em>/);
        assert.match(stored, /<h3>Sub title<\/h3>/);
        assert.match(
          stored,
          /<blockquote>(<p>)?Quoted line(<\/p>)?<\/blockquote>/,
        );
        assert.match(stored, /<pre>let x = 1;<\/pre>/);
        assert.match(stored, /Use <code>npm<\/code> now/);
        assert.doesNotMatch(stored, /<b>|<i>|&nbsp;|\u00a0/);
        const fresh = await browser.newPage();
        try {
          await fresh.goto(site.url + "/");
          const shown = await fresh.evaluate(
            (sel: string) => document.querySelector(sel)!.innerHTML,
            RICH,
          );
          assert.equal(shown, stored);
        } finally {
          await fresh.close();
        }
      });
    } finally {
      await page.close();
    }
  },
);
