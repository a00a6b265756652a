/**
 * Browser tests (Chromium, Firefox and WebKit) of mountCms: plain regions, the edit bar,
 * saving with exact request counts, failures and retry, drafts, conflicts,
 * Settings and Done. The page runs against the real save handler.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "../helpers/browser.ts";
import {
  type ClientSite,
  clientSiteTest,
  dialogsSeen,
  marker,
  type PageEvent,
  type PageGlobals,
  stubDialogs,
  waitState,
} from "../helpers/client_page.ts";

const SEED = {
  "pages:home": {
    title: "Hello",
    subtitle: "Sub",
    body: "<p>Body</p>",
    features: ["Fast", "Small"],
  },
};

// `/?manual` leaves mounting to the test (to watch the mount's warnings).
const SITE = {
  pages: { "/": homePage },
  seed: SEED,
  script:
    `import * as cms from "/dist/mod.js"; window.cms = cms; if (location.search !== "?manual") window.cmsHandle = cms.mountCms();`,
};

async function homePage(site: ClientSite): Promise<string> {
  return `<main>
${await marker(site, "h1", "pages:home:title")}
${await marker(site, "p", "pages:home:subtitle")}
<ul>${await marker(site, "li", "pages:home:features.0")}${await marker(
    site,
    "li",
    "pages:home:features.1",
  )}</ul>
<footer><span id="copy" data-cms-field="pages:home:title">${
    (await site.store.get("pages", "home"))?.title
  }</span>
<button id="host-btn">Host button</button>
<p id="bad1" data-cms-field="nope">bad</p><p id="bad2" data-cms-field="a:b:c:d">bad</p>
<p id="bad3" data-cms-field="pages:home:x" data-cms-type="html">bad</p></footer>
</main>`;
}

async function open(browser: Browser, site: ClientSite, path = "/") {
  const page = await browser.newPage();
  await page.goto(site.url + path);
  await page.evaluate(() =>
    (globalThis as unknown as PageGlobals).cmsHandle.ready
  );
  await stubDialogs(page);
  await page.evaluate(() => {
    const w = globalThis as unknown as PageGlobals;
    w.events = [];
    for (
      const name of [
        "cms:dirty",
        "cms:saved",
        "cms:error",
        "cms:conflict",
        "cms:open-drawer",
      ]
    ) {
      document.addEventListener(
        name,
        (e) => w.events.push({ type: name, ...(e as CustomEvent).detail }),
      );
    }
  });
  return page;
}

/** Clicks `selector`, puts the caret at its end and types `text`. */
async function typeInto(page: Page, selector: string, text: string) {
  await page.click(selector);
  await page.evaluate((sel) => {
    const el = document.querySelector(sel) as HTMLElement;
    el.focus();
    const range = document.createRange();
    range.selectNodeContents(el);
    range.collapse(false);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  }, selector);
  await page.type(text);
}

