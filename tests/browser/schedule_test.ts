/**
 * "Publish at…" in the browser, on the demo (`publishMode: "draft"`), in
 * Chromium, Firefox and WebKit: a draft is scheduled for a local time
 * (sent in UTC), its field is marked, the dialog lists the schedule, and
 * Cancel removes it and the mark. With more schedules than one page of
 * the listing, the dialog lists them all (it follows the pages), and a
 * failed one shows its reason.
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/main.ts";
import { engineTest, type Page } from "../helpers/browser.ts";
import { DEMO_PASSWORD, editInBrowser } from "../helpers/demo.ts";
import type { ScheduleListing } from "../../core/protocol/mod.ts";
import { KvContentStore } from "../../server/store/kv/mod.ts";

const DIALOG = "cms-schedule";

/** Clicks the button whose text is `label` in the shadow root of `host`. */
async function clickIn(page: Page, host: string, label: string) {
  // The button may come with a lazy chunk: wait for it (bounded), then click.
  await page.waitFor(
    (host, label) =>
      [
        ...document.querySelector(host)?.shadowRoot?.querySelectorAll(
          "button",
        ) ?? [],
      ]
        .some((b) => b.textContent === label),
    { timeout: 10_000 },
    host,
    label,
  );
  return page.evaluate(
    (host, label) => {
      const root = document.querySelector(host)!.shadowRoot!;
      const button = [...root.querySelectorAll("button")]
        .find((b) => b.textContent === label);
      if (!button) throw new Error(`no ${label} button`);
      button.click();
    },
    host,
    label,
  );
}

/** The schedules as the editor's session lists them. */
function listing(page: Page): Promise<ScheduleListing> {
  return page.evaluate(async () =>
    await (await fetch("/api/cms/schedule")).json()
  );
}

engineTest(
  "publish at: schedule in local time, mark, list, cancel",
  async (t, browser) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-schedb-" });
    const demo = await startDemo({
      port: 0,
      dataDir,
      password: DEMO_PASSWORD,
      publishMode: "draft",
    });
    const page = await browser.newPage();
    try {
      await editInBrowser(page, demo.url);

      await t.step("a draft is scheduled for a local time", async () => {
        await page.click("h1");
        await page.press("End");
        await page.type(" later");
        await page.press("s", ["Control"]);
        await page.waitFor(() => document.querySelector("h1[data-cms-draft]"), {
          timeout: 10_000,
        });
        await clickIn(page, "cms-edit-bar", "Publish at…");
        await page.waitFor(
          (sel) =>
            document.querySelector(sel)?.shadowRoot?.querySelector(
              "dialog[open]",
            ),
          { timeout: 10_000 },
          DIALOG,
        );
        // The picker has the focus; a time two days ahead, at 09:30 local.
        const local = await page.evaluate((sel) => {
          const root = document.querySelector(sel)!.shadowRoot!;
          const input = root.activeElement as HTMLInputElement;
          if (input?.type !== "datetime-local") throw new Error("no focus");
          const d = new Date(Date.now() + 2 * 86400_000);
          const p = (n: number) => String(n).padStart(2, "0");
          input.value = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${
            p(d.getDate())
          }T09:30`;
          return input.value;
        }, DIALOG);
        const expected = await page.evaluate(
          (v) => new Date(v).toISOString(),
          local,
        );
        await clickIn(page, DIALOG, "Schedule");
        await page.waitFor(
          () => document.querySelector("h1[data-cms-scheduled]"),
          { timeout: 10_000 },
        );
        await page.waitFor((sel) => !document.querySelector(sel), {}, DIALOG);
        const { schedules } = await listing(page);
        assert.equal(schedules.length, 1);
        assert.equal(schedules[0].at, expected);
        assert.deepEqual(schedules[0].fields, ["pages:home:title"]);
        assert.equal(schedules[0].state, "pending");
      });

      await t.step("the dialog lists it; Cancel removes it", async () => {
        await clickIn(page, "cms-edit-bar", "Publish at…");
        await page.waitFor(
          (sel) =>
            document.querySelector(sel)?.shadowRoot?.querySelector("li button"),
          { timeout: 10_000 },
          DIALOG,
        );
        // The row names the field as people read it, not a count.
        const row = await page.evaluate(
          (sel) =>
            document.querySelector(sel)!.shadowRoot!.querySelector("li span")!
              .textContent,
          DIALOG,
        );
        assert.match(row!, / · Title · Editor$/);
        await clickIn(page, DIALOG, "Cancel");
        await page.waitFor(
          () => !document.querySelector("h1[data-cms-scheduled]"),
          { timeout: 10_000 },
        );
        assert.deepEqual((await listing(page)).schedules, []);
        // The draft itself stays.
        assert.ok(
          await page.evaluate(() =>
            !!document.querySelector("h1[data-cms-draft]")
          ),
        );
      });
    } finally {
      await page.close();
      await demo.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
);

engineTest(
  "publish at: the dialog lists every page of schedules, failed ones with their reason",
  async (_t, browser) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-schedp-" });
    // 120 schedules (a listing page holds 100): 119 of the body, then the
    // latest, of the title, failed, on the second page.
    const kv = await Deno.openKv(`${dataDir}/content.kv`);
    const store = new KvContentStore(kv);
    const base = Date.now() + 86400_000;
    for (let i = 0; i < 120; i++) {
      const last = i === 119;
      const at = new Date(base + i * 60_000).toISOString();
      await store.addSchedule({
        id: `s${String(i).padStart(3, "0")}`,
        at,
        fields: [{
          collection: "pages",
          key: "home",
          field: last ? "title" : "body",
        }],
        editor: "Editor",
        created: at,
      });
      if (last) {
        await store.failSchedule("s119", {
          at,
          reason: "Refused by the store: record too large",
        });
      }
    }
    kv.close();
    const demo = await startDemo({
      port: 0,
      dataDir,
      password: DEMO_PASSWORD,
      publishMode: "draft",
    });
    const page = await browser.newPage();
    try {
      await editInBrowser(page, demo.url);
      assert.ok((await listing(page)).next, "the listing has a second page");
      await clickIn(page, "cms-edit-bar", "Publish at…");
      await page.waitFor(
        (sel) =>
          document.querySelector(sel)?.shadowRoot?.querySelectorAll("li")
            .length === 120,
        { timeout: 10_000 },
        DIALOG,
      );
      const rows = await page.evaluate(
        (sel) =>
          [...document.querySelector(sel)!.shadowRoot!.querySelectorAll("li")]
            .map((li) => li.textContent ?? ""),
        DIALOG,
      );
      assert.match(
        rows[119],
        /Not published: Refused by the store: record too large/,
      );
      assert.match(rows[119], /Dismiss/);
    } finally {
      await page.close();
      await demo.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
  ["chromium"],
);
