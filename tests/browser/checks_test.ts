/**
 * Browser tests of the content checks in the editor in Chromium, Firefox
 * and WebKit: the marks appear while typing and go away when fixed (never
 * in the saved value), the tip and the region's description carry the
 * message, the bar counts, the Checks panel jumps to a finding, its fixes
 * work (paragraphs posing as a list become one; alt text through the alt
 * dialog), an image field's alt text is checked, and axe finds nothing
 * serious with the marks and the panel open, light and dark.
 */
import assert from "node:assert/strict";
import { launch, type Page } from "../helpers/browser.ts";
import {
  type ClientSite,
  clientSiteTest,
  marker,
  type PageGlobals,
} from "../helpers/client_page.ts";
import { seriousViolations } from "../helpers/axe.ts";

const BODY = `<p>Intro text.</p><p><img src="/noop" width="4" height="4"></p>`;
const SEED = {
  "pages:home": { title: "Hello", body: BODY, hero: "/noop" },
  // For axe: no finding of the kind axe reports itself (an image without
  // alt), so whatever it finds is the marks' or the panel's.
  "pages:axe": { body: "<p>Intro text.</p>", hero: "/noop" },
  "pages:links": { body: '<p>See <a href="/about">about us</a>.</p>' },
};
const REGION = "div[data-cms-field]";
const HERO = "img[data-cms-field]";

const page = (key: string) => async (site: ClientSite) =>
  `<main><h1>Site</h1><h2>News</h2>${await marker(
    site,
    "div",
    `pages:${key}:body`,
    true,
  )}<img data-cms-field="pages:${key}:hero" data-cms-type="image" src="/noop" width="40" height="30" alt="IMG_1234.jpg"></main>`;

const waitCount = (page: Page, text: string) =>
  page.waitFor(
    (text) =>
      [
        ...document.querySelector("cms-edit-bar")!.shadowRoot!
          .querySelectorAll("button"),
      ].some((b) => !b.hidden && b.textContent === text) ||
      (text === "" &&
        ![
          ...document.querySelector("cms-edit-bar")!.shadowRoot!
            .querySelectorAll("button"),
        ].some((b) => !b.hidden && /problem/.test(b.textContent ?? ""))),
    { timeout: 8000 },
    text,
  );

/** The outline style of the element `sel` (marks are dotted outlines). */
const outline = (page: Page, sel: string) =>
  page.evaluate(
    (sel) => getComputedStyle(document.querySelector(sel)!).outlineStyle,
    sel,
  );

/** The text of the element that describes `sel` (its own description). */
const described = (page: Page, sel: string) =>
  page.evaluate((sel) => {
    const ids = document.querySelector(sel)!.getAttribute("aria-describedby");
    return (ids ?? "").split(" ").map((id) =>
      document.getElementById(id)?.textContent ?? ""
    ).join(" ");
  }, sel);

/** Clicks the panel's button whose text matches `re`. */
const inPanel = (page: Page, re: string) =>
  page.evaluate((re) => {
    const b = [
      ...document.querySelector("cms-checks")!.shadowRoot!
        .querySelectorAll(".pn button"),
    ].find((b) => new RegExp(re).test(b.textContent ?? "")) as HTMLElement;
    b.click();
  }, re);

/** Opens the Checks panel from the bar. */
const openPanel = async (page: Page) => {
  await page.evaluate(() =>
    ([
      ...document.querySelector("cms-edit-bar")!.shadowRoot!
        .querySelectorAll("button"),
    ].find((b) => /problem/.test(b.textContent ?? "")) as HTMLElement).click()
  );
  await page.waitFor(() =>
    document.querySelector("cms-checks")?.shadowRoot?.querySelector(".pn")
  );
};

/** The panel's rows' texts. */
const rows = (page: Page) =>
  page.evaluate(() =>
    [
      ...document.querySelector("cms-checks")!.shadowRoot!
        .querySelectorAll(".pn li"),
    ].map((li) => li.textContent)
  );

/** Puts the caret at the end of the region's first paragraph. */
const caretInFirst = (page: Page) =>
  page.evaluate((sel) => {
    const p = document.querySelector(`${sel} p`)!;
    (document.querySelector(sel) as HTMLElement).focus();
    const r = document.createRange();
    r.selectNodeContents(p);
    r.collapse(false);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(r);
  }, REGION);

/**
 * The page script: on `/links` the page config names the link check
 * endpoint, which the page answers itself (`/gone…` is broken) and records;
 * `?draft` is draft mode, whose drafts listing and publish it answers.
 */
