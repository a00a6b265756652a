/**
 * Browser tests of the rich editor's link panel in Chromium, Firefox and
 * WebKit: Ctrl+K on a selection, refused schemes with a message, the
 * accepted ones (https, mailto, tel, relative, a bare host), editing a link
 * by clicking it (text, new tab), removing it, undo, and the stored HTML.
 */
import assert from "node:assert/strict";
import type { Page } from "../helpers/browser.ts";
import { clientSiteTest, marker } from "../helpers/client_page.ts";

const SEED = { "pages:home": { title: "Hello", body: "<p>Body text</p>" } };
const REGION = "div[data-cms-field]";
const BAR = "cms-rich-toolbar";
const REL = ' rel="noopener noreferrer nofollow"';

const html = (page: Page) =>
  page.evaluate((sel) => document.querySelector(sel)!.innerHTML, REGION);

/** Waits until the region's HTML is `want` (fails with the last value). */
async function expectHtml(page: Page, want: string) {
  await page.waitFor(
    (sel, want) => document.querySelector(sel)!.innerHTML === want,
    { timeout: 3000 },
    REGION,
    want,
  ).catch(async () => assert.equal(await html(page), want));
}

/** Selects `word` in the region's first text node. */
const select = (page: Page, word: string) =>
  page.evaluate(
    (sel, word) => {
      const el = document.querySelector(sel) as HTMLElement;
      el.focus();
      const text = el.querySelector("p")!.firstChild!;
      const at = text.textContent!.indexOf(word);
      getSelection()!.setBaseAndExtent(text, at, text, at + word.length);
    },
    REGION,
    word,
  );

/** The open link panel: its name, fields, message and focused field. */
const panel = (page: Page) =>
  page.evaluate((bar) => {
    const root = document.querySelector(bar)!.shadowRoot!;
    const form = root.querySelector("form");
    if (!form || form.closest("[hidden]")) return null;
    const input = (name: string) =>
      form.querySelector(`[name=${name}]`) as HTMLInputElement;
    return {
      name: form.getAttribute("aria-label"),
      href: input("linkUrl").value,
      hrefLabel: input("linkUrl").closest("label")!.textContent!.trim(),
      text: input("linkText").value,
      tab: input("tab").checked,
      error: root.querySelector("[role=alert]")?.textContent ?? "",
      focused: (root.activeElement as HTMLInputElement | null)?.name ?? null,
      remove: !(form.querySelectorAll("button")[1] as HTMLElement).hidden,
    };
  }, BAR);

/** Replaces the focused panel field's value by typing. */
async function fill(page: Page, name: string, value: string) {
  await page.evaluate(
    (bar, name) => {
      const input = document.querySelector(bar)!.shadowRoot!.querySelector(
        `[name=${name}]`,
      ) as HTMLInputElement;
      input.focus();
      input.select();
    },
    BAR,
    name,
  );
  await page.type(value);
}

