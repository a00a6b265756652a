/**
 * Lists that grow, in Chromium, Firefox and WebKit: a `CmsList`
 * page against the real save handler; items added, removed and reordered
 * by pointer and by keyboard, saved as one whole-list write, and reloaded.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { defineContent, list, plain } from "../../core/content.ts";
import { CmsList } from "../../fresh/components.tsx";
import { contentVersion } from "../../core/version.ts";
import { seriousViolations } from "../helpers/axe.ts";
import type { Page } from "../helpers/browser.ts";
import {
  type ClientSite,
  clientSiteTest,
  type PageGlobals,
  waitState,
} from "../helpers/client_page.ts";

const content = defineContent({
  pages: {
    title: "plain",
    features: list(plain({ maxLength: 40 }), { min: 1, max: 4 }),
  },
});

async function homePage(site: ClientSite): Promise<string> {
  const features = (await site.store.get("pages", "home"))?.features;
  return `<main><h1 data-cms-field="pages:home:title" data-cms-version="${
    contentVersion("Hi")
  }">Hi</h1>${
    renderToString(
      <CmsList
        content={content}
        field="pages:home:features"
        value={features as string[]}
        editing
      />,
    )
  }</main>`;
}

const SITE = {
  pages: { "/": homePage },
  seed: { "pages:home": { title: "Hi", features: ["Fast", "Small"] } },
  allowlist: content,
};

async function open(page: Page, site: ClientSite) {
  await page.goto(site.url + "/");
  await page.evaluate(() =>
    (globalThis as unknown as PageGlobals).cmsHandle.ready
  );
}

/** The items as the page shows them: [address, text]. */
function items(page: Page): Promise<[string, string][]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("[data-cms-list] [data-cms-field]")].map(
      (el) => [el.getAttribute("data-cms-field")!, el.textContent!],
    )
  );
}

/** Clicks a list bar button by its accessible name; returns whether it
 * was enabled. */
function clickList(page: Page, label: string): Promise<boolean> {
  return page.evaluate((label) => {
    const root = document.querySelector("cms-list")!.shadowRoot!;
    const b = root.querySelector<HTMLButtonElement>(
      `button[aria-label="${label}"]`,
    );
    if (!b) throw new Error(`no ${label} button`);
    const enabled = !b.disabled;
    b.click();
    return enabled;
  }, label);
}

/** Clicks item `i` and puts the caret at its end. */
async function focusItem(page: Page, i: number) {
  const sel = `[data-cms-field="pages:home:features.${i}"]`;
  await page.click(sel);
  await page.evaluate((sel) => {
    const el = document.querySelector(sel) as HTMLElement;
    el.focus();
    getSelection()!.selectAllChildren(el);
    getSelection()!.collapseToEnd();
  }, sel);
}

const address = (i: number) => `pages:home:features.${i}`;

