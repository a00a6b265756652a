/**
 * Browser tests of the rich editor's undo history and keyboard in Chromium,
 * Firefox and WebKit: Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y after typing, a
 * toolbar command and a paste; Esc still reverts (and is undoable); the
 * toolbar is an ARIA toolbar with one tab stop, reached with Alt+F10, that
 * follows its region's size; an IME composition reports no change until it
 * ends.
 */
import assert from "node:assert/strict";
import type { Page } from "../helpers/browser.ts";
import { clientSiteTest, marker } from "../helpers/client_page.ts";

const SEED = { "pages:home": { title: "Hello", body: "<p>Body text</p>" } };
const REGION = "div[data-cms-field]";
const BAR = "cms-rich-toolbar";

/** The region's HTML. */
const html = (page: Page) =>
  page.evaluate((sel) => document.querySelector(sel)!.innerHTML, REGION);

/** Waits until the region's HTML is `want` (fails with the last value). */
async function expectHtml(page: Page, want: string) {
  try {
    await page.waitFor(
      (sel, want) => document.querySelector(sel)!.innerHTML === want,
      { timeout: 3000 },
      REGION,
      want,
    );
  } catch {
    assert.equal(await html(page), want);
  }
}

/** Clicks the region and puts the caret at the end of its text. */
async function caretAtEnd(page: Page) {
  await page.click(REGION);
  await page.evaluate((sel) => {
    const el = document.querySelector(sel) as HTMLElement;
    el.focus();
    getSelection()!.selectAllChildren(el.lastElementChild ?? el);
    getSelection()!.collapseToEnd();
  }, REGION);
}

/** Selects the whole text of the region's first paragraph. */
const selectFirst = (page: Page) =>
  page.evaluate((sel) => {
    const el = document.querySelector(sel) as HTMLElement;
    el.focus();
    getSelection()!.selectAllChildren(el.firstElementChild!);
  }, REGION);

/** Names of the toolbar buttons and which one has tabindex 0. */
const toolbarState = (page: Page) =>
  page.evaluate((bar) => {
    const root = document.querySelector(bar)!.shadowRoot!;
    // The toolbar's own buttons (the block-type menu's items are not).
    const buttons = [
      ...root.querySelectorAll("[role=toolbar] button:not([role])"),
    ];
    return {
      names: buttons.map((b) => b.getAttribute("aria-label")),
      stops: buttons.filter((b) => (b as HTMLElement).tabIndex === 0)
        .map((b) => b.getAttribute("aria-label")),
      focused: root.activeElement?.getAttribute("aria-label") ?? null,
      pressed: Object.fromEntries(
        buttons.filter((b) => b.hasAttribute("aria-pressed")).map((
          b,
        ) => [b.getAttribute("aria-label"), b.getAttribute("aria-pressed")]),
      ),
    };
  }, BAR);

