/**
 * Presence and live changes in the browser: two editors in two browser
 * contexts see each other in the edit bar and on the region being edited;
 * a save by one shows live on the other's clean region (undo still works
 * there); a region with unsaved edits gets "… saved this field" and the
 * conflict choice at once; a closed page leaves.
 *
 * Chromium: three demo instances on one PostgreSQL, the two contexts on
 * different instances. Firefox and WebKit: one demo instance.
 */
import assert from "node:assert/strict";
import { buildClient } from "../../tools/build_client.ts";
import { startDemo } from "../../demo/main.ts";
import { engineTest, type Page } from "../helpers/browser.ts";
import { DEMO_PASSWORD as PASSWORD } from "../helpers/demo.ts";
import { type Instances, spawnInstances } from "../helpers/instances.ts";
import { HAS_POSTGRES, startPostgres } from "../helpers/postgres.ts";

const HEARTBEAT_MS = 1000;
const WAIT = { timeout: 15_000 };

/** Gives `page` the system focus (focus events skip other windows). */
async function front(page: Page) {
  await page.puppeteer?.bringToFront();
}

async function editorPage(
  browser: { newPage(): Promise<Page> },
  url: string,
): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${url}/login`);
  await page.click("#password");
  await page.type(PASSWORD);
  await page.press("Enter");
  await page.waitFor(() => document.querySelector('a[href="/?edit"]'), WAIT);
  await page.goto(`${url}/?edit`);
  await page.waitFor("cms-edit-bar", WAIT);
  return page;
}

/** The avatars' accessible names in the edit bar. */
function waitForOthers(page: Page, count: number) {
  return page.waitFor(
    (count: number) => {
      const bar = document.querySelector("cms-edit-bar")?.shadowRoot;
      const strip = bar?.querySelector("cms-presence")?.shadowRoot;
      const people = [...strip?.querySelectorAll("[role=img]") ?? []];
      return people.length === count &&
        people.every((p) =>
          p.getAttribute("aria-label") === "Editor is here" &&
          p.getAttribute("title") === "Editor" && p.textContent === "E"
        );
    },
    WAIT,
    count,
  );
}

async function scenario(
  t: Deno.TestContext,
  browser: { newPage(): Promise<Page> },
  urlA: string,
  urlB: string,
) {
  const a = await editorPage(browser, urlA);
  let b: Page | undefined;
  try {
    b = await editorPage(browser, urlB);
    const pageB = b;
    await t.step("each sees the other in the bar", async () => {
      await waitForOthers(a, 1);
      await waitForOthers(pageB, 1);
    });

    // WebKit's WebDriver cannot give a window the system focus, so neither
    // focus events nor Ctrl+Z (native undo of plain regions) reach the
    // page it types into: those steps run in Chromium and Firefox.
    const focusable = a.engine !== "webkit";
    await t.step({
      name: "a focused region shows who edits it",
      ignore: !focusable,
      fn: async () => {
        await front(a);
        await a.click("h1");
        await pageB.waitFor(
          () =>
            document.querySelector("h1")?.getAttribute("data-cms-peer") ===
              "Editor is editing",
          WAIT,
        );
        const described = await pageB.evaluate(() =>
          document.querySelector("h1")!.getAttribute("aria-description")
        );
        assert.equal(described, "Editor is editing");
        // The ring leaves the outline to the region's own state marks.
        const ring = await pageB.evaluate(() =>
          getComputedStyle(document.querySelector("h1")!).boxShadow
        );
        assert.match(ring, /rgb\(122, 92, 255\)/);
      },
    });

    await t.step("a save shows live on the other's clean region", async () => {
      await a.click("h1");
      await a.press("End");
      await a.type(" live");
      await a.press("s", ["Control"]);
      await pageB.waitFor(
        () => document.querySelector("h1")!.textContent!.endsWith(" live"),
        WAIT,
      );
      // Both pages now hold the same version; B's field is clean.
      await a.waitFor(
        () =>
          !document.querySelector("h1")!.hasAttribute("data-cms-state") ||
          document.querySelector("h1")!.getAttribute("data-cms-state") ===
            "clean",
        WAIT,
      );
      const [va, vb] = await Promise.all(
        [a, pageB].map((p) =>
          p.evaluate(() => document.querySelector("h1")!.dataset.cmsVersion)
        ),
      );
      assert.equal(va, vb);
    });

    await t.step({
      name: "undo still works on the updated region",
      ignore: !focusable,
      fn: async () => {
        await front(pageB);
        await pageB.click("h1");
        await pageB.press("End");
        await pageB.type("Q");
        await pageB.waitFor(
          () => document.querySelector("h1")!.textContent!.endsWith(" liveQ"),
          WAIT,
        );
        await pageB.press("z", ["Control"]);
        await pageB.waitFor(
          () => document.querySelector("h1")!.textContent!.endsWith(" live"),
          WAIT,
        );
      },
    });

    await t.step(
      "a dirty region gets the notice and the conflict choice before saving",
      async () => {
        await pageB.click("li");
        await pageB.press("End");
        await pageB.type(" mine");
        await front(a);
        await a.click("li");
        await a.press("End");
        await a.type(" theirs");
        await a.press("s", ["Control"]);
        await pageB.waitFor(
          () =>
            document.querySelector("li")?.getAttribute("data-cms-peer") ===
              "Editor saved this field",
          WAIT,
        );
        await pageB.waitFor(
          () =>
            document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelector("dialog[open]"),
          WAIT,
        );
        // B's text is still there until B chooses.
        const mine = await pageB.evaluate(() =>
          document.querySelector("li")!.textContent
        );
        assert.match(mine!, / mine$/);
        await pageB.evaluate(() => {
          const dialog = document.querySelector("cms-edit-bar")!.shadowRoot!
            .querySelector("dialog[open]")!;
          const use = [...dialog.querySelectorAll("button")]
            .find((x) => x.textContent === "Use stored")!;
          use.click();
        });
        // The notice is gone; the other editor is still in the field.
        await pageB.waitFor(
          (focusable: boolean) =>
            document.querySelector("li")!.textContent!.endsWith(" theirs") &&
            (focusable
              ? document.querySelector("li")!.getAttribute("data-cms-peer") ===
                "Editor is editing"
              : document.querySelector("li")!.getAttribute("data-cms-peer") !==
                "Editor saved this field"),
          WAIT,
          focusable,
        );
      },
    );

    await t.step("a closed page leaves", async () => {
      await a.close();
      await waitForOthers(pageB, 0);
    });
  } finally {
    await a.close().catch(() => {});
    await b?.close();
  }
}

engineTest(
  "presence: two editors on two instances of one PostgreSQL",
  async (t, browser) => {
    await using pg = await startPostgres();
    const clientDir = await Deno.makeTempDir({ prefix: "cms-presence-c-" });
    let instances: Instances | undefined;
    try {
      await buildClient(clientDir);
      instances = await spawnInstances(3, await pg.database(), {
        CMS_CLIENT_DIR: clientDir,
        CMS_EVENTS_HEARTBEAT_MS: String(HEARTBEAT_MS),
      });
      const { sites } = instances;
      await scenario(t, browser, sites[0].url, sites[2].url);
    } finally {
      await instances?.close();
      await Deno.remove(clientDir, { recursive: true });
    }
  },
  ["chromium"],
  !HAS_POSTGRES, // its tests need PostgreSQL
);

engineTest(
  "presence: two editors on one instance",
  async (t, browser) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-presence-1-" });
    const demo = await startDemo({
      port: 0,
      dataDir,
      password: PASSWORD,
      eventsHeartbeatMs: HEARTBEAT_MS,
    });
    try {
      await scenario(t, browser, demo.url, demo.url);
    } finally {
      await demo.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
  ["firefox", "webkit"],
);
