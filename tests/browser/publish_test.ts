/**
 * Draft mode in the browser, on the demo (`publishMode: "draft"`), in
 * Chromium, Firefox and WebKit: edit and see the draft mark, Publish and a
 * visitor sees the value; Discard; a preview link in a fresh context.
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/main.ts";
import { engineTest, type Page } from "../helpers/browser.ts";
import { editInBrowser } from "../helpers/demo.ts";

const PASSWORD = "correct horse battery staple";

/** Clicks the edit bar button whose text starts with `label`. */
function clickBar(page: Page, label: string) {
  return page.evaluate((label) => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const button = [...root.querySelectorAll("button")]
      .find((b) => b.textContent!.startsWith(label));
    if (!button) throw new Error(`no ${label} button`);
    button.click();
  }, label);
}

/** The edit bar's status text, primary button and toast text. */
function barView(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const toast = root.querySelector<HTMLElement>(".n")!;
    return {
      status: root.querySelector("[aria-live]")!.textContent,
      primary: [...root.querySelectorAll("button.p")].map((b) => b.textContent),
      toast: toast.hidden ? "" : toast.textContent,
      toastButtons: [...toast.querySelectorAll("button")].map((b) =>
        b.textContent
      ),
    };
  });
}

function barHas(page: Page, label: string) {
  return page.waitFor(
    (label: string) => {
      const root = document.querySelector("cms-edit-bar")?.shadowRoot;
      return [...root?.querySelectorAll("button") ?? []]
        .some((b) => b.textContent === label);
    },
    { timeout: 10_000 },
    label,
  );
}

engineTest(
  "drafts: mark, publish, discard, preview link",
  async (t, browser) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-pubb-" });
    const demo = await startDemo({
      port: 0,
      dataDir,
      password: PASSWORD,
      publishMode: "draft",
    });
    const visitor = async () => await (await fetch(`${demo.url}/`)).text();
    const page = await browser.newPage();
    try {
      await editInBrowser(page, demo.url);

      await t.step(
        "edit: the field is marked as a draft; visitors don't see it",
        async () => {
          // At once, as a quick editor would: the draft mark must not
          // depend on the drafts chunk having loaded first.
          await page.waitFor("cms-edit-bar");
          await page.click("h1");
          await page.press("End");
          await page.type(" now");
          await page.press("s", ["Control"]);
          await page.waitFor(
            () => document.querySelector("h1[data-cms-draft]"),
            {
              timeout: 10_000,
            },
          );
          await barHas(page, "Publish (1)");
          await page.waitFor(
            () =>
              document.querySelector("cms-edit-bar")!.shadowRoot!
                .querySelector("[aria-live]")!.textContent ===
                "1 unpublished change",
            { timeout: 10_000 },
          );
          const view = await barView(page);
          assert.deepEqual(view.primary, ["Publish (1)"], "Publish leads");
          assert.doesNotMatch(await visitor(), /in place now/);
        },
      );

      await t.step(
        "Publish: the mark goes, a visitor sees the value",
        async () => {
          await clickBar(page, "Publish (");
          await page.waitFor(
            () => !document.querySelector("[data-cms-draft]"),
            {
              timeout: 10_000,
            },
          );
          assert.match(await visitor(), /Edit this page in place now/);
          // The marks may go first on the event stream's `published`; the
          // toast comes with the publish's own answer.
          await page.waitFor(
            () =>
              /Published:/.test(
                document.querySelector("cms-edit-bar")!.shadowRoot!
                  .textContent!,
              ),
            { timeout: 10_000 },
          );
          const view = await barView(page);
          assert.match(view.toast!, /^Published: Title\./);
          assert.deepEqual(view.toastButtons, ["View as visitor", "OK"]);
          assert.equal(view.status, "All changes saved");
          assert.deepEqual(view.primary, ["Save"], "Save leads again");
        },
      );

      await t.step(
        "Discard: the draft goes, the published value is back",
        async () => {
          // Clear of the edit bar, which the toast after a publish makes
          // taller: WebDriver scrolls a target only to the window's edge.
          await page.evaluate(() =>
            document.querySelector("li")!.scrollIntoView({ block: "center" })
          );
          await page.click("li");
          await page.press("End");
          await page.type(" zz");
          await page.press("s", ["Control"]);
          await barHas(page, "Publish (1)");
          await page.evaluate(() => {
            globalThis.confirm = () => true;
          });
          await clickBar(page, "Discard");
          await page.waitFor(
            () =>
              document.querySelector("cms-edit-bar") &&
              !document.querySelector("li")!.textContent!.includes("zz"),
            { timeout: 15_000 },
          );
          assert.doesNotMatch(await visitor(), / zz/);
        },
      );

      await t.step(
        "a preview link in a fresh context shows the draft",
        async () => {
          await page.click("h1");
          await page.press("End");
          await page.type(" preview");
          await page.press("s", ["Control"]);
          await barHas(page, "Publish (1)");
          const link = await page.evaluate(async () => {
            const res = await fetch("/api/cms/preview", {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ path: "/" }),
            });
            return (await res.json()).url as string;
          });
          const other = await browser.newPage();
          try {
            await other.goto(link);
            const h1 = await other.evaluate(() =>
              document.querySelector("h1")!.textContent
            );
            // What the editor saved (the bar said Publish (1)).
            const saved = await page.evaluate(() =>
              document.querySelector("h1")!.textContent
            );
            assert.match(saved!, /preview$/);
            assert.equal(h1, saved);
            assert.equal(
              await other.evaluate(() =>
                !!document.querySelector("[data-cms-field]")
              ),
              false,
            );
            await other.goto(link.replace(/.$/, (c) => c === "A" ? "B" : "A"));
            const denied = await other.evaluate(() => document.title);
            assert.equal(denied, "Forbidden");
          } finally {
            await other.close();
          }
          assert.doesNotMatch(await visitor(), /now preview/);
        },
      );
    } finally {
      await page.close();
      await demo.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
);