clientSiteTest(
  "lists: add, remove and reorder, saved and reloaded",
  SITE,
  async (t, site, browser) => {
    const page = await browser.newPage();
    await open(page, site);

    await t.step("axe: no serious or critical violations", async () => {
      await focusItem(page, 1);
      assert.deepEqual(await seriousViolations(page), []);
    });

    // Media emulation needs CDP: Chromium only.
    if (page.puppeteer && browser.engine === "chromium") {
      await t.step("axe in the dark scheme, the list bar shown", async () => {
        const barColours = () =>
          page.evaluate(() => {
            const bar = document.querySelector("cms-list")!.shadowRoot!
              .querySelector<HTMLElement>(".k")!;
            const style = getComputedStyle(bar);
            return [bar.hidden, style.backgroundColor, style.color].join(" ");
          });
        await focusItem(page, 1);
        const light = await barColours();
        await page.puppeteer!.emulateMediaFeatures([
          { name: "prefers-color-scheme", value: "dark" },
        ]);
        try {
          await focusItem(page, 1);
          const dark = await barColours();
          // The bar is shown and the dark scheme applies to it.
          assert.match(dark, /^false /);
          assert.notEqual(dark, light);
          assert.deepEqual(await seriousViolations(page), []);
        } finally {
          await page.puppeteer!.emulateMediaFeatures([
            { name: "prefers-color-scheme", value: "" },
          ]);
        }
      });
    }

    await t.step("a text edit alone is still a per-item save", async () => {
      await focusItem(page, 1);
      await page.type("er");
      await page.press("s", ["Control"]);
      await waitState(page, "clean");
      assert.deepEqual(
        site.saves.map((s) => [s.body.field, s.body.value, s.status]),
        [["features.1", "Smaller", 204]],
      );
    });

    await t.step(
      "the bar shows only while the list has the focus",
      async () => {
        const bar = (i: number) =>
          page.evaluate((i: number) => {
            const bar = document.querySelector("cms-list")!.shadowRoot!
              .querySelector<HTMLElement>("[role=toolbar]")!;
            const b = bar.getBoundingClientRect();
            const r = document.querySelector(
              `[data-cms-field="pages:home:features.${i}"]`,
            )!.getBoundingClientRect();
            const gap = Math.min(
              Math.abs(b.bottom - r.top),
              Math.abs(b.top - r.bottom),
            );
            return {
              shown: getComputedStyle(bar).display !== "none",
              next: gap <= 8,
              focus: document.activeElement?.localName,
            };
          }, i);
        await page.click("h1");
        assert.deepEqual(await bar(1), {
          shown: false,
          next: false,
          focus: "h1",
        });
        await focusItem(page, 1);
        assert.deepEqual(await bar(1), {
          shown: true,
          next: true,
          focus: "li",
        });
        // The bar is next in the tab order; the focus in it keeps it shown.
        await page.press("Tab");
        assert.deepEqual(await bar(1), {
          shown: true,
          next: true,
          focus: "cms-list",
        });
        await page.click("h1");
        assert.equal((await bar(1)).shown, false);
      },
    );

    await t.step("by pointer: Add item after the current one", async () => {
      await focusItem(page, 0);
      // A real click: the focus stays in the item, then moves to the new
      // one, where typing goes.
      await page.click('cms-list >>> button[aria-label="Add item"]');
      await page.type("Safe");
      assert.deepEqual(await items(page), [
        [address(0), "Fast"],
        [address(1), "Safe"],
        [address(2), "Smaller"],
      ]);
      await waitState(page, "unsaved");
    });

    await t.step("by keyboard: Alt+ArrowDown, Enter, Backspace", async () => {
      await focusItem(page, 1);
      await page.press("ArrowDown", ["Alt"]);
      assert.deepEqual((await items(page)).map(([, s]) => s), [
        "Fast",
        "Smaller",
        "Safe",
      ]);
      // The moved item keeps the focus: a second move is refused at the end.
      await page.press("ArrowDown", ["Alt"]);
      await page.press("ArrowUp", ["Alt"]);
      await page.press("ArrowUp", ["Alt"]);
      assert.deepEqual((await items(page)).map(([, s]) => s), [
        "Safe",
        "Fast",
        "Smaller",
      ]);
      // Enter adds an item after the focused one (4 = max), Backspace in
      // the empty item removes it.
      await page.press("Enter");
      assert.equal((await items(page)).length, 4);
      assert.equal(await clickList(page, "Add item"), false, "at max 4");
      await page.press("Backspace");
      assert.deepEqual((await items(page)).map(([, s]) => s), [
        "Safe",
        "Fast",
        "Smaller",
      ]);
    });

    await t.step("by pointer: move up and remove", async () => {
      await focusItem(page, 2);
      assert.equal(await clickList(page, "Move item up"), true);
      assert.deepEqual((await items(page)).map(([, s]) => s), [
        "Safe",
        "Smaller",
        "Fast",
      ]);
      await focusItem(page, 0);
      assert.equal(await clickList(page, "Remove item"), true);
      assert.deepEqual(await items(page), [
        [address(0), "Smaller"],
        [address(1), "Fast"],
      ]);
    });

    await t.step("Save: one whole-list write; reload shows it", async () => {
      const before = site.saves.length;
      await page.press("s", ["Control"]);
      await waitState(page, "clean");
      const sent = site.saves.slice(before);
      assert.equal(sent.length, 1);
      assert.equal(sent[0].status, 204);
      assert.equal(sent[0].body.field, "features");
      assert.deepEqual(sent[0].body.value, ["Smaller", "Fast"]);
      assert.equal(sent[0].body.version, contentVersion(["Fast", "Smaller"]));
      assert.deepEqual(
        (await site.store.get("pages", "home"))?.features,
        ["Smaller", "Fast"],
      );
      await page.reload();
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.ready
      );
      assert.deepEqual(await items(page), [
        [address(0), "Smaller"],
        [address(1), "Fast"],
      ]);
      assert.equal(
        await page.evaluate(() =>
          document.querySelector<HTMLElement>("[data-cms-list]")!.dataset
            .cmsVersion
        ),
        contentVersion(["Smaller", "Fast"]),
      );
    });

    await t.step("limits: Remove is disabled at min 1", async () => {
      await focusItem(page, 0);
      assert.equal(await clickList(page, "Remove item"), true);
      await focusItem(page, 0);
      assert.equal(await clickList(page, "Remove item"), false, "at min 1");
      assert.deepEqual((await items(page)).map(([, s]) => s), ["Fast"]);
      await page.press("s", ["Control"]);
      await waitState(page, "clean");
      assert.deepEqual(
        (await site.store.get("pages", "home"))?.features,
        ["Fast"],
      );
    });
    await t.step("an unsaved list survives a reload", async () => {
      await page.reload();
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.ready
      );
      await focusItem(page, 0);
      await page.press("Enter");
      await page.type("Draft");
      await page.reload();
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.ready
      );
      assert.deepEqual(await items(page), [
        [address(0), "Fast"],
        [address(1), "Draft"],
      ]);
      await waitState(page, "unsaved");
      const before = site.saves.length;
      await page.press("s", ["Control"]);
      await waitState(page, "clean");
      assert.deepEqual(
        site.saves.slice(before).map((s) => [s.body.field, s.status]),
        [["features", 204]],
      );
      assert.deepEqual(
        (await site.store.get("pages", "home"))?.features,
        ["Fast", "Draft"],
      );
    });
    await page.close();
  },
);

