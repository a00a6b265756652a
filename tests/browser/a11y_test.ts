/**
 * axe-core on the edit-mode page in every engine: a rich region focused
 * (its toolbar shown), the edit bar with unsaved changes, then each popover
 * open in turn: the link panel (Ctrl+K), the image alt dialog (after an
 * upload), the image panel (a click on the image), the history panel, the
 * history diff, the conflict dialog (a 409) and, in draft mode, the publish
 * controls. Goal: 0 serious or critical violations, and nothing wider than
 * its box or the window, at 1280 px, at 200% zoom, at 375 px (a phone), in
 * the dark scheme (Chromium emulated over CDP; Firefox and WebKit
 * launched dark) and (Chromium) with `forced-colors: active`.
 */
import assert from "node:assert/strict";
import { launch, type LaunchOptions, type Page } from "../helpers/browser.ts";
import {
  type ClientSite,
  clientSiteTest,
  marker,
  type PageGlobals,
} from "../helpers/client_page.ts";
import { png } from "../fixtures/images.ts";
import { seriousViolations } from "../helpers/axe.ts";

const SEED = {
  "pages:home": {
    title: "Hello",
    subtitle: "Sub",
    body: "<p>Body text</p><ul><li>One</li></ul>",
    features: ["Fast"],
  },
};
const REGION = "div[data-cms-field]";
const TOOLBAR = "cms-rich-toolbar";

/**
 * The test site serves no history or drafts endpoint (those have their own
 * suites): the page answers them from fixed JSON so the panels show real
 * rows. `/?draft` mounts in draft mode (a publish endpoint configured) with
 * scheduling (Publish at… shows only where a schedule endpoint is wired).
 */
const SCRIPT = `import * as cms from "/dist/mod.js";
window.cms = cms;
const real = fetch.bind(globalThis);
const json = (body) => Promise.resolve(new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } }));
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input), location.href);
  if (url.pathname === "/api/cms/history") {
    const revision = url.searchParams.get("revision");
    if (revision) return json({ value: revision === "r2" ? "Hello" : "Hi there" });
    return json({ revisions: [
      { id: "r2", at: "2025-05-02T10:00:00Z", editor: "Ada", bytes: 5 },
      { id: "r1", at: "2025-05-01T09:30:00Z", editor: null, bytes: 8 },
    ] });
  }
  if (url.pathname === "/api/cms/drafts") return json({ drafts: [{ field: "pages:home:title" }] });
  if (url.pathname === "/api/cms/schedule") return json({ schedules: [] });
  return real(input, init);
};
window.cmsHandle = cms.mountCms(location.search === "?draft" ? { publish: "/api/cms/publish", schedule: "/api/cms/schedule" } : {});`;

async function homePage(site: ClientSite): Promise<string> {
  return `<main>
${await marker(site, "h2", "pages:home:title")}
${await marker(site, "p", "pages:home:subtitle")}
${await marker(site, "div", "pages:home:body", true)}
<ul>${await marker(site, "li", "pages:home:features.0")}</ul></main>`;
}

/** Opens the page, makes one edit and focuses the rich region. */
async function editMode(page: Page, site: ClientSite, path = "/") {
  await page.goto(site.url + path);
  await page.evaluate(() =>
    (globalThis as unknown as PageGlobals).cmsHandle.ready
  );
  await page.click("p[data-cms-field]");
  await page.press("End");
  await page.type("!");
  // Tab to the rich region (a click's middle may land on its image on a
  // narrow screen, which opens the image panel).
  await page.press("Tab");
  await page.waitFor(() =>
    document.activeElement?.matches("div[data-cms-field]") === true
  );
}

/** Waits for `selector` inside the open shadow root of `host`. */
const inShadow = (page: Page, host: string, selector: string) =>
  page.waitFor(
    (host: string, selector: string) =>
      document.querySelector(host)?.shadowRoot?.querySelector(selector),
    { timeout: 5000 },
    host,
    selector,
  );

/** Clicks the edit bar's button whose text starts with `label`. */
const clickBar = (page: Page, label: string) =>
  page.evaluate((label: string) => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const button = [...root.querySelectorAll("button")]
      .find((b) => b.textContent!.startsWith(label));
    if (!button) throw new Error(`no ${label} button`);
    button.click();
  }, label);

/** Waits until no dialog, panel or popover of the editor is open. */
const allClosed = (page: Page) =>
  page.waitFor(
    (toolbar: string) => {
      const bar = document.querySelector("cms-edit-bar")?.shadowRoot;
      const rich = document.querySelector(toolbar)?.shadowRoot;
      return !(document.querySelector("cms-history") ||
        bar?.querySelector("dialog") || rich?.querySelector("dialog[open]") ||
        rich?.querySelector("form"));
    },
    { timeout: 5000 },
    TOOLBAR,
  );

/** One popover: how to open it (waiting until shown) and how to close it. */
interface Popover {
  name: string;
  open(page: Page, site: ClientSite): Promise<void>;
  close(page: Page): Promise<void>;
}

