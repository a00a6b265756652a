/**
 * Browser tests of "Choose from library" in Chromium, Firefox and WebKit:
 * the image field's panel opens the library dialog (keyboard only), which
 * lists the stored uploads with their alt texts, searches by alt text and
 * by file name, and choosing one shows the stored image with its variants
 * in the field with no new upload; the URL is then saved like any field.
 * A file deleted between listing and choosing is refused in the dialog.
 */
import assert from "node:assert/strict";
import type { Page } from "../helpers/browser.ts";
import { clientSiteTest, photo, waitState } from "../helpers/client_page.ts";

const OLD = "/media/old.png";
const IMG = "img[data-cms-field]";
const PANEL = "cms-image-field";
const LIBRARY = "cms-media-library";

/** The library dialog's options: file name and alt line, in order. */
const options = (page: Page) =>
  page.evaluate((sel) =>
    [
      ...(document.querySelector(sel)?.shadowRoot?.querySelectorAll(
        "[role=option]",
      ) ?? []),
    ].map((li) => ({
      text: li.querySelector("span")?.firstChild?.textContent ?? "",
      selected: li.getAttribute("aria-selected"),
    })), LIBRARY);

/** Waits until the dialog lists exactly `names` (file names, in order). */
const listed = (page: Page, names: string[]) =>
  page.waitFor(
    (sel, want) => {
      const got = [
        ...(document.querySelector(sel)?.shadowRoot?.querySelectorAll(
          "[role=option] span",
        ) ?? []),
      ].map((s) => s.firstChild?.textContent);
      return JSON.stringify(got) === want &&
        !document.querySelector(sel)?.shadowRoot?.querySelector("[aria-busy]");
    },
    { timeout: 10000 },
    LIBRARY,
    JSON.stringify(names),
  );

/** Waits until the dialog lists `n` options and no search is pending. */
const optionCount = (page: Page, n: number) =>
  page.waitFor(
    (sel, n) =>
      (document.querySelector(sel)?.shadowRoot?.querySelectorAll(
        "[role=listbox]:not([aria-busy]) [role=option]",
      ).length ?? 0) === n,
    { timeout: 10000 },
    LIBRARY,
    n,
  );

clientSiteTest(
  "media library: list, search by alt and name, reuse (keyboard)",
  {
    seed: {
      "pages:home": {
        title: "Hello",
        hero: OLD,
        body: `<p><img src="/media/sunset.jpg" alt="Sunset over the sea"></p>`,
      },
    },
    allowlist: { pages: { title: "plain", hero: "image", body: "rich" } },
    pages: {
      "/": () =>
        `<p data-cms-field="pages:home:title">Hello</p><img data-cms-field="pages:home:hero" data-cms-type="image" src="${OLD}" width="40" height="30" alt="A hill">`,
    },
  },
  async (t, site, browser) => {
    const jpeg = await photo(1200, 800);
    const small = await photo(480, 320);
    for (const name of ["sunset", "river"]) {
      await site.media.put(`${name}.jpg`, jpeg, "image/jpeg");
      await site.media.put(`${name}-480w.jpg`, small, "image/jpeg");
    }
    const page = await browser.newPage();
    try {
      await page.goto(site.url + "/");
      await page.waitFor("cms-edit-bar");

      await t.step("the panel's library button opens the dialog", async () => {
        await page.evaluate(
          (sel) => (document.querySelector(sel) as HTMLElement).focus(),
          IMG,
        );
        await page.press("Enter");
        await page.waitFor(PANEL);
        // Replace has the focus; Tab to "Choose from library", Enter.
        await page.press("Tab");
        const focused = await page.evaluate(
          (p) =>
            document.querySelector(p)!.shadowRoot!.activeElement?.textContent,
          PANEL,
        );
        assert.equal(focused, "Choose from library");
        await page.press("Enter");
        await page.waitFor(LIBRARY, { timeout: 10000 });
        const all = ["river.jpg", "sunset.jpg"];
        await optionCount(page, 2);
        const names = (await options(page)).map((o) => o.text).sort();
        assert.deepEqual(names, all);
        const alts = await page.evaluate(
          (sel) =>
            [
              ...document.querySelector(sel)!.shadowRoot!.querySelectorAll(
                "[role=option] small",
              ),
            ].map((s) => s.textContent),
          LIBRARY,
        );
        assert.ok(alts.includes("Sunset over the sea"));
      });

      await t.step("search by alt text, then by file name", async () => {
        // The search field has the focus.
        await page.type("SUNSET OVER");
        await listed(page, ["sunset.jpg"]);
        for (let i = 0; i < 11; i++) await page.press("Backspace");
        await page.type("river");
        await listed(page, ["river.jpg"]);
        for (let i = 0; i < 5; i++) await page.press("Backspace");
        await page.type(".jpg");
        await optionCount(page, 2);
      });

      await t.step("arrows move, Enter reuses the stored image", async () => {
        const before = await options(page);
        assert.equal(before[0].selected, "true");
        await page.press("ArrowDown");
        const after = await options(page);
        assert.deepEqual(after.map((o) => o.selected), ["false", "true"]);
        const chosen = after[1].text;
        await page.press("Enter");
        await page.waitFor(
          (sel, src) =>
            document.querySelector(sel)!.getAttribute("src") === src,
          { timeout: 10000 },
          IMG,
          `/media/${chosen}`,
        );
        const a = await page.evaluate((sel) => {
          const img = document.querySelector(sel)!;
          return Object.fromEntries(
            [...img.attributes].map((x) => [x.name, x.value]),
          );
        }, IMG);
        assert.equal(a.width, "1200");
        assert.equal(a.height, "800");
        assert.equal(a.alt, "A hill", "the host's alt text stays");
        const stem = chosen.replace(/\.jpg$/, "");
        assert.equal(
          a.srcset,
          `/media/${stem}-480w.jpg 480w, /media/${chosen} 1200w`,
        );
        await page.waitFor((sel) => !document.querySelector(sel), {}, LIBRARY);
        assert.deepEqual(site.uploads, [], "no new upload");
        await waitState(page, "unsaved");
        await page.press("s", ["Control"]);
        await waitState(page, "clean");
        assert.equal(
          (await site.store.get("pages", "home"))?.hero,
          `/media/${chosen}`,
        );
        assert.deepEqual(site.uploads, []);
      });

      await t.step(
        "choosing a file deleted meanwhile is refused, in view",
        async () => {
          await page.evaluate(
            (sel) => (document.querySelector(sel) as HTMLElement).focus(),
            IMG,
          );
          await page.press("Enter");
          await page.waitFor(PANEL);
          await page.press("Tab");
          await page.press("Enter");
          await page.waitFor(LIBRARY, { timeout: 10000 });
          await optionCount(page, 2);
          const first = (await options(page))[0].text;
          await site.media.delete(first);
          await page.press("Enter");
          await page.waitFor(
            (sel) =>
              /no longer stored/.test(
                document.querySelector(sel)?.shadowRoot?.querySelector(
                  "[role=status]",
                )?.textContent ?? "",
              ),
            { timeout: 10000 },
            LIBRARY,
          );
          assert.notEqual(
            await page.evaluate(
              (sel) => document.querySelector(sel)!.getAttribute("src"),
              IMG,
            ),
            `/media/${first}`,
            "the field keeps its image",
          );
          await page.press("Escape");
          await page.waitFor(
            (sel) => !document.querySelector(sel),
            {},
            LIBRARY,
          );
        },
      );
    } finally {
      await page.close();
    }
  },
);