const SCRIPT = `import * as cms from "/dist/mod.js";
window.cms = cms;
window.linkChecks = [];
const real = fetch.bind(globalThis);
globalThis.fetch = (input, init) => {
  const url = String(input);
  if (url.endsWith("/api/cms/drafts")) return Promise.resolve(Response.json({ drafts: [] }));
  if (url.endsWith("/api/cms/publish")) return Promise.resolve(Response.json({ published: JSON.parse(init.body).fields }));
  if (url !== "/api/cms/checks/links") return real(input, init);
  const { paths } = JSON.parse(init.body);
  linkChecks.push(paths);
  const broken = paths.filter((p) => p.startsWith("/gone"));
  return Promise.resolve(Response.json({ broken, unknown: [] }));
};
window.cmsHandle = cms.mountCms(location.pathname === "/links" ? { checks: "/api/cms/checks/links" } : location.search === "?draft" ? { publish: "/api/cms/publish" } : {});`;

clientSiteTest("checks: marks while typing, the panel, its fixes", {
  seed: SEED,
  allowlist: { pages: { title: "plain", body: "rich", hero: "image" } },
  pages: { "/": page("home"), "/axe": page("axe"), "/links": page("links") },
  script: SCRIPT,
}, async (t, site, browser) => {
  const open = async (p?: Page, path = "/", n = "2 problems") => {
    const tab = p ?? await browser.newPage();
    await tab.goto(`${site.url}${path}`);
    await tab.evaluate(() =>
      (globalThis as unknown as PageGlobals).cmsHandle.ready
    );
    await waitCount(tab, n);
    return tab;
  };

  await t.step("found at load: marked, described, counted", async () => {
    const tab = await open();
    try {
      assert.equal(await outline(tab, `${REGION} img`), "dotted");
      assert.equal(await outline(tab, `${REGION} p`), "none");
      assert.match(await described(tab, REGION), /Image without alt text/);
      assert.match(await described(tab, HERO), /Alt text is a file name/);
      if (tab.engine === "chromium" && tab.puppeteer) {
        // The accessibility tree has it as the region's description (CDP).
        const region = await tab.puppeteer.$(REGION);
        const node = await tab.puppeteer.accessibility.snapshot({
          root: region!,
          interestingOnly: false,
        });
        assert.match(node?.description ?? "", /Image without alt text/);
      }
      // Nothing was written into the region: its value is unchanged.
      assert.equal(
        await tab.evaluate(
          (sel) => document.querySelector(sel)!.innerHTML,
          REGION,
        ),
        BODY,
      );
    } finally {
      await tab.close();
    }
  });

  await t.step("typing marks a repeated word; fixing it clears", async () => {
    const tab = await open();
    try {
      await caretInFirst(tab);
      await tab.type(" the the");
      await waitCount(tab, "3 problems");
      assert.equal(await outline(tab, `${REGION} p`), "dotted");
      // The caret is in the marked paragraph: its tip shows the message.
      await tab.waitFor(() => {
        const tip = document.querySelector("cms-checks")!.shadowRoot!
          .querySelector("div.k:not(.pn)") as HTMLElement;
        return !tip.hidden && /Repeated word/.test(tip.textContent ?? "");
      });
      for (let i = 0; i < 4; i++) await tab.press("Backspace");
      await waitCount(tab, "2 problems");
      assert.equal(await outline(tab, `${REGION} p`), "none");
      // The saved value carries no mark.
      await tab.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.save()
      );
      const saved = (await site.store.get("pages", "home"))?.body as string;
      assert.doesNotMatch(saved, /cms-check|outline|aria-/);
    } finally {
      await tab.close();
    }
  });

  await t.step("the panel jumps and fixes a fake list", async () => {
    const tab = await open();
    try {
      await tab.evaluate((sel) => {
        const el = document.querySelector(sel) as HTMLElement;
        el.dispatchEvent(new InputEvent("beforeinput"));
        el.insertAdjacentHTML("beforeend", "<p>• one</p><p>• <em>two</em></p>");
        el.dispatchEvent(new InputEvent("input"));
      }, REGION);
      await waitCount(tab, "3 problems");
      assert.equal(await outline(tab, `${REGION} p:last-child`), "dotted");
      await openPanel(tab);
      const texts = await rows(tab);
      assert.equal(texts.length, 3);
      assert.ok(texts.some((r) => /posing as a list.*Make a list/.test(r!)));
      // Show: the image field gets focus.
      await inPanel(tab, "file name");
      assert.ok(
        await tab.evaluate(
          (sel) => document.activeElement === document.querySelector(sel),
          HERO,
        ),
      );
      // Show: the caret goes before the region's image.
      await openPanel(tab);
      await inPanel(tab, "Image without alt text");
      assert.ok(
        await tab.evaluate((sel) => {
          const s = getSelection()!;
          const region = document.querySelector(sel)!;
          return document.activeElement === region &&
            region.contains(s.anchorNode) &&
            s.anchorNode!.childNodes[s.anchorOffset]?.nodeName === "IMG";
        }, REGION),
      );
      await inPanel(tab, "Make a list");
      await waitCount(tab, "2 problems");
      assert.equal(
        await tab.evaluate(
          (sel) => document.querySelector(`${sel} ul`)?.outerHTML,
          REGION,
        ),
        "<ul><li>one</li><li><em>two</em></li></ul>",
      );
      // One undo step brings the paragraphs back.
      await tab.evaluate(
        (sel) => (document.querySelector(sel) as HTMLElement).focus(),
        REGION,
      );
      await tab.press("z", ["Control"]);
      await waitCount(tab, "3 problems");
    } finally {
      await tab.close();
    }
  });

  await t.step("alt text through the alt dialog", async () => {
    const tab = await open();
    try {
      await openPanel(tab);
      await inPanel(tab, "Alt text…");
      await tab.waitFor(() =>
        document.querySelector("cms-checks")!.shadowRoot!.querySelector(
          "dialog[open] input[type=text]",
        )
      );
      await tab.evaluate(() => {
        const d = document.querySelector("cms-checks")!.shadowRoot!
          .querySelector("dialog[open]")!;
        (d.querySelector("input[type=text]") as HTMLInputElement).value =
          "A red dot";
        (d.querySelector("[type=submit]") as HTMLElement).click();
      });
      await waitCount(tab, "1 problem");
      assert.equal(
        await tab.evaluate(
          (sel) => document.querySelector(`${sel} img`)!.getAttribute("alt"),
          REGION,
        ),
        "A red dot",
      );
      // The panel follows: one row left, the image field's.
      assert.deepEqual((await rows(tab)).length, 1);
    } finally {
      await tab.close();
    }
  });

  await t.step("an added link to a missing page is broken", async () => {
    const tab = await open(undefined, "/links", "1 problem");
    try {
      await tab.evaluate((sel) => {
        const el = document.querySelector(sel) as HTMLElement;
        el.dispatchEvent(new InputEvent("beforeinput"));
        el.insertAdjacentHTML(
          "beforeend",
          '<p><a href="/gone?x=1">Old page</a>, <a href="https://example.com/gone">elsewhere</a>, <a href="/about">about</a></p>',
        );
        el.dispatchEvent(new InputEvent("input"));
      }, REGION);
      await waitCount(tab, "2 problems");
      // Only the new link to this site was sent: not the one there before,
      // not the other host's.
      assert.deepEqual(
        await tab.evaluate(() =>
          (globalThis as unknown as { linkChecks: string[][] }).linkChecks
        ),
        [["/gone?x=1"]],
      );
      assert.equal(
        await outline(tab, `${REGION} a[href^="/gone"]`),
        "dotted",
      );
      assert.match(await described(tab, REGION), /Link to a missing page/);
    } finally {
      await tab.close();
    }
  });

  await t.step(
    "the toast after a publish says what the checks find",
    async () => {
      const tab = await browser.newPage();
      try {
        await open(tab, "/?draft");
        await caretInFirst(tab);
        await tab.type(" More.");
        await tab.evaluate(() =>
          (globalThis as unknown as PageGlobals).cmsHandle.save()
        );
        await tab.waitFor(() =>
          [
            ...document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelectorAll("button"),
          ].find((b) => b.textContent === "Publish (1)")
        );
        await tab.evaluate(() =>
          ([
            ...document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelectorAll("button"),
          ].find((b) => b.textContent === "Publish (1)") as HTMLElement).click()
        );
        await tab.waitFor(() =>
          [
            ...document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelectorAll(".n span"),
          ].some((s) => s.textContent === "Published: Body. 2 problems.")
        );
      } finally {
        await tab.close();
      }
    },
  );

  for (const dark of [false, true]) {
    await t.step(
      `axe with marks and panel open${dark ? ", dark" : ""}`,
      async () => {
        const own = dark && browser.engine !== "chromium" &&
          await launch(browser.engine, { scheme: "dark" });
        const tab = await (own || browser).newPage();
        try {
          if (dark && browser.engine === "chromium") {
            await tab.puppeteer!.emulateMediaFeatures([
              { name: "prefers-color-scheme", value: "dark" },
            ]);
          }
          await open(tab, "/axe", "1 problem");
          assert.equal(
            await tab.evaluate(() =>
              matchMedia("(prefers-color-scheme: dark)").matches
            ),
            dark,
          );
          await caretInFirst(tab);
          await tab.type(" the the");
          await waitCount(tab, "2 problems");
          await openPanel(tab);
          assert.deepEqual(await seriousViolations(tab), []);
        } finally {
          await tab.close();
          if (own) await own.close();
        }
      },
    );
  }
});