/** The popovers of the normal mode, in the order they are opened. */
function popovers(image: string): Popover[] {
  return [
    {
      name: "link panel (Ctrl+K)",
      async open(page) {
        await page.evaluate((sel: string) => {
          const text = document.querySelector(`${sel} p`)!.firstChild!;
          getSelection()!.setBaseAndExtent(text, 0, text, 4);
        }, REGION);
        await page.press("k", ["Control"]);
        await inShadow(page, TOOLBAR, "form input[name=linkUrl]");
      },
      close: (page) => page.press("Escape"),
    },
    {
      name: "image alt dialog (after an upload)",
      async open(page) {
        // The caret at the end of the region's text (a click's middle may
        // land on an image there on a narrow screen).
        await page.evaluate((sel: string) => {
          const el = document.querySelector(sel) as HTMLElement;
          el.focus();
          const range = document.createRange();
          range.selectNodeContents(el);
          range.collapse(false);
          getSelection()!.removeAllRanges();
          getSelection()!.addRange(range);
        }, REGION);
        await page.upload(`${TOOLBAR} >>> input[type=file]`, image);
        await inShadow(page, TOOLBAR, "dialog[open] input[type=text]");
      },
      async close(page) {
        await page.type("A grey square");
        await page.press("Enter");
        await page.waitFor(
          (sel: string) =>
            document.querySelector(`${sel} img[alt="A grey square"]`),
          {
            timeout: 5000,
          },
          REGION,
        );
      },
    },
    {
      name: "image panel (click on the image)",
      async open(page) {
        await page.click(`${REGION} img`);
        await inShadow(page, TOOLBAR, "form[aria-label=Image]");
      },
      // Focus is on its first button (Replace): Esc closes it.
      close: (page) => page.press("Escape"),
    },
    {
      name: "media library dialog (image panel, Choose from library)",
      async open(page) {
        await page.click(`${REGION} img`);
        await inShadow(page, TOOLBAR, "form[aria-label=Image]");
        await page.evaluate((toolbar: string) => {
          const buttons = document.querySelector(toolbar)!.shadowRoot!
            .querySelectorAll("form[aria-label=Image] button");
          [...buttons].find((b) => b.textContent === "Choose from library")!
            .dispatchEvent(new MouseEvent("click"));
        }, TOOLBAR);
        await inShadow(page, "cms-media-library", "dialog[open] [role=option]");
      },
      async close(page) {
        await page.press("Escape");
        await page.waitFor(() => !document.querySelector("cms-media-library"));
        // Back in the image panel: its Cancel closes it.
        await page.evaluate((toolbar: string) => {
          const buttons = document.querySelector(toolbar)!.shadowRoot!
            .querySelectorAll("form[aria-label=Image] button");
          (buttons[buttons.length - 1] as HTMLElement).click();
        }, TOOLBAR);
      },
    },
    {
      name: "history panel",
      async open(page) {
        await clickBar(page, "History");
        await inShadow(page, "cms-history", "dialog[open] li button");
      },
      close: (page) => page.press("Escape"),
    },
    {
      name: "history diff (Restore on an older revision)",
      async open(page) {
        await clickBar(page, "History");
        await inShadow(page, "cms-history", "dialog[open] li button");
        await page.press("Enter"); // the older revision's Restore is focused
        await inShadow(page, "cms-history", "dialog[open] .df del");
        const diff = await page.evaluate(() => {
          const root = document.querySelector("cms-history")!.shadowRoot!;
          const q = (s: string) =>
            [...root.querySelectorAll(s)].map((e) => e.textContent);
          return {
            del: q(".df del"),
            ins: q(".df ins"),
            focused: root.activeElement?.textContent,
          };
        });
        // Current "Hello", the older revision "Hi there".
        assert.deepEqual(diff.del, ["Hello"]);
        assert.deepEqual(diff.ins, ["Hi there"]);
        assert.equal(diff.focused, "Restore this version");
      },
      close: (page) => page.press("Escape"),
    },
    {
      name: "conflict dialog (a 409)",
      async open(page, site) {
        // Save everything first (the next page loads the stored values),
        // then one more edit whose save gets a 409.
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).cmsHandle.save()
        );
        // To the subtitle by keyboard: the focused region's toolbar floats
        // over the page above it and may cover the subtitle (at 200% zoom
        // it does), so a click there would land on the toolbar. Shift+Tab
        // reaches the toolbar (one stop), then the subtitle.
        await page.press("Tab", ["Shift"]);
        await page.press("Tab", ["Shift"]);
        await page.waitFor(() =>
          document.activeElement?.matches("p[data-cms-field]") === true
        );
        await page.press("End");
        await page.type("?");
        site.saveAnswers.push(() =>
          Response.json({
            error: "conflict",
            value: "Sub from someone else",
            version: "v-other",
          }, { status: 409 })
        );
        await page.evaluate(() => {
          // Not awaited: the save waits for the editor's choice.
          void (globalThis as unknown as PageGlobals).cmsHandle.save();
        });
        await inShadow(page, "cms-edit-bar", "dialog[open]");
      },
      close: (page) => page.press("Escape"),
    },
  ];
}