clientSiteTest("rich: undo, redo and the ARIA toolbar", {
  seed: SEED,
  pages: { "/": (site) => marker(site, "div", "pages:home:body", true) },
  script:
    `import * as cms from "/dist/mod.js"; window.cms = cms; window.changes = []; document.addEventListener("cms:dirty", (e) => changes.push(e.detail.value)); window.cmsHandle = cms.mountCms();`,
}, async (t, site, browser) => {
  const open = async () => {
    const page = await browser.newPage();
    await page.goto(site.url + "/");
    await page.waitFor(BAR);
    return page;
  };

  await t.step("typing: Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y", async () => {
    const page = await open();
    try {
      await caretAtEnd(page);
      await page.type(" more");
      await expectHtml(page, "<p>Body text more</p>");
      await page.press("z", ["Control"]);
      await expectHtml(page, "<p>Body text</p>");
      await page.press("z", ["Control", "Shift"]);
      await expectHtml(page, "<p>Body text more</p>");
      await page.press("z", ["Control"]);
      await expectHtml(page, "<p>Body text</p>");
      await page.press("y", ["Control"]);
      await expectHtml(page, "<p>Body text more</p>");
      // Typing continues at the restored caret, as a new step.
      await page.type("!");
      await expectHtml(page, "<p>Body text more!</p>");
      await page.press("z", ["Control"]);
      await expectHtml(page, "<p>Body text more</p>");
    } finally {
      await page.close();
    }
  });

  await t.step("a toolbar command and a paste are undo steps", async () => {
    const page = await open();
    try {
      await selectFirst(page);
      await page.click(`${BAR} >>> [aria-label=Bold]`);
      await page.waitFor(
        (sel) => document.querySelector(sel)!.querySelector("b,strong"),
        {},
        REGION,
      );
      // Engines differ: <b> (Chromium, WebKit) or <strong>.
      const bold = await html(page);
      assert.match(bold, /^<p><(b|strong)>Body text<\/\1><\/p>$/);
      assert.deepEqual((await toolbarState(page)).pressed.Bold, "true");
      await page.press("z", ["Control"]);
      await expectHtml(page, "<p>Body text</p>");
      await page.press("y", ["Control"]);
      await expectHtml(page, bold);
      await page.press("z", ["Control"]);
      await caretAtEnd(page);
      await page.evaluate((sel) => {
        const data = new DataTransfer();
        data.setData("text/html", "<em>pasted</em><script>x()</script>");
        const paste = new ClipboardEvent("paste", {
          bubbles: true,
          cancelable: true,
        });
        // Firefox ignores `clipboardData` in the event's init dictionary.
        Object.defineProperty(paste, "clipboardData", { value: data });
        document.querySelector(sel)!.dispatchEvent(paste);
      }, REGION);
      await page.waitFor(
        (sel) => document.querySelector(sel)!.innerHTML.includes("pasted"),
        {},
        REGION,
      );
      const pasted = await html(page);
      assert.doesNotMatch(pasted, /script/);
      await page.press("z", ["Control"]);
      await expectHtml(page, "<p>Body text</p>");
      await page.press("z", ["Control", "Shift"]);
      await expectHtml(page, pasted);
    } finally {
      await page.close();
    }
  });

  await t.step(
    "Esc reverts to the saved value; Ctrl+Z brings the edit back",
    async () => {
      const page = await open();
      try {
        await caretAtEnd(page);
        await page.type(" gone");
        await expectHtml(page, "<p>Body text gone</p>");
        await page.press("Escape");
        await expectHtml(page, "<p>Body text</p>");
        const dirty = await page.evaluate(() =>
          (globalThis as unknown as { changes: string[] }).changes
        );
        assert.equal(dirty.at(-1), "<p>Body text</p>");
        await page.press("z", ["Control"]);
        await expectHtml(page, "<p>Body text gone</p>");
      } finally {
        await page.close();
      }
    },
  );

  await t.step("ARIA toolbar: one tab stop, arrows, Home, End", async () => {
    const page = await open();
    try {
      const first = await toolbarState(page);
      assert.deepEqual(first.names, [
        "Bold",
        "Italic",
        "Inline code",
        "Link",
        "Block type: Paragraph",
        "Bulleted list",
        "Numbered list",
        "Insert image",
        "Undo",
        "Redo",
        "Keyboard shortcuts",
      ]);
      assert.deepEqual(first.stops, ["Bold"]);
      const role = await page.evaluate(
        (bar) =>
          document.querySelector(bar)!.shadowRoot!.querySelector(
            "[role=toolbar]",
          )!.getAttribute("aria-label"),
        BAR,
      );
      assert.equal(role, "Formatting: body");
      // The toolbar shows for the focused region; Alt+F10 enters it at
      // its one tab stop.
      await caretAtEnd(page);
      await page.press("F10", ["Alt"]);
      assert.equal((await toolbarState(page)).focused, "Bold");
      await page.press("ArrowRight");
      assert.equal((await toolbarState(page)).focused, "Italic");
      await page.press("End");
      let s = await toolbarState(page);
      assert.equal(s.focused, "Keyboard shortcuts");
      assert.deepEqual(s.stops, ["Keyboard shortcuts"]);
      await page.press("ArrowRight");
      assert.equal((await toolbarState(page)).focused, "Bold");
      await page.press("ArrowLeft");
      assert.equal((await toolbarState(page)).focused, "Keyboard shortcuts");
      await page.press("Home");
      s = await toolbarState(page);
      assert.equal(s.focused, "Bold");
      assert.deepEqual(s.stops, ["Bold"]);
    } finally {
      await page.close();
    }
  });

  await t.step("the floating toolbar follows its region's size", async () => {
    const page = await open();
    try {
      await caretAtEnd(page);
      // The region sits at the page's top: the toolbar is below it. Where
      // the region grows or shrinks with no focus or scroll event (an image
      // loads, one is replaced), the toolbar moves along, never left over
      // the region's text.
      const below = () =>
        page.waitFor(
          (sel: string, bar: string) => {
            const r = document.querySelector(sel)!.getBoundingClientRect();
            const w = document.querySelector(bar)!.shadowRoot!
              .querySelector(".w:not([hidden])")?.getBoundingClientRect();
            return w && w.top >= r.bottom;
          },
          { timeout: 3000 },
          REGION,
          BAR,
        );
      await below();
      const resize = (n: number) =>
        page.evaluate(
          (sel: string, n: number) => {
            const el = document.querySelector(sel)!;
            el.querySelectorAll("p.grown").forEach((p) => p.remove());
            for (let i = 0; i < n; i++) {
              el.insertAdjacentHTML("beforeend", '<p class="grown">More</p>');
            }
          },
          REGION,
          n,
        );
      await resize(3);
      await below();
      await resize(0);
      // Shrunk back: right below it again (the observer places it in a
      // later frame; until then it is still lower down).
      await page.waitFor(
        (sel: string, bar: string) =>
          Math.round(
            document.querySelector(bar)!.shadowRoot!.querySelector(".w")!
              .getBoundingClientRect().top -
              document.querySelector(sel)!.getBoundingClientRect().bottom,
          ) === 4,
        { timeout: 3000 },
        REGION,
        BAR,
      );
    } finally {
      await page.close();
    }
  });

  await t.step(
    "IME composition: no change reported until it ends",
    async () => {
      const page = await open();
      try {
        await caretAtEnd(page);
        await page.evaluate(() => {
          const w = globalThis as unknown as { changes: string[] };
          w.changes.length = 0;
          document.addEventListener("cms:dirty", () => {
            const composing = (globalThis as unknown as { composing?: boolean })
              .composing;
            if (composing) (w as unknown as { early: boolean }).early = true;
          });
          const el = document.querySelector("div[data-cms-field]")!;
          el.addEventListener(
            "compositionstart",
            () =>
              (globalThis as unknown as { composing: boolean }).composing =
                true,
          );
          el.addEventListener(
            "compositionend",
            () =>
              (globalThis as unknown as { composing: boolean }).composing =
                false,
            {
              capture: true,
            },
          );
        });
        await page.compose(["n", "ni", "にほ"], "日本");
        await page.waitFor(
          (sel) => document.querySelector(sel)!.textContent!.includes("日本"),
          {},
          REGION,
        );
        const r = await page.evaluate(() => {
          const w = globalThis as unknown as {
            changes: string[];
            early?: boolean;
          };
          return { changes: w.changes, early: w.early ?? false };
        });
        assert.equal(r.early, false);
        assert.deepEqual(r.changes, ["<p>Body text日本</p>"]);
        // The composition is one undo step.
        await page.press("z", ["Control"]);
        await expectHtml(page, "<p>Body text</p>");
      } finally {
        await page.close();
      }
    },
  );
});
