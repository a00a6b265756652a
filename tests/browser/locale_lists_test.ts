/**
 * Lists in a locale, with drafts, in Chromium, on the demo with locales
 * `en,de` in publish mode `draft`: an English whole-list draft is not
 * marked on `/de/`; translating the list German shows from English is one
 * whole-list write (no 409, no conflict dialog); the list's bar and keys
 * work on `/de/`; the German list's draft is marked, counted and published
 * from its page (also after a reload), and `/` keeps English.
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/main.ts";
import { engineTest, type Page } from "../helpers/browser.ts";
import { DEMO_PASSWORD, editInBrowser } from "../helpers/demo.ts";

const WAIT = { timeout: 15_000 };
const GERMAN = ["Eins", "Zwei", "Drei", "Vier"];

/** The page's list items' texts and addresses. */
function items(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("[data-cms-list] > [data-cms-field]")].map(
      (e) => `${e.getAttribute("data-cms-field")} ${e.textContent}`,
    )
  );
}

/** The bar's status, Publish button, open dialog, and the draft marks. */
function state(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    return {
      status: root.querySelector("[aria-live]")!.textContent,
      publish: [...root.querySelectorAll("button")]
        .map((b) => b.textContent!).find((t) => t.startsWith("Publish (")) ??
        "",
      dialog: !!root.querySelector("dialog[open]"),
      marks: [...document.querySelectorAll("[data-cms-draft]")].map((el) =>
        el.getAttribute("data-cms-field") ?? el.getAttribute("data-cms-list")
      ),
    };
  });
}

/** Focuses item `i` with the caret at its end (`all`: its text selected). */
function focusItem(page: Page, i: number, all = false) {
  return page.evaluate(
    (i: number, all: boolean) => {
      const item = document.querySelectorAll<HTMLElement>(
        "[data-cms-list] > [data-cms-field]",
      )[i];
      item.focus();
      getSelection()!.selectAllChildren(item);
      if (!all) getSelection()!.collapseToEnd();
    },
    i,
    all,
  );
}

/** The list bar's buttons: label → enabled. */
function listButtons(page: Page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelector("cms-list")!.shadowRoot!.querySelectorAll(
        "button",
      )].map((b) => [b.getAttribute("aria-label"), !b.disabled]),
    )
  );
}

/** Records the page's save requests (body, status) from now on. */
function recordSaves(page: Page) {
  return page.evaluate(() => {
    const w = globalThis as unknown as {
      saves: { body: unknown; status: number }[];
    };
    const installed = !!w.saves;
    w.saves = [];
    if (installed) return;
    const real = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const res = await real(input, init);
      if (init?.method === "PATCH") {
        w.saves.push({
          body: JSON.parse(String(init.body)),
          status: res.status,
        });
      }
      return res;
    };
  });
}

/** The recorded save requests. */
function saves(page: Page) {
  return page.evaluate(() =>
    (globalThis as unknown as {
      saves: { body: { field: string; value: unknown }; status: number }[];
    }).saves
  );
}

/** Saves with Ctrl+S and waits until every change is saved. */
async function save(page: Page) {
  await page.press("s", ["Control"]);
  await page.waitFor(
    () =>
      document.querySelector("cms-edit-bar")!.shadowRoot!.querySelector(
        "dialog[open]",
      ) ||
      /unpublished change/.test(
        document.querySelector("cms-edit-bar")!.shadowRoot!
          .querySelector("[aria-live]")!.textContent!,
      ),
    WAIT,
  );
}