/** Draft mode: the edit bar's Publish and Discard. */
const publish: Popover = {
  name: "publish controls (draft mode)",
  async open(page, site) {
    await editMode(page, site, "/?draft");
    await page.waitFor(() =>
      [
        ...document.querySelector("cms-edit-bar")!.shadowRoot!
          .querySelectorAll("button"),
      ].some((b) => b.textContent === "Publish (1)"), { timeout: 5000 });
  },
  close: async () => {},
};

/** Draft mode: the Publish at… dialog. */
const schedule: Popover = {
  name: "publish at dialog (draft mode)",
  async open(page) {
    await clickBar(page, "Publish at");
    await inShadow(page, "cms-schedule", "dialog[open] input");
  },
  async close(page) {
    await page.press("Escape");
    await page.waitFor(() => !document.querySelector("cms-schedule"));
  },
};

/** A way to look at the page: normal, zoomed or in forced colors. */
interface Mode {
  name: string;
  prepare(page: Page): Promise<void>;
  /** A media query the page must match in this mode. */
  matches?: string;
  /** Needs its own browser, launched so (Firefox and WebKit). */
  launch?: LaunchOptions;
}

const MODES: Mode[] = [
  {
    name: "normal size (1280 px wide)",
    prepare: (page) => page.setViewport(1280, 800),
  },
  {
    name: "at 200% zoom (a 1280×800 screen)",
    prepare: (page) => page.setViewport(640, 400),
  },
  {
    name: "on a phone (375 px wide)",
    prepare: (page) => page.setViewport(375, 740),
  },
];

/**
 * What sticks out sideways while a popover is open: the page (a horizontal
 * scroll) or an open dialog or panel of the editor wider than its box.
 */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const out: string[] = [];
    const html = document.documentElement;
    if (html.scrollWidth > innerWidth) out.push(`page ${html.scrollWidth}px`);
    for (const host of document.querySelectorAll("*")) {
      const root = host.shadowRoot;
      if (!root) continue;
      for (const d of root.querySelectorAll("dialog[open], form")) {
        const box = d.getBoundingClientRect();
        if (box.width === 0) continue;
        if (d.scrollWidth > d.clientWidth + 1 || box.right > innerWidth + 1) {
          const wide = [...d.querySelectorAll("*")].filter((e) =>
            e.getBoundingClientRect().right > box.right + 1
          ).map((e) => `${e.localName}.${e.className}`).join(" ");
          out.push(
            `${host.localName} ${d.localName} ${d.scrollWidth}px in ${d.clientWidth}px (${wide})`,
          );
        }
      }
    }
    return out;
  });

// Media emulation needs CDP (Emulation.setEmulatedMedia): Chromium. The
// other engines get the dark scheme from a browser launched in it.
const DARK: Mode = {
  name: "with prefers-color-scheme: dark",
  matches: "(prefers-color-scheme: dark)",
  async prepare(page) {
    await page.puppeteer!.emulateMediaFeatures([
      { name: "prefers-color-scheme", value: "dark" },
    ]);
  },
};
const DARK_LAUNCHED: Mode = {
  name: "with prefers-color-scheme: dark (launched dark)",
  matches: "(prefers-color-scheme: dark)",
  prepare: async () => {},
  launch: { scheme: "dark" },
};

const FORCED: Mode = {
  name: "with forced-colors: active",
  matches: "(forced-colors: active)",
  async prepare(page) {
    await page.puppeteer!.emulateMediaFeatures([
      { name: "forced-colors", value: "active" },
    ]);
  },
};

clientSiteTest(
  "a11y: axe-core finds no serious or critical violations in edit mode",
  { pages: { "/": homePage }, seed: SEED, script: SCRIPT },
  async (t, site, browser) => {
    const dir = await Deno.makeTempDir({ prefix: "cms-a11y-" });
    const image = `${dir}/grey.png`;
    await Deno.writeFile(image, await png(40, 30));
    const modes = browser.engine === "chromium"
      ? [...MODES, DARK, FORCED]
      : [...MODES, DARK_LAUNCHED];
    try {
      for (const mode of modes) {
        await t.step(mode.name, async (t) => {
          const own = mode.launch &&
            await launch(browser.engine, mode.launch);
          const page = await (own ?? browser).newPage();
          try {
            await mode.prepare(page);
            await editMode(page, site);
            if (mode.matches) {
              assert.ok(
                await page.evaluate((q) => matchMedia(q).matches, mode.matches),
                mode.matches,
              );
            }
            await t.step("region focused, toolbar shown", async () => {
              assert.deepEqual(await seriousViolations(page), []);
            });
            for (const popover of [...popovers(image), publish, schedule]) {
              await t.step(popover.name, async () => {
                await popover.open(page, site);
                assert.deepEqual(await seriousViolations(page), []);
                assert.deepEqual(await overflow(page), [], "fits the width");
                await popover.close(page);
                await allClosed(page);
              });
            }
          } finally {
            await page.close();
            await own?.close();
          }
        });
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