const EMPTY = defineContent({
  pages: { title: "plain", features: list(plain(), { min: 0, max: 4 }) },
});

clientSiteTest(
  "lists: an empty list shows its bar, and Add item starts it",
  {
    pages: {
      "/": async (site) =>
        `<main>${
          renderToString(
            <CmsList
              content={EMPTY}
              field="pages:home:features"
              value={(await site.store.get("pages", "home"))
                ?.features as string[]}
              editing
            />,
          )
        }</main>`,
    },
    seed: { "pages:home": { title: "Hi", features: [] } },
    allowlist: EMPTY,
  },
  async (t, site, browser) => {
    const page = await browser.newPage();
    await open(page, site);
    await t.step("the bar is shown with no focus in the list", async () => {
      assert.equal(
        await page.evaluate(() =>
          getComputedStyle(
            document.querySelector("cms-list")!.shadowRoot!
              .querySelector("[role=toolbar]")!,
          ).display
        ),
        "flex",
      );
    });
    await t.step("a click on Add item, typing, Save", async () => {
      await page.click('cms-list >>> button[aria-label="Add item"]');
      await page.type("First");
      assert.deepEqual(await items(page), [[address(0), "First"]]);
      await page.press("s", ["Control"]);
      await waitState(page, "clean");
      assert.deepEqual(
        (await site.store.get("pages", "home"))?.features,
        ["First"],
      );
    });
    await page.close();
  },
);