engineTest(
  "locale lists: controls, per-locale drafts, one write from the fallback, publish",
  async (t, browser) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-locale-lists-" });
    const demo = await startDemo({
      port: 0,
      dataDir,
      password: DEMO_PASSWORD,
      locales: ["en", "de"],
      publishMode: "draft",
    });
    const page = await browser.newPage();
    try {
      await editInBrowser(page, demo.url);
      const english = await (await fetch(`${demo.url}/`)).text();

      await t.step("English: a whole-list draft of 4 items", async () => {
        await page.waitFor(() => document.querySelector("cms-list"), WAIT);
        await focusItem(page, 2);
        await page.press("Enter");
        await page.type("Fourth");
        await save(page);
        const s = await state(page);
        assert.deepEqual(s.marks, ["pages:home:features"]);
        assert.equal(s.publish, "Publish (1)");
        assert.equal((await items(page)).length, 4);
      });

      await page.goto(`${demo.url}/de/?edit`);
      await page.waitFor(
        () =>
          document.querySelector("cms-list") &&
          document.querySelector("cms-edit-bar")?.shadowRoot?.querySelector(
            "cms-locales",
          ),
        WAIT,
      );

      await t.step("German: the English draft is not marked here", async () => {
        // The publish chunk has read the drafts listing once it counts the
        // English draft as another page's (marks are painted in the same
        // turn).
        await page.waitFor(
          () =>
            [...document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelectorAll("button")].some((b) =>
                b.textContent === "1 draft on other pages"
              ),
          WAIT,
        );
        const s = await state(page);
        assert.deepEqual(s.marks, []);
        assert.equal(s.publish, "");
        assert.deepEqual(
          (await items(page)).map((x) => x.split(" ")[0]),
          [0, 1, 2, 3].map((i) => `pages:home:features@de.${i}`),
        );
      });

      await t.step(
        "translating the list shown from English: one write, no 409",
        async () => {
          await recordSaves(page);
          for (const [i, text] of GERMAN.entries()) {
            await focusItem(page, i, true);
            await page.type(text);
          }
          await save(page);
          const sent = await saves(page);
          assert.deepEqual(
            sent.map((x) => [x.body.field, x.body.value, x.status]),
            [["features@de", GERMAN, 204]],
          );
          const s = await state(page);
          assert.equal(s.dialog, false);
          assert.equal(s.status, "1 unpublished change");
          assert.deepEqual(s.marks, ["pages:home:features@de"]);
          assert.equal(s.publish, "Publish (1)");
          // Translated: no longer marked "not translated yet".
          assert.equal(
            await page.evaluate(() =>
              document.querySelector("[data-cms-list]")!.hasAttribute(
                "data-cms-untranslated",
              )
            ),
            false,
          );
        },
      );

      await t.step("the list bar and keys work on /de/", async () => {
        await focusItem(page, 1);
        assert.deepEqual(await listButtons(page), {
          "Move item up": true,
          "Move item down": true,
          "Remove item": true,
          "Add item": true,
        });
        await page.press("ArrowDown", ["Alt"]);
        await page.waitFor(
          () =>
            document.querySelectorAll("[data-cms-list] > [data-cms-field]")[2]
              .textContent === "Zwei",
          WAIT,
        );
        await page.press("ArrowUp", ["Alt"]);
        await page.press("ArrowUp", ["Alt"]);
        await page.waitFor(
          () =>
            document.querySelectorAll("[data-cms-list] > [data-cms-field]")[0]
              .textContent === "Zwei",
          WAIT,
        );
        await focusItem(page, 3);
        await page.evaluate(() =>
          document.querySelector("cms-list")!.shadowRoot!.querySelector<
            HTMLButtonElement
          >('button[aria-label="Remove item"]')!.click()
        );
        await recordSaves(page);
        await save(page);
        const sent = await saves(page);
        assert.deepEqual(
          sent.map((x) => [x.body.field, x.body.value, x.status]),
          [["features@de", ["Zwei", "Eins", "Drei"], 204]],
        );
        assert.equal((await state(page)).publish, "Publish (1)");
      });

      await t.step(
        "after a reload the German draft is marked and counted",
        async () => {
          await page.reload();
          await page.waitFor(
            () => document.querySelector("[data-cms-list][data-cms-draft]"),
            WAIT,
          );
          const s = await state(page);
          assert.deepEqual(s.marks, ["pages:home:features@de"]);
          assert.equal(s.publish, "Publish (1)");
          assert.equal(s.status, "1 unpublished change");
          assert.deepEqual(
            (await items(page)).map((x) => x.split(" ")[1]),
            ["Zwei", "Eins", "Drei"],
          );
        },
      );

      await t.step("Publish on /de/ publishes the German list", async () => {
        await page.evaluate(() =>
          [
            ...document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelectorAll("button"),
          ].find((b) => b.textContent === "Publish (1)")!.click()
        );
        await page.waitFor(
          () => !document.querySelector("[data-cms-draft]"),
          WAIT,
        );
        const de = await (await fetch(`${demo.url}/de/`)).text();
        for (const text of ["Zwei", "Eins", "Drei"]) {
          assert.match(de, new RegExp(`<li[^>]*>${text}</li>`));
        }
        assert.doesNotMatch(de, /Vier|Fourth/);
        // English: the English draft is still a draft.
        assert.equal(await (await fetch(`${demo.url}/`)).text(), english);
      });

      await t.step("English: its own draft is still marked", async () => {
        await page.goto(`${demo.url}/?edit`);
        await page.waitFor(
          () => document.querySelector("[data-cms-list][data-cms-draft]"),
          WAIT,
        );
        assert.equal((await state(page)).publish, "Publish (1)");
      });
    } finally {
      await page.close();
      await demo.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
  ["chromium"],
);
