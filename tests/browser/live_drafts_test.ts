/**
 * Draft mode and lists, live, in the browser: two editors on one demo
 * (publish mode `draft`). A's draft shows on B's page as a draft mark with
 * Publish and "1 unpublished change"; A's publish, and a schedule firing,
 * clear them on B's page without a reload; a schedule that fails shows its
 * reason on B's page; A's whole-list save re-renders B's list.
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/main.ts";
import { engineTest, type Page } from "../helpers/browser.ts";
import { DEMO_PASSWORD, editInBrowser } from "../helpers/demo.ts";

const WAIT = { timeout: 15_000 };

/** B's bar: its status, whether Publish is offered, its toast. */
function bar(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const toast = root.querySelector<HTMLElement>(".n")!;
    return {
      status: root.querySelector("[aria-live]")!.textContent,
      publish: [...root.querySelectorAll("button")]
        .some((b) => b.textContent!.startsWith("Publish (")),
      toast: toast.hidden ? "" : toast.textContent!,
    };
  });
}

/** Waits until B's title is marked (or not) and its bar says so. */
async function drafted(page: Page, on: boolean) {
  await page.waitFor(
    (on: boolean) => {
      const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
      const status = root.querySelector("[aria-live]")!.textContent;
      const publish = [...root.querySelectorAll("button")]
        .some((b) => b.textContent === "Publish (1)");
      return !!document.querySelector("h1[data-cms-draft]") === on &&
        publish === on && (status === "1 unpublished change") === on;
    },
    WAIT,
    on,
  );
}

/** A schedules the title for `inMs` from now; answers the status. */
function schedule(page: Page, inMs: number, version?: string) {
  return page.evaluate(
    async (inMs: number, version?: string) => {
      const field = "pages:home:title";
      const res = await fetch("/api/cms/publish", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          at: new Date(Date.now() + inMs).toISOString(),
          fields: [field],
          ...(version ? { versions: { [field]: version } } : {}),
        }),
      });
      return res.status;
    },
    inMs,
    version,
  );
}

/** A types `text` at the end of the title and saves (a draft). */
async function draftTitle(page: Page, text: string) {
  await page.puppeteer?.bringToFront();
  await page.click("h1");
  await page.press("End");
  await page.type(text);
  await page.press("s", ["Control"]);
  await page.waitFor(() => document.querySelector("h1[data-cms-draft]"), WAIT);
}

/**
 * Focuses the first (or last) list item with the caret at its end, from
 * script: a toast may cover the list, and WebKit refuses a covered click.
 */
function focusItem(page: Page, last = false) {
  return page.evaluate((last: boolean) => {
    const all = document.querySelectorAll<HTMLElement>(
      "[data-cms-list] > [data-cms-field]",
    );
    const item = all[last ? all.length - 1 : 0];
    item.focus();
    getSelection()!.selectAllChildren(item);
    getSelection()!.collapseToEnd();
  }, last);
}

/** Clicks the list bar's button named `label`. */
function listButton(page: Page, label: string) {
  return page.evaluate((label: string) => {
    const root = document.querySelector("cms-list")!.shadowRoot!;
    root.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)!
      .click();
  }, label);
}

/** The list items' texts. */
function items(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("[data-cms-list] > [data-cms-field]")]
      .map((e) => e.textContent!)
  );
}

engineTest(
  "live drafts: publishes and schedules clear another editor's marks; lists follow",
  async (t, browser) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-live-drafts-" });
    const demo = await startDemo({
      port: 0,
      dataDir,
      password: DEMO_PASSWORD,
      publishMode: "draft",
      schedulePollMs: 200,
      eventsHeartbeatMs: 1000,
    });
    const a = await browser.newPage();
    const b = await browser.newPage();
    try {
      await editInBrowser(a, demo.url);
      await editInBrowser(b, demo.url);
      // Both streams are open once each sees the other.
      for (const page of [a, b]) {
        await page.waitFor(() => {
          const bar = document.querySelector("cms-edit-bar")?.shadowRoot;
          const strip = bar?.querySelector("cms-presence")?.shadowRoot;
          return strip?.querySelectorAll("[role=img]").length === 1;
        }, WAIT);
      }

      await t.step("A's draft is marked on B's page", async () => {
        await draftTitle(a, " one");
        await drafted(b, true);
      });

      await t.step("A publishes: B's mark and count go", async () => {
        await a.evaluate(() => {
          const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
          [...root.querySelectorAll("button")]
            .find((x) => x.textContent!.startsWith("Publish ("))!.click();
        });
        await drafted(b, false);
        assert.equal((await bar(b)).status, "All changes saved");
      });

      await t.step("a schedule fires: B's mark and count go", async () => {
        await draftTitle(a, " two");
        await drafted(b, true);
        assert.equal(await schedule(a, 800), 202);
        await drafted(b, false);
        assert.equal((await bar(b)).publish, false);
      });

      await t.step(
        "a failed schedule shows its reason on B's page",
        async () => {
          await draftTitle(a, " three");
          await drafted(b, true);
          assert.equal(await schedule(a, 500, "stale-version"), 202);
          await b.waitFor(() => {
            const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
            const toast = root.querySelector<HTMLElement>(".n")!;
            return !toast.hidden && /^Not published: Conflict/.test(
              toast.textContent!,
            );
          }, WAIT);
          // Nothing went live: B's draft mark stays.
          assert.equal((await bar(b)).publish, true);
        },
      );

      await t.step("A's whole-list save re-renders B's list", async () => {
        const before = (await items(b)).length;
        // Add an item after the first through the list bar (the focus
        // moves to it), then type into it.
        await a.puppeteer?.bringToFront();
        await focusItem(a);
        await listButton(a, "Add item");
        await a.type("Live item");
        await a.press("s", ["Control"]);
        await b.waitFor(
          (n: number) => {
            const items = [
              ...document.querySelectorAll(
                "[data-cms-list] > [data-cms-field]",
              ),
            ];
            return items.length === n + 1 &&
              items[1].textContent === "Live item" &&
              items[1].getAttribute("data-cms-field")!.endsWith(".1");
          },
          WAIT,
          before,
        );
      });

      await t.step(
        "B's unsaved list edit meets A's next whole-list save as the conflict choice",
        async () => {
          await b.puppeteer?.bringToFront();
          await focusItem(b);
          await b.type(" mine");
          // A removes its last item (a whole-list write) and saves.
          await a.puppeteer?.bringToFront();
          await focusItem(a, true);
          await listButton(a, "Remove item");
          await a.press("s", ["Control"]);
          const theirs = await items(a);
          await b.waitFor(
            () =>
              document.querySelector("cms-edit-bar")!.shadowRoot!
                .querySelector("dialog[open]"),
            WAIT,
          );
          // B's edit stays until B chooses.
          assert.match((await items(b))[0], / mine$/);
          await b.evaluate(() => {
            const dialog = document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelector("dialog[open]")!;
            [...dialog.querySelectorAll("button")]
              .find((x) => x.textContent === "Use stored")!.click();
          });
          await b.waitFor(
            (want: string[]) =>
              JSON.stringify(
                [
                  ...document.querySelectorAll(
                    "[data-cms-list] > [data-cms-field]",
                  ),
                ].map((e) => e.textContent),
              ) === JSON.stringify(want),
            WAIT,
            theirs,
          );
        },
      );
    } finally {
      await a.close();
      await b.close();
      await demo.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
);