/** Waits (5 s at most) until the page shows `path`. */
async function waitPath(page: Page, path: string) {
  for (let i = 0; new URL(await page.url()).pathname !== path; i++) {
    if (i > 100) throw new Error(`still not at ${path}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Clicks an edit bar button by its label. */
async function clickBar(page: Page, label: string) {
  await page.evaluate((label) => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const b = [...root.querySelectorAll("button")].find((b) =>
      b.textContent?.trim() === label
    );
    if (!b) throw new Error(`no ${label} button`);
    b.click();
  }, label);
}

function barStatus(page: Page): Promise<{ state: string; text: string }> {
  return page.evaluate(() => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const bar = root.querySelector("[data-state]") as HTMLElement;
    return {
      state: bar.dataset.state!,
      text: root.querySelector("[aria-live]")!.textContent!,
    };
  });
}

const text = (page: Page, sel: string) =>
  page.evaluate((sel) => document.querySelector(sel)!.textContent, sel);
const html = (page: Page, sel: string) =>
  page.evaluate((sel) => document.querySelector(sel)!.innerHTML, sel);

clientSiteTest(
  "client: plain regions, edit bar and saving",
  SITE,
  async (t, site, browser) => {
    await t.step("nothing changed: Save sends 0 requests", async () => {
      const page = await open(browser, site);
      assert.equal((await barStatus(page)).state, "clean");
      await clickBar(page, "Save");
      await page.press("s", ["Control"]);
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.save()
      );
      assert.equal(site.saves.length, 0);
      assert.equal(
        await page.evaluate(() =>
          document.querySelector("h1")!.getAttribute("contenteditable")
        ),
        "plaintext-only",
      );
      await page.close();
    });

    await t.step("exactly the changed fields are sent, once", async () => {
      const page = await open(browser, site);
      await typeInto(page, "p[data-cms-field$=subtitle]", " line");
      await typeInto(page, "li:nth-child(2)", "er");
      const s = await barStatus(page);
      assert.deepEqual(s, { state: "unsaved", text: "2 unsaved changes" });
      await page.press("s", ["Control"]);
      await waitState(page, "clean");
      assert.equal(site.saves.length, 2);
      const sent = site.saves.map((c) => c.body.field).sort();
      assert.deepEqual(sent, ["features.1", "subtitle"]);
      for (const call of site.saves) {
        assert.equal(call.method, "PATCH");
        assert.equal(call.status, 204);
        assert.equal(typeof call.body.version, "string");
        assert.equal(call.body.collection, "pages");
        assert.equal(call.body.key, "home");
      }
      const stored = await site.store.get("pages", "home");
      assert.equal(stored?.subtitle, "Sub line");
      assert.deepEqual(stored?.features, ["Fast", "Smaller"]);
      // Saved fields are clean: a second save sends nothing.
      await clickBar(page, "Save");
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.save()
      );
      assert.equal(site.saves.length, 2);
      // The 204's CMS-Version became the field's version: edit and save again.
      await typeInto(page, "p[data-cms-field$=subtitle]", "!");
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.save()
      );
      assert.equal(site.saves.length, 3);
      assert.equal(site.saves[2].status, 204);
      const saved = await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).events.filter((e: PageEvent) =>
          e.type === "cms:saved"
        )
          .length
      );
      assert.equal(saved, 3);
      await page.close();
      site.saves.length = 0;
    });

    await t.step(
      "Enter does nothing; duplicates mirror and save once",
      async () => {
        const page = await open(browser, site);
        await typeInto(page, "h1", "A");
        await page.press("Enter");
        await page.type("B");
        assert.equal(await html(page, "h1"), "HelloAB");
        assert.equal(await text(page, "#copy"), "HelloAB");
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).cmsHandle.save()
        );
        assert.equal(site.saves.length, 1);
        assert.equal(site.saves[0].body.field, "title");
        assert.equal(site.saves[0].body.value, "HelloAB");
        assert.equal((await site.store.get("pages", "home"))?.title, "HelloAB");
        await page.close();
        site.saves.length = 0;
      },
    );

    await t.step(
      "paste in a plain region: line breaks become spaces",
      async () => {
        const page = await open(browser, site);
        await typeInto(page, "li:nth-child(1)", "");
        await page.evaluate(() => {
          const dt = new DataTransfer();
          dt.setData("text/plain", " one\ntwo\r\n  three");
          dt.setData("text/html", "<b>one</b><br>two");
          const paste = new ClipboardEvent("paste", {
            bubbles: true,
            cancelable: true,
          });
          // Firefox gives a synthetic event an empty copy of clipboardData.
          Object.defineProperty(paste, "clipboardData", { value: dt });
          document.querySelector("li")!.dispatchEvent(paste);
        });
        assert.equal(await html(page, "li"), "Fast one two three");
        // Esc reverts the focused field.
        await page.press("Escape");
        assert.equal(await text(page, "li"), "Fast");
        assert.equal((await barStatus(page)).state, "clean");
        await page.close();
      },
    );

    await t.step("failed saves keep the field dirty; retry works", async () => {
      const page = await open(browser, site);
      // The save endpoint is unreachable: its fetch rejects, as on a
      // refused connection (the same in every engine).
      await page.evaluate(() => {
        const real = globalThis.fetch;
        const w = globalThis as unknown as { down: boolean };
        w.down = true;
        globalThis.fetch = (input, init) =>
          w.down && String(input).endsWith("/api/cms/save")
            ? Promise.reject(new TypeError("Failed to fetch"))
            : real(input, init);
      });
      await typeInto(page, "p[data-cms-field$=subtitle]", "?");
      await clickBar(page, "Save");
      await waitState(page, "error");
      assert.match(
        (await barStatus(page)).text,
        /Not saved: server unreachable/,
      );
      assert.equal(site.saves.length, 0);
      assert.equal(
        await page.evaluate(() =>
          (document.querySelector("p[data-cms-field$=subtitle]") as HTMLElement)
            .dataset.cmsState
        ),
        "error",
      );
      await page.evaluate(() => {
        (globalThis as unknown as { down: boolean }).down = false;
      });
      site.authorized = false;
      await clickBar(page, "Save");
      await page.waitFor(() =>
        (globalThis as unknown as PageGlobals).events.filter((e: PageEvent) =>
          e.type === "cms:error"
        )
          .length === 2
      );
      await waitState(page, "error");
      assert.equal(site.saves.at(-1)?.status, 403);
      assert.match((await barStatus(page)).text, /Not saved: .*authorized/i);
      const errors = await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).events.filter((e: PageEvent) =>
          e.type === "cms:error"
        )
          .map((e: PageEvent) => e.status)
      );
      assert.deepEqual(errors, [0, 403]);
      site.authorized = true;
      await clickBar(page, "Save");
      await waitState(page, "clean");
      assert.equal(site.saves.at(-1)?.status, 204);
      assert.equal(site.saves.length, 2);
      assert.equal(
        (await site.store.get("pages", "home"))?.subtitle,
        "Sub line!?",
      );
      await page.close();
      site.saves.length = 0;
    });

    await t.step(
      "a draft survives a reload and is cleared once saved",
      async () => {
        const page = await open(browser, site);
        await typeInto(page, "p[data-cms-field$=subtitle]", " draft");
        // Leaving now would ask (the unload guard cancels beforeunload).
        const guarded = await page.evaluate(() =>
          !dispatchEvent(new Event("beforeunload", { cancelable: true }))
        );
        assert.ok(guarded, "beforeunload guard armed");
        await page.reload();
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).cmsHandle.ready
        );
        assert.equal(
          await text(page, "p[data-cms-field$=subtitle]"),
          "Sub line!? draft",
        );
        const notice = await page.evaluate(() =>
          document.querySelector("cms-edit-bar")!.shadowRoot!.querySelector(
            ".n",
          )!.textContent
        );
        assert.match(notice!, /Restored 1 unsaved change/);
        assert.deepEqual(await barStatus(page), {
          state: "unsaved",
          text: "1 unsaved change",
        });
        assert.equal(site.saves.length, 0);
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).cmsHandle.save()
        );
        assert.equal(site.saves.length, 1);
        const drafts = await page.evaluate(() =>
          Object.keys(localStorage).filter((k) => k.startsWith("cms-draft:"))
        );
        assert.deepEqual(drafts, []);
        await page.close();
        site.saves.length = 0;
      },
    );

    for (const choice of ["Keep mine", "Use stored"]) {
      await t.step(`409 conflict: ${choice}`, async () => {
        const page = await open(browser, site);
        await site.store.update("pages", "home", (r) => ({
          ...r!,
          title: "Theirs",
        }));
        await typeInto(page, "h1", " mine");
        await clickBar(page, "Save");
        await page.waitFor(() =>
          document.querySelector("cms-edit-bar")!.shadowRoot!.querySelector(
            "dialog[open]",
          )
        );
        const shown = await page.evaluate(() =>
          [
            ...document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelectorAll("dialog pre"),
          ].map((p) => p.textContent)
        );
        assert.deepEqual(shown, ["HelloAB mine", "Theirs"]);
        // The choice has the focus; each value is a tab stop (a long one
        // scrolls in its box, and keys scroll it).
        const focus = await page.evaluate(() => {
          const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
          return {
            on: root.activeElement?.textContent?.trim(),
            stops: [...root.querySelectorAll("dialog pre")].map((p) =>
              (p as HTMLElement).tabIndex
            ),
          };
        });
        assert.deepEqual(focus, { on: "Keep mine", stops: [0, 0] });
        assert.equal(site.saves[0].status, 409);
        await clickBar(page, choice);
        if (choice === "Keep mine") {
          await waitState(page, "clean");
          assert.equal(site.saves.length, 2);
          assert.equal(site.saves[1].status, 204);
          const stored = await site.store.get("pages", "home");
          assert.equal(stored?.title, "HelloAB mine");
        } else {
          await waitState(page, "clean");
          assert.equal(site.saves.length, 1);
          assert.equal(await text(page, "h1"), "Theirs");
          assert.equal(await text(page, "#copy"), "Theirs");
        }
        const conflicts = await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).events.filter((e: PageEvent) =>
            e.type === "cms:conflict"
          )
        );
        assert.equal(conflicts.length, 1);
        assert.equal(conflicts[0].stored, "Theirs");
        await page.close();
        site.saves.length = 0;
        await site.store.update("pages", "home", (r) => ({
          ...r!,
          title: "HelloAB",
        }));
      });
    }

    await t.step(
      "Settings fires cms:open-drawer; the bar is isolated",
      async () => {
        const page = await open(browser, site);
        await clickBar(page, "Settings");
        const events = await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).events
        );
        assert.deepEqual(events, [{ type: "cms:open-drawer", editor: "Ada" }]);
        const styles = await page.evaluate(() => {
          const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
          const ours = getComputedStyle(root.querySelector("button")!);
          const host = getComputedStyle(document.getElementById("host-btn")!);
          const bar = getComputedStyle(document.querySelector("cms-edit-bar")!);
          return [ours.fontSize, ours.color, host.fontSize, bar.opacity];
        });
        // Save is the primary button: the theme's text on the accent.
        assert.deepEqual(styles, [
          "13px",
          "rgb(255, 255, 255)",
          "40px",
          "1",
        ]);
        const names = await page.evaluate(() =>
          [
            ...document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelectorAll("button"),
          ].map((b) => b.textContent)
        );
        assert.deepEqual(names, ["Save", "Settings", "History", "Done"]);
        await page.close();
      },
    );

    await t.step(
      "malformed markers are ignored; mountCms twice is one mount",
      async () => {
        const page = await browser.newPage();
        await page.goto(site.url + "/?manual");
        const result = await page.evaluate(async () => {
          const w = globalThis as unknown as PageGlobals;
          const warnings: string[] = [];
          const warn = console.warn;
          console.warn = (...args) => {
            warnings.push(args.join(" "));
            warn(...args);
          };
          const first = w.cms.mountCms();
          const again = w.cms.mountCms();
          await again.ready;
          return {
            warnings: warnings.filter((w) => w.includes("malformed marker"))
              .length,
            same: again === first,
            bars: document.querySelectorAll("cms-edit-bar").length,
            fields: again.fields,
            bad: ["bad1", "bad2", "bad3"].map((id) =>
              document.getElementById(id)!.hasAttribute("contenteditable")
            ),
          };
        });
        assert.deepEqual(result, {
          warnings: 3,
          same: true,
          bars: 1,
          fields: 4,
          bad: [false, false, false],
        });
        await page.close();
      },
    );

    await t.step(
      "the mount touches no marker; a first input activates every region",
      async () => {
        const page = await browser.newPage();
        await page.goto(site.url + "/?manual");
        const result = await page.evaluate(async () => {
          const w = globalThis as unknown as PageGlobals;
          const editable = () =>
            document.querySelectorAll("[contenteditable]").length;
          // The session chunk loaded first: the mount is then synchronous.
          const warm = w.cms.mountCms();
          await warm.ready;
          warm.unmount();
          const handle = w.cms.mountCms();
          const atMount = {
            editable: editable(),
            bars: document.querySelectorAll("cms-edit-bar").length,
            fields: handle.fields,
          };
          // An input before any slice ran: the whole activation, first.
          const h1 = document.querySelector("h1")!;
          let atInput = false;
          h1.addEventListener("mousedown", () => {
            atInput = h1.isContentEditable;
          }, { once: true });
          h1.dispatchEvent(new MouseEvent("mousedown", { bubbles: true }));
          const afterInput = {
            atInput,
            editable: editable(),
            bars: document.querySelectorAll("cms-edit-bar").length,
            fields: handle.fields,
          };
          await handle.ready;
          handle.unmount();
          return { atMount, afterInput };
        });
        assert.deepEqual(result, {
          atMount: { editable: 0, bars: 0, fields: 0 },
          // title (h1 and #copy), subtitle, features.0, features.1
          afterInput: { atInput: true, editable: 5, bars: 1, fields: 4 },
        });
        await page.close();
      },
    );

    await t.step("a click right after the mount edits and saves", async () => {
      const page = await browser.newPage();
      await page.goto(site.url + "/?manual");
      await stubDialogs(page);
      site.saves.length = 0;
      // The session chunk is loaded once (the first mount imports it), so
      // the second mount starts at once: its capture listeners are in place
      // when `mountCms` returns. Not waiting for `ready` then: the click may
      // come before the slices.
      const before = await page.evaluate(async () => {
        const w = globalThis as unknown as PageGlobals;
        const first = w.cms.mountCms();
        await first.ready;
        first.unmount();
        const text = document.querySelector("p")!.textContent;
        w.cmsHandle = w.cms.mountCms();
        return text;
      });
      await page.click("p");
      await page.type("Z");
      const saved = await page.evaluate(async () => {
        const w = globalThis as unknown as PageGlobals;
        await w.cmsHandle.ready;
        await w.cmsHandle.save();
        return document.querySelector("p")!.textContent;
      });
      // Exactly the typed character joined the text (wherever the caret
      // landed).
      assert.equal([...saved!].filter((c) => c === "Z").length, 1);
      assert.equal(saved!.replace("Z", ""), before);
      assert.equal((await site.store.get("pages", "home"))?.subtitle, saved);
      assert.deepEqual(site.saves.map((c) => [c.body.field, c.status]), [
        ["subtitle", 204],
      ]);
      site.saves.length = 0;
      await site.store.update("pages", "home", (r) => ({
        ...r!,
        subtitle: SEED["pages:home"].subtitle,
      }));
      await page.close();
    });

    await t.step("Done asks when dirty, then leaves edit mode", async () => {
      const page = await open(browser, site);
      await typeInto(page, "h1", "Z");
      await stubDialogs(page, false);
      await clickBar(page, "Done");
      assert.equal(new URL(await page.url()).pathname, "/");
      assert.equal(
        await page.evaluate(() =>
          document.querySelectorAll("cms-edit-bar").length
        ),
        1,
      );
      await stubDialogs(page, true);
      assert.deepEqual(await dialogsSeen(page), [
        "confirm:Discard your unsaved changes?",
      ]);
      await clickBar(page, "Done");
      await waitPath(page, "/bye");
      assert.equal(site.saves.length, 0);
      await page.close();
    });
  },
);
