/**
 * Browser tests (Chromium, Firefox and WebKit) of the editing session's
 * newer behaviour: automatic retry after a 503 and after a network outage,
 * IME composition, German and overridden labels, the edit bar and the rich
 * toolbar on a 375×667 touch phone and at desktop width (every control
 * reachable, touch targets of 44 px, the bar never covers the page), and
 * clearDrafts().
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "../helpers/browser.ts";
import {
  type ClientSite,
  clientSiteTest,
  marker,
  type PageEvent,
  type PageGlobals,
  waitState,
} from "../helpers/client_page.ts";

const SEED = {
  "pages:home": {
    title: "Hello",
    subtitle: "Sub",
    body: "<p>Body text</p>",
    features: ["A", "B"],
  },
};

// The test mounts (with its own options) unless the page is plain `/`.
const SITE = {
  pages: { "/": homePage, "/rich": homePage },
  seed: SEED,
  script:
    `import * as cms from "/dist/mod.js"; window.cms = cms; if (!location.search) window.cmsHandle = cms.mountCms();`,
};

async function homePage(site: ClientSite): Promise<string> {
  const filler = Array.from({ length: 30 }, (_, i) => `<p>Filler ${i}</p>`)
    .join("");
  // `/rich` has a rich region too (the phone step checks its toolbar).
  const rich = site.paths.at(-1) === "/rich"
    ? await marker(site, "div", "pages:home:body", true)
    : "";
  return `<main>${await marker(site, "h1", "pages:home:title")}
${await marker(site, "p", "pages:home:subtitle")}${rich}${filler}</main>
<footer id="foot" style="margin:0">The last line of the page</footer>`;
}

const EVENTS = ["cms:dirty", "cms:saved", "cms:error", "cms:conflict"];

/**
 * Opens `path`, mounts (with `labels` when given; not at all when `labels`
 * is false) and records events.
 */
async function open(
  browser: Browser,
  site: ClientSite,
  path = "/",
  labels?: unknown,
): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(site.url + path);
  await page.evaluate(
    async (labels, names) => {
      const w = globalThis as unknown as PageGlobals;
      if (labels !== false) {
        w.cmsHandle ??= w.cms.mountCms(
          labels ? { labels: labels as "de" } : {},
        );
        await w.cmsHandle.ready;
      }
      w.events = [];
      for (const name of names) {
        document.addEventListener(
          name,
          (e) => w.events.push({ type: name, ...(e as CustomEvent).detail }),
        );
      }
    },
    labels ?? null,
    EVENTS,
  );
  return page;
}

/** Clicks `selector`, puts the caret at its end (and keeps the focus). */
async function caretAtEnd(page: Page, selector: string) {
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
}

const events = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as PageGlobals).events);

function bar(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    return {
      state: (root.querySelector("[data-state]") as HTMLElement).dataset.state,
      text: root.querySelector("[aria-live]")!.textContent!,
      buttons: [...root.querySelectorAll("button")].map((b) =>
        b.textContent!.trim()
      ),
    };
  });
}

const SUB = "p[data-cms-field$=subtitle]";