clientSiteTest("rich: the link panel", {
  seed: SEED,
  pages: { "/": (site) => marker(site, "div", "pages:home:body", true) },
}, async (t, site, browser) => {
  const open = async () => {
    const page = await browser.newPage();
    await page.goto(site.url + "/");
    await page.waitFor(BAR);
    await page.click(REGION);
    return page;
  };

  await t.step(
    "Ctrl+K links the selection; refused schemes get a message",
    async () => {
      const page = await open();
      try {
        await select(page, "Body");
        await page.press("k", ["Control"]);
        await page.waitFor(() =>
          document.querySelector("cms-rich-toolbar")!.shadowRoot!.querySelector(
            "form",
          )
        );
        const p = await panel(page);
        assert.deepEqual(
          { name: p?.name, label: p?.hrefLabel, text: p?.text, f: p?.focused },
          { name: "Link", label: "Address", text: "Body", f: "linkUrl" },
        );
        assert.equal(p?.remove, false, "no Remove for a new link");
        for (
          const bad of [
            "javascript:alert(1)",
            "data:text/html,<b>x</b>",
            "ftp://files.example/",
            "//evil.example/",
          ]
        ) {
          await fill(page, "linkUrl", bad);
          await page.press("Enter");
          const after = await panel(page);
          assert.match(after?.error ?? "", /https:\/\/, mailto: or tel:/, bad);
          assert.equal(after?.focused, "linkUrl", bad);
          assert.equal(await html(page), "<p>Body text</p>", bad);
        }
        await fill(page, "linkUrl", "https://example.com/a");
        await page.press("Enter");
        await expectHtml(
          page,
          '<p><a href="https://example.com/a">Body</a> text</p>',
        );
        assert.equal(await panel(page), null, "the panel closes");
        await page.press("z", ["Control"]);
        await expectHtml(page, "<p>Body text</p>");
      } finally {
        await page.close();
      }
    },
  );

  await t.step("mailto, tel, relative and bare-host addresses", async () => {
    const page = await open();
    try {
      const cases: [string, string][] = [
        ["mailto:ada@example.com", "mailto:ada@example.com"],
        ["tel:+49301234567", "tel:+49301234567"],
        ["/about#team", "/about#team"],
        ["example.org/x", "https://example.org/x"],
      ];
      for (const [typed, href] of cases) {
        await page.evaluate((sel) => {
          document.querySelector(sel)!.innerHTML = "<p>Body text</p>";
        }, REGION);
        await select(page, "text");
        await page.click(`${BAR} >>> [aria-label=Link]`);
        await page.waitFor(() =>
          document.querySelector("cms-rich-toolbar")!.shadowRoot!
            .querySelector("form")
        );
        await fill(page, "linkUrl", typed);
        await page.press("Enter");
        await expectHtml(page, `<p>Body <a href="${href}">text</a></p>`);
      }
    } finally {
      await page.close();
    }
  });

  await t.step(
    "clicking a link edits it; Remove unwraps it; saved HTML",
    async () => {
      const page = await open();
      try {
        await select(page, "Body");
        await page.press("k", ["Control"]);
        await page.waitFor(() =>
          document.querySelector("cms-rich-toolbar")!.shadowRoot!.querySelector(
            "form",
          )
        );
        await fill(page, "linkUrl", "https://example.com/");
        await page.press("Enter");
        await expectHtml(
          page,
          '<p><a href="https://example.com/">Body</a> text</p>',
        );
        await page.click(`${REGION} a`);
        await page.waitFor(() =>
          document.querySelector("cms-rich-toolbar")!.shadowRoot!.querySelector(
            "form",
          )
        );
        const p = await panel(page);
        assert.deepEqual(
          { href: p?.href, text: p?.text, tab: p?.tab, remove: p?.remove },
          {
            href: "https://example.com/",
            text: "Body",
            tab: false,
            remove: true,
          },
        );
        await fill(page, "linkText", "Home");
        await page.evaluate(
          (bar) =>
            (document.querySelector(bar)!.shadowRoot!.querySelector(
              "[name=tab]",
            ) as HTMLInputElement).click(),
          BAR,
        );
        await page.evaluate(
          (bar) =>
            (document.querySelector(bar)!.shadowRoot!.querySelector(
              "button[type=submit]",
            ) as HTMLElement).click(),
          BAR,
        );
        const edited =
          '<p><a href="https://example.com/" target="_blank">Home</a> text</p>';
        await expectHtml(page, edited);
        await page.evaluate(() =>
          (globalThis as unknown as {
            cmsHandle: { save(): Promise<void> };
          }).cmsHandle.save()
        );
        const stored = await site.store.get("pages", "home");
        assert.equal(
          stored?.body,
          `<p><a href="https://example.com/" target="_blank"${REL}>Home</a> text</p>`,
        );
        await page.click(`${REGION} a`);
        await page.waitFor(() =>
          document.querySelector("cms-rich-toolbar")!.shadowRoot!.querySelector(
            "form",
          )
        );
        await page.evaluate(
          (bar) =>
            (document.querySelector(bar)!.shadowRoot!.querySelectorAll(
              "form button",
            )[1] as HTMLElement).click(),
          BAR,
        );
        await expectHtml(page, "<p>Home text</p>");
        await page.press("z", ["Control"]);
        await expectHtml(page, edited);
      } finally {
        await page.close();
      }
    },
  );
});
