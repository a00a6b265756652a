/**
 * Browser test (Chromium) of pasting office HTML and of the one rich
 * toolbar: Word, Google Docs and LibreOffice pastes (synthetic
 * `ClipboardEvent`s with `text/html`) land as nested lists and a table
 * with a header row; on a page with 13 rich regions at most one toolbar
 * shows, focus moves it, nothing of the page moves, and the keyboard
 * reaches it and comes back.
 */
import assert from "node:assert/strict";
import type { Page } from "../helpers/browser.ts";
import { clientSiteTest } from "../helpers/client_page.ts";

const fixture = (name: string) =>
  Deno.readTextFileSync(
    new URL(`../fixtures/paste/${name}.html`, import.meta.url),
  );

const SECTIONS = Array.from(
  { length: 13 },
  (_, i) =>
    `<section><h2>Part ${i}</h2><div class="r" id="r${i}"><p>Section ${i} text</p></div><p class="after">After ${i}</p></section>`,
).join("\n");

const SCRIPT = `import * as cms from "/dist/mod.js";
window.eds = Promise.all([...document.querySelectorAll(".r")].map((el, i) =>
  cms.mountRichText(el, { label: "Section " + i })));`;

/** Toolbars shown: the region each belongs to. */
const shown = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll("cms-rich-toolbar")]
      .filter((h) => !h.shadowRoot!.querySelector(".w")!.hasAttribute("hidden"))
      .map((h) => h.nextElementSibling!.id)
  );

/** The boxes of every element of the host page. */
const boxes = (page: Page) =>
  page.evaluate(() =>
    [...document.body.querySelectorAll("*")]
      .filter((e) => !/^(cms-rich-toolbar|script)$/.test(e.localName))
      .map((e) => {
        const r = e.getBoundingClientRect();
        return `${e.localName}#${e.id}:${r.x},${
          r.y + scrollY
        },${r.width},${r.height}`;
      })
  );

/** Focuses region `i`, caret at its end, scrolled to the middle. */
const focusRegion = (page: Page, i: number) =>
  page.evaluate((i: number) => {
    const el = document.getElementById(`r${i}`)!;
    el.scrollIntoView({ block: "center" });
    el.focus();
    const range = document.createRange();
    range.selectNodeContents(el);
    range.collapse(false);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  }, i);

/** Pastes `html` into region `i`; resolves with its HTML once it landed. */
const paste = (page: Page, i: number, html: string) =>
  page.evaluate(
    async (i: number, html: string) => {
      const el = document.getElementById(`r${i}`)!;
      const dt = new DataTransfer();
      dt.setData("text/html", html);
      dt.setData("text/plain", "plain");
      const e = new ClipboardEvent("paste", {
        bubbles: true,
        cancelable: true,
      });
      Object.defineProperty(e, "clipboardData", { value: dt });
      el.dispatchEvent(e);
      const deadline = Date.now() + 5000;
      while (!el.querySelector("table") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return el.innerHTML.replace(/>\s+</g, "><");
    },
    i,
    html,
  );

clientSiteTest(
  "client: office paste and one rich toolbar",
  {
    pages: { "/": () => `<p id="before">Intro</p>\n${SECTIONS}` },
    script: SCRIPT,
  },
  async (t, site, browser) => {
    const page = await browser.newPage();
    try {
      await page.setViewport(1000, 700);
      await page.goto(site.url + "/");
      await page.evaluate(async () => {
        await (globalThis as unknown as { eds: Promise<unknown> }).eds;
      });
      await t.step("13 regions, no toolbar until one has focus", async () => {
        assert.equal(
          await page.evaluate(() =>
            document.querySelectorAll("cms-rich-toolbar").length
          ),
          13,
        );
        assert.deepEqual(await shown(page), []);
      });

      await t.step(
        "focus shows one toolbar, moves it, moves nothing",
        async () => {
          const before = await boxes(page);
          for (const i of [0, 7, 12, 3]) {
            await focusRegion(page, i);
            assert.deepEqual(await shown(page), [`r${i}`]);
            assert.deepEqual(await boxes(page), before, "no element moved");
            // The toolbar floats clear of its region's text.
            const overlap = await page.evaluate((i: number) => {
              const el = document.getElementById(`r${i}`)!;
              const w = el.previousElementSibling!.shadowRoot!.querySelector(
                ".w",
              )!.getBoundingClientRect();
              const r = el.getBoundingClientRect();
              return w.bottom > r.top && w.top < r.bottom;
            }, i);
            assert.equal(overlap, false);
          }
        },
      );

      await t.step(
        "Alt+F10 reaches the toolbar, Escape comes back",
        async () => {
          await focusRegion(page, 3);
          await page.press("F10", ["Alt"]);
          const inToolbar = () =>
            page.evaluate(() => {
              const a = document.activeElement!;
              return a.localName === "cms-rich-toolbar" &&
                a.shadowRoot!.activeElement?.getAttribute("aria-label");
            });
          assert.ok(await inToolbar(), "a toolbar button has focus");
          assert.deepEqual(await shown(page), ["r3"]);
          assert.equal(
            await page.evaluate(() => {
              const bar = document.getElementById("r3")!.previousElementSibling!
                .shadowRoot!.querySelector("[role=toolbar]")!;
              return (bar as unknown as { ariaControlsElements?: Element[] })
                .ariaControlsElements?.[0]?.id;
            }),
            "r3",
          );
          await page.press("Escape");
          assert.equal(
            await page.evaluate(() => document.activeElement!.id),
            "r3",
          );
          // Shift+Tab from the region: its toolbar is the stop before it.
          await page.press("Tab", ["Shift"]);
          assert.ok(await inToolbar());
          await page.press("Escape");
          // Focus leaving for the page hides the toolbar.
          await page.evaluate(() =>
            (document.activeElement as HTMLElement).blur()
          );
          assert.deepEqual(await shown(page), []);
        },
      );

      await t.step("Word, Google Docs and LibreOffice pastes", async () => {
        const lists =
          /<ul><li>Write the copy<ul><li>Headlines<\/li><li>Body <(i|em)>text<\/\1><\/li><\/ul><\/li><li>Take the photos<\/li><\/ul>/;
        const numbered =
          /<ol><li>Draft<ol><li>Outline<\/li><\/ol><\/li><li>Review<\/li><\/ol>/;
        const header =
          "<thead><tr><th>Task</th><th>Owner</th></tr></thead><tbody><tr><td>Copy</td><td>Ada</td></tr></tbody>";
        for (
          const [i, name] of [[4, "word"], [5, "google_docs"], [
            6,
            "libreoffice",
          ]] as const
        ) {
          await focusRegion(page, i);
          const html = await paste(page, i, fixture(name));
          assert.match(html, lists, `${name}: ${html}`);
          assert.match(html, numbered, `${name}: ${html}`);
          assert.ok(html.includes(header), `${name}: ${html}`);
          assert.doesNotMatch(html, /·|<li>o|style=|class=/, name);
        }
      });
    } finally {
      await page.close();
    }
  },
  ["chromium"],
);