clientSiteTest(
  "client session: retry, IME, labels, phone, drafts",
  SITE,
  async (t, site, browser) => {
    await t.step(
      "a 503 keeps the field dirty, then the retry saves it",
      async () => {
        const page = await open(browser, site);
        try {
          site.saves.length = 0;
          site.saveAnswers.push(() =>
            new Response("Shutting down", {
              status: 503,
              headers: { "retry-after": "1" },
            })
          );
          await caretAtEnd(page, SUB);
          await page.type("!");
          await page.evaluate(() =>
            (globalThis as unknown as PageGlobals).cmsHandle.save()
          );
          const during = await bar(page);
          assert.equal(during.state, "error");
          assert.match(during.text, /Not saved: Shutting down\. Retrying in/);
          assert.equal(
            await page.evaluate(
              (sel) =>
                (document.querySelector(sel) as HTMLElement).dataset
                  .cmsState,
              SUB,
            ),
            "error",
          );
          await waitState(page, "clean");
          assert.deepEqual(site.saves.map((s) => s.status), [503, 204]);
          assert.equal(
            (await site.store.get("pages", "home"))?.subtitle,
            "Sub!",
          );
          const seen = (await events(page)).map((e: PageEvent) =>
            `${e.type}:${e.status ?? ""}`
          );
          assert.deepEqual(seen, ["cms:dirty:", "cms:error:503", "cms:saved:"]);
        } finally {
          await page.close();
        }
      },
    );

    await t.step(
      "a network outage keeps the field dirty; back online it saves",
      async () => {
        const page = await open(browser, site);
        try {
          site.saves.length = 0;
          await page.setOffline(true);
          await caretAtEnd(page, "h1");
          await page.type("?");
          await page.evaluate(() =>
            (globalThis as unknown as PageGlobals).cmsHandle.save()
          );
          await waitState(page, "offline");
          assert.equal(site.saves.length, 0);
          assert.equal(
            await page.evaluate(() =>
              document.querySelector("h1")!.dataset.cmsState
            ),
            "error",
          );
          await page.setOffline(false);
          await waitState(page, "clean");
          assert.deepEqual(site.saves.map((s) => s.status), [204]);
          assert.equal(
            (await site.store.get("pages", "home"))?.title,
            "Hello?",
          );
        } finally {
          await page.close();
        }
      },
    );

    await t.step(
      "no dirty flag or draft in the middle of an IME composition",
      async () => {
        const page = await open(browser, site);
        try {
          await page.evaluate(() => {
            const w = globalThis as unknown as {
              composing: boolean;
              log: string[];
            };
            w.composing = false;
            w.log = [];
            // Window capture listeners run before the client's own.
            addEventListener(
              "compositionstart",
              () => w.composing = true,
              true,
            );
            addEventListener("compositionend", () => w.composing = false, true);
            document.addEventListener("cms:dirty", () => {
              w.log.push(`dirty${w.composing ? " while composing" : ""}`);
            });
            const setItem = Storage.prototype.setItem;
            Storage.prototype.setItem = function (k, v) {
              w.log.push(`draft${w.composing ? " while composing" : ""}`);
              return setItem.call(this, k, v);
            };
          });
          await caretAtEnd(page, "h1");
          await page.compose(["n", "ni", "你"], "你好");
          const out = await page.evaluate(() => ({
            log: (globalThis as unknown as { log: string[] }).log,
            text: document.querySelector("h1")!.textContent,
            drafts: Object.keys(localStorage).filter((k) =>
              k.startsWith("cms-draft:")
            ).map((k) => JSON.parse(localStorage.getItem(k)!).value),
          }));
          assert.equal(out.text, "Hello?你好");
          assert.ok(out.log.length > 0, "the commit is reported");
          assert.ok(
            out.log.every((l) => !l.endsWith("while composing")),
            out.log.join(", "),
          );
          assert.deepEqual(out.drafts, ["Hello?你好"]);
          assert.equal((await bar(page)).state, "unsaved");
        } finally {
          await page.close();
        }
      },
    );

    await t.step("clearDrafts() forgets this browser's drafts", async () => {
      const page = await open(browser, site);
      const text = () =>
        page.evaluate(() =>
          document.querySelector("p[data-cms-field]")!
            .textContent
        );
      const reload = async () => {
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).cmsHandle.unmount()
        );
        await page.reload();
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).cmsHandle.ready
        );
      };
      try {
        await caretAtEnd(page, SUB);
        await page.type("x");
        await reload();
        assert.equal(await text(), "Sub!x", "the draft is restored");
        await page.evaluate(() => {
          (globalThis as unknown as PageGlobals).cms.clearDrafts();
          localStorage.setItem("host-key", "kept");
        });
        await reload();
        assert.equal(await text(), "Sub!");
        assert.equal((await bar(page)).state, "clean");
        assert.equal(
          await page.evaluate(() => localStorage.getItem("host-key")),
          "kept",
        );
      } finally {
        await page.close();
      }
    });

    await t.step(
      "German labels, and a partial table over English",
      async () => {
        let page = await open(browser, site, "/?manual", "de");
        try {
          const de = await bar(page);
          assert.equal(de.text, "Alle Änderungen gespeichert");
          assert.deepEqual(de.buttons, [
            "Speichern",
            "Einstellungen",
            "Verlauf",
            "Fertig",
          ]);
          await caretAtEnd(page, SUB);
          await page.type("x");
          await waitState(page, "unsaved");
          assert.equal((await bar(page)).text, "1 ungespeicherte Änderung");
          await page.evaluate(() =>
            (globalThis as unknown as PageGlobals).cmsHandle.unmount()
          );
        } finally {
          await page.close();
        }
        page = await open(browser, site, "/?manual", {
          save: "Publish",
          unsaved: "{n} change|{n} changes",
        });
        try {
          const over = await bar(page);
          assert.deepEqual(over.buttons, [
            "Publish",
            "Settings",
            "History",
            "Done",
          ]);
          assert.equal(over.text, "All changes saved");
        } finally {
          await page.close();
        }
      },
    );

    for (const [width, height] of [[375, 667], [1280, 800]]) {
      await t.step({
        name: `at ${width}×${height} the bar and the toolbar fit${
          width < 447 ? " (phone)" : ""
        }, the bar covers nothing`,
        fn: async () => {
          // A phone is a touch screen: Chromium emulates one (CDP); Firefox
          // (no touch emulation over BiDi) and WebKit (the page in a frame
          // of the phone's size: MiniBrowser's window is never narrower
          // than 447 px) get the width only.
          const touch = width < 447 && browser.engine === "chromium";
          const page = await browser.newPage();
          try {
            if (touch) {
              await page.puppeteer!.setViewport({
                width,
                height,
                hasTouch: true,
                isMobile: true,
              });
            } else await page.setViewport(width, height);
            await page.goto(site.url + "/rich?manual");
            assert.deepEqual(
              await page.evaluate(() => [innerWidth, innerHeight]),
              [width, height],
            );
            await page.evaluate(async () => {
              const w = globalThis as unknown as PageGlobals;
              w.cmsHandle = w.cms.mountCms();
              await w.cmsHandle.ready;
            });
            await page.waitFor(() =>
              document.documentElement.style.paddingBottom !== ""
            );
            assert.equal(
              await page.evaluate(() => matchMedia("(pointer:coarse)").matches),
              touch,
            );
            // The rich toolbar: every control on screen (it wraps), and a
            // touch target of 44×44 px on a touch screen.
            await page.click("div[data-cms-field] p");
            await page.waitFor(() =>
              document.activeElement?.matches("div[data-cms-field]")
            );
            const tools = await page.evaluate(() => {
              const root = document.querySelector("cms-rich-toolbar")!
                .shadowRoot!;
              // The toolbar's buttons (the closed block menu's items are
              // hidden).
              return [
                ...root.querySelectorAll("[role=toolbar] button:not([role])"),
              ].map(
                (b) => {
                  const r = b.getBoundingClientRect();
                  return {
                    name: b.getAttribute("aria-label"),
                    left: r.left,
                    right: r.right,
                    top: r.top,
                    bottom: r.bottom,
                    w: r.width,
                    h: r.height,
                  };
                },
              );
            });
            assert.ok(tools.length >= 8, JSON.stringify(tools));
            const vw = await page.evaluate(() =>
              document.documentElement.clientWidth
            );
            for (const b of tools) {
              assert.ok(
                b.left >= 0 && b.right <= vw + 0.5 && b.top >= 0 &&
                  b.bottom <= height,
                `${b.name} off screen: ${JSON.stringify(b)}`,
              );
              if (touch) {
                assert.ok(b.w >= 44 && b.h >= 44, JSON.stringify(b));
              }
            }
            const m = await page.evaluate(() => {
              const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
              const box = (el: Element) => {
                const r = el.getBoundingClientRect();
                return {
                  left: r.left,
                  right: r.right,
                  top: r.top,
                  w: r.width,
                  h: r.height,
                };
              };
              scrollTo(0, document.documentElement.scrollHeight);
              const foot = document.getElementById("foot")!;
              return {
                vw: document.documentElement.clientWidth,
                vh: innerHeight,
                bar: box(root.querySelector(".b")!),
                status: box(root.querySelector("[aria-live]")!),
                dot: box(root.querySelector(".d")!),
                buttons: [...root.querySelectorAll("button")].map(box),
                footBottom: foot.getBoundingClientRect().bottom,
              };
            });
            const inside = (b: { left: number; right: number }) =>
              b.left >= 0 && b.right <= m.vw + 0.5;
            assert.ok(inside(m.bar), JSON.stringify(m.bar));
            assert.ok(
              inside(m.dot) && m.status.w > 0,
              JSON.stringify(m.status),
            );
            assert.ok(inside(m.status), JSON.stringify(m.status));
            assert.equal(m.buttons.length, 4);
            assert.ok(m.buttons.every(inside), JSON.stringify(m.buttons));
            if (touch) {
              assert.ok(
                m.buttons.every((b) => b.w >= 44 && b.h >= 44),
                JSON.stringify(m.buttons),
              );
            }
            assert.ok(
              m.footBottom <= m.bar.top,
              `footer ends at ${m.footBottom}, bar starts at ${m.bar.top}`,
            );
            await page.evaluate(() =>
              (globalThis as unknown as PageGlobals).cmsHandle.unmount()
            );
            assert.equal(
              await page.evaluate(() =>
                document.documentElement.style.paddingBottom
              ),
              "",
            );
          } finally {
            await page.close();
          }
        },
      });
    }
  },
);
