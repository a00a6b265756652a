/**
 * Regenerates the UI gallery in `docs/ui/`: every surface of the editor
 * (edit bar, another editor's presence, list item controls, toolbar with a
 * tooltip, block-type menu, link panel, alt text dialog, image tools,
 * shortcuts list, image field panel, media library, history and its diff,
 * conflict dialog, content checks' marks and panel, publish controls,
 * scheduled publishing, the publish toast, review in place: comment
 * highlights, the comments panel and a reviewer's view, and the locale
 * switcher with untranslated fields), in the light and dark schemes, at
 * 1280 px and 375 px wide, on the demo in Chromium (puppeteer-core,
 * `tests/helpers/browser.ts`). Writes
 * `docs/ui/<surface>-<scheme>-<width>.png` and `docs/ui/README.md`.
 *
 * Run: `deno task screenshots`; `deno task screenshots review-` takes only
 * the scenes whose names start with `review-` (the other pictures stay).
 *
 * @module
 */
import { startDemo } from "../demo/main.ts";
import { type Browser, launch, type Page } from "../tests/helpers/browser.ts";
import { png } from "../tests/fixtures/images.ts";

const OUT = new URL("../docs/ui/", import.meta.url).pathname;
const PASSWORD = "screenshots only";
const SCHEMES = ["light", "dark"] as const;
const WIDTHS = [1280, 375] as const;
/**
 * How the demo runs for a scene: the default (saves go live), `draft`
 * (publish controls) or `locales` (English and German).
 */
const MODES = [undefined, "draft", "locales"] as const;
type Mode = typeof MODES[number];

/** What scenes get besides the page. */
interface Context {
  /** A PNG to upload. */
  image: string;
  /** The demo's base URL. */
  url: string;
  browser: Browser;
  /** A second editor's page (presence), closed by its scene. */
  other?: Page;
}

/** One picture: how to get there from the previous one. */
interface Scene {
  name: string;
  title: string;
  /** The demo's mode; default: saves go live. */
  mode?: Mode;
  run(page: Page, ctx: Context): Promise<void>;
  /** After the picture: undoes what only it needed (runs if `run` failed). */
  after?(page: Page, ctx: Context): Promise<void>;
}

const shadow = (page: Page, host: string, sel: string) =>
  page.waitFor(
    (host: string, sel: string) =>
      document.querySelector(host)?.shadowRoot?.querySelector(sel),
    { timeout: 10_000 },
    host,
    sel,
  );

/**
 * Selects `text` in the body region. Resolves once `selectionchange` has
 * been dispatched: the editor remembers the selection then (an image
 * upload or a link goes where it remembers).
 */
const select = (page: Page, text: string, collapse = false) =>
  page.evaluate(
    (text: string, collapse: boolean) => {
      const el = document.querySelector(
        "[data-cms-field='pages:home:body']",
      ) as HTMLElement;
      el.focus();
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n; (n = walker.nextNode());) {
        const at = n.textContent!.indexOf(text);
        if (at < 0) continue;
        const end = at + text.length;
        const changed = new Promise((r) => {
          document.addEventListener("selectionchange", r, { once: true });
          setTimeout(r, 2000); // unchanged: no event
        });
        getSelection()!.setBaseAndExtent(n, collapse ? end : at, n, end);
        n.parentElement!.scrollIntoView({ block: "center" });
        return changed.then(() => {});
      }
    },
    text,
    collapse,
  );

const clickBar = (page: Page, label: string) =>
  page.evaluate((label: string) => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const button = [...root.querySelectorAll("button")]
      .find((b) => b.textContent!.startsWith(label));
    if (!button) throw new Error(`no bar button "${label}…"`);
    button.click();
  }, label);

const escape = (page: Page) => page.press("Escape");

/** Another editor's avatar in the edit bar. */
const AVATAR = "cms-edit-bar >>> cms-presence >>> span";

/** Presses Escape if `host` (a dialog's) is in the page; waits until gone. */
async function dismiss(page: Page, host: string): Promise<void> {
  const there = (host: string) => !!document.querySelector(host);
  if (!await page.evaluate(there, host)) return;
  await escape(page);
  await page.waitFor(
    (host: string) => !document.querySelector(host),
    { timeout: 10_000 },
    host,
  );
}

/** Clicks list item `item` (scrolled to the middle); waits for its controls. */
async function listControls(page: Page, item: string): Promise<void> {
  await page.evaluate(
    (sel: string) =>
      document.querySelector(sel)!.scrollIntoView({ block: "center" }),
    item,
  );
  await page.click(item);
  await shadow(page, "cms-list", "[role=toolbar]");
}

const SCENES: Scene[] = [
  {
    name: "edit-bar",
    title: "Edit bar with an unsaved change",
    async run(page) {
      await page.click("h1");
      await page.press("End", ["Control"]);
      await page.type(" today");
    },
  },
  {
    name: "presence",
    title: "Another editor on the page: in the bar, and on the title",
    async run(page, ctx) {
      const other = ctx.other = await ctx.browser.newPage();
      await editPage(other, ctx.url);
      // Each sees the other: presence (a lazy chunk) follows focus on both.
      for (const p of [page, other]) {
        await p.waitFor(AVATAR, { timeout: 15_000 });
      }
      // Focus events need the system focus.
      await other.puppeteer?.bringToFront();
      await other.click("h1");
      await page.waitFor("h1[data-cms-peer]", { timeout: 15_000 });
      await page.puppeteer?.bringToFront();
    },
    async after(page, ctx) {
      await ctx.other?.close();
      ctx.other = undefined;
      // The other editor leaves: nobody in the bar, no marked region.
      await page.waitFor(
        () =>
          !document.querySelector("[data-cms-peer]") &&
          !document.querySelector("cms-edit-bar")?.shadowRoot
            ?.querySelector("cms-presence")?.shadowRoot?.querySelector("span"),
        { timeout: 15_000 },
      );
    },
  },
  {
    name: "list",
    title: "List items: move up or down, remove, add (Alt+↑/↓, Enter)",
    async run(page) {
      await listControls(page, "[data-cms-field='pages:home:features.1']");
    },
  },
  {
    name: "toolbar",
    title: "Rich text toolbar, a tooltip with its shortcut",
    async run(page) {
      await select(page, "Sign in", true);
      await page.press("Tab", ["Shift"]);
      await page.press("Home");
    },
  },
  {
    name: "block-menu",
    title: "Block-type menu",
    async run(page) {
      for (let i = 0; i < 4; i++) await page.press("ArrowRight");
      await page.press("Enter");
      await shadow(page, "cms-rich-toolbar", "[role=menu]:not([hidden])");
    },
  },
  {
    name: "link-panel",
    title: "Link panel",
    async run(page) {
      await escape(page);
      await select(page, "media endpoint");
      await page.press("k", ["Control"]);
      await shadow(page, "cms-rich-toolbar", "form input[name=linkUrl]");
    },
  },
  {
    name: "alt-dialog",
    title: "Alt text dialog (while an image uploads)",
    async run(page, { image }) {
      await escape(page);
      await select(page, "Sign in", true);
      await page.upload("cms-rich-toolbar >>> input[type=file]", image);
      await shadow(page, "cms-rich-toolbar", "dialog[open] input[type=text]");
    },
  },
  {
    name: "image-tools",
    title: "Image tools (a click on an image in rich text)",
    async run(page) {
      await page.type("A grey square");
      await page.press("Enter");
      await page.waitFor("[data-cms-field='pages:home:body'] img", {
        timeout: 10_000,
      });
      await page.click("[data-cms-field='pages:home:body'] img");
      await shadow(page, "cms-rich-toolbar", "form[aria-label=Image]");
    },
  },
  {
    name: "shortcuts",
    title: "Keyboard shortcuts (Ctrl+/)",
    async run(page) {
      await escape(page);
      await select(page, "Sign in", true);
      await page.press("/", ["Control"]);
      await shadow(page, "cms-rich-toolbar", ".ks");
    },
  },
  {
    name: "image-field",
    title: "Image field panel",
    async run(page) {
      await escape(page);
      await page.evaluate(() =>
        document.querySelector("img[data-cms-type=image]")?.scrollIntoView({
          block: "center",
        })
      );
      await page.click("img[data-cms-type=image]");
      await shadow(page, "cms-image-field", "form");
    },
  },
  {
    name: "media-library",
    title: "Media library (Choose from library)",
    async run(page) {
      await page.click("cms-image-field >>> button::-p-text(from library)");
      // The upload of the alt text dialog scene is in it.
      await shadow(page, "cms-media-library", "dialog[open] li[role=option]");
    },
    // Back to the image field panel, which the next scene closes.
    after: (page) => dismiss(page, "cms-media-library"),
  },
  {
    name: "history",
    title: "History of a field",
    async run(page) {
      await escape(page);
      await page.press("s", ["Control"]);
      await page.click("h1");
      await clickBar(page, "History");
      await shadow(page, "cms-history", "dialog[open] li button");
    },
  },
  {
    name: "history-diff",
    title: "What a restore would change (word diff)",
    async run(page) {
      await page.press("Enter");
      await shadow(page, "cms-history", ".df");
    },
  },
  {
    name: "conflict",
    title: "Conflict dialog",
    async run(page) {
      await escape(page);
      // The editor changes the title; someone else saves it meanwhile (a
      // live event or the save's 409 then asks which to keep).
      await page.click("h1");
      await page.press("End", ["Control"]);
      await page.type("!");
      await page.evaluate(async () => {
        const h1 = document.querySelector("h1")!;
        await fetch("/api/cms/save", {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            collection: "pages",
            key: "home",
            field: "title",
            value: "Edit this page together",
            version: h1.dataset.cmsVersion,
          }),
        });
      });
      await page.press("s", ["Control"]);
      await shadow(page, "cms-edit-bar", "dialog[open]");
    },
  },
  {
    name: "refusal",
    title: "A refused save: the server's reason in the edit bar",
    async run(page) {
      await escape(page); // the conflict dialog: keep mine
      await page.press("Escape");
      // A title past its declared 200 characters: the save endpoint says no.
      await page.evaluate(() => {
        const h1 = document.querySelector("h1")!;
        h1.focus();
        h1.textContent = "A title that goes on ".repeat(10);
        h1.dispatchEvent(new InputEvent("input", { bubbles: true }));
      });
      await page.press("s", ["Control"]);
      await page.waitFor(
        () =>
          document.querySelector("cms-edit-bar")?.shadowRoot?.querySelector(
            "[data-state=error]",
          ),
        { timeout: 10_000 },
      );
    },
    async after(page) {
      await page.click("h1");
      await page.press("Escape"); // back to the stored title
    },
  },
  {
    name: "long-article",
    title: "A long article in edit mode: one toolbar, pinned while you scroll",
    async run(page) {
      await page.evaluate(() => {
        const body = document.querySelector(
          "[data-cms-field='pages:home:body']",
        ) as HTMLElement;
        body.focus();
        const range = document.createRange();
        range.selectNodeContents(body);
        range.collapse(false);
        getSelection()!.removeAllRanges();
        getSelection()!.addRange(range);
        const para = (i: number) =>
          `<p>Part ${i}: the river’s “old” harbour — 12 € a ticket, open ` +
          `from nine to six; the market hall, the bridges and the night ` +
          `trains…</p>`;
        document.execCommand(
          "insertHTML",
          false,
          Array.from({ length: 40 }, (_, i) => para(i + 1)).join(""),
        );
        const mid = body.querySelectorAll("p")[24];
        mid.scrollIntoView({ block: "center" });
      });
      await page.waitFor(
        () =>
          [...document.querySelectorAll("cms-rich-toolbar")].filter((h) =>
            !(h.shadowRoot!.querySelector(".w") as HTMLElement).hidden
          ).length === 1,
        { timeout: 10_000 },
      );
    },
    async after(page) {
      await page.press("Escape"); // the region goes back to its stored value
      await page.evaluate(() => scrollTo(0, 0));
    },
  },
  {
    name: "checks",
    title:
      "Content checks: problems marked as you type, the tip at the caret, the count in the bar",
    async run(page) {
      // Two paragraphs posing as a list, one with a repeated word, after
      // the first paragraph (as one edit of the region).
      await page.evaluate(() => {
        const body = document.querySelector(
          "[data-cms-field='pages:home:body']",
        ) as HTMLElement;
        body.dispatchEvent(new InputEvent("beforeinput"));
        body.querySelector("p")!.insertAdjacentHTML(
          "afterend",
          "<p>• Fresh bread every morning</p><p>• Cheese from the the valley</p>",
        );
        body.dispatchEvent(new InputEvent("input"));
      });
      await select(page, "the the", true);
      await shadow(page, "cms-checks", "div.k:not([hidden])");
    },
  },
  {
    name: "checks-panel",
    title: "Checks panel: each problem jumps to its place, with its fix",
    async run(page) {
      await page.evaluate(() =>
        ([
          ...document.querySelector("cms-edit-bar")!.shadowRoot!
            .querySelectorAll("button"),
        ].find((b) => /problem/.test(b.textContent!)) as HTMLElement).click()
      );
      await shadow(page, "cms-checks", ".pn li");
    },
    async after(page) {
      await page.press("Escape"); // closes the panel (focus is in it)
      await select(page, "Sign in", true);
      await page.press("Escape"); // the region goes back to its stored value
    },
  },
  {
    name: "publish",
    title: "Draft mode: unpublished changes, Publish is primary",
    mode: "draft",
    async run(page) {
      await page.click("h1");
      await page.press("End", ["Control"]);
      await page.type(" now");
      await page.press("s", ["Control"]);
      await page.waitFor(() => document.querySelector("h1[data-cms-draft]"), {
        timeout: 10_000,
      });
    },
  },
  {
    name: "schedule",
    title: "Publish at a set time: the time picker and what is scheduled",
    mode: "draft",
    async run(page) {
      // Schedules the draft at the default time, then opens the dialog again.
      await clickBar(page, "Publish at");
      await shadow(page, "cms-schedule", "dialog[open] button[type=submit]");
      await page.evaluate(() =>
        document.querySelector("cms-schedule")!.shadowRoot!
          .querySelector("form")!.requestSubmit()
      );
      await page.waitFor(
        () =>
          !document.querySelector("cms-schedule") &&
          document.querySelector("h1[data-cms-scheduled]"),
        { timeout: 10_000 },
      );
      await clickBar(page, "Publish at");
      await shadow(page, "cms-schedule", "dialog[open] li button");
    },
    // Cancels the schedule (the next scene publishes now) and closes.
    async after(page) {
      await page.click("cms-schedule >>> li button");
      await page.waitFor(
        () => !document.querySelector("h1[data-cms-scheduled]"),
        { timeout: 10_000 },
      );
      await dismiss(page, "cms-schedule");
    },
  },
  {
    name: "publish-toast",
    title: "After a publish: what went live, View as visitor",
    mode: "draft",
    async run(page) {
      await clickBar(page, "Publish (");
      await shadow(page, "cms-edit-bar", ".n:not([hidden])");
    },
  },
  {
    name: "review-highlights",
    title:
      "Review in place: comments highlighted on their text, the count in the bar",
    mode: "draft",
    async run(page) {
      await escape(page); // the publish toast
      await page.waitFor("cms-review", { timeout: 15_000 }); // its chunk
      for (
        const [quote, text] of [
          ["outlined text", "Is “outlined” clear to first-time visitors?"],
          ["one request per changed field", "Worth a link to the save guide?"],
        ]
      ) {
        await select(page, quote);
        await shadow(page, "cms-review", ".F:not([hidden])");
        await page.click("cms-review >>> .F");
        await shadow(page, "cms-review", "[data-k=new]");
        await page.evaluate((text: string) => {
          const area = document.querySelector("cms-review")!.shadowRoot!
            .querySelector<HTMLTextAreaElement>("[data-k=new]")!;
          area.value = text;
          area.dispatchEvent(new Event("input"));
          area.nextElementSibling!.querySelector<HTMLElement>(".p")!.click();
        }, text);
        await page.waitFor(
          (text: string) =>
            document.querySelector("cms-review")!.shadowRoot!
              .querySelector("aside")!.textContent!.includes(text),
          { timeout: 10_000 },
          text,
        );
      }
      await clickBar(page, "2 comments"); // closes the panel
      await page.evaluate(() => getSelection()!.removeAllRanges());
    },
  },
  {
    name: "review-panel",
    title:
      "The comments panel: threads in page order, replies, resolve, a review link",
    mode: "draft",
    async run(page) {
      await clickBar(page, "2 comments");
      await shadow(page, "cms-review", "aside:not([hidden]) li[data-t]");
      await page.click("cms-review >>> li[data-t] .q");
      await page.evaluate(() =>
        [
          ...document.querySelector("cms-review")!.shadowRoot!
            .querySelectorAll("button"),
        ].find((b) => b.textContent === "Review link")!.click()
      );
      await shadow(page, "cms-review", "input[readonly]");
    },
  },
  {
    name: "review-reviewer",
    title:
      "A reviewer from a review link: the drafts, comments, Approve and Ask for changes",
    mode: "draft",
    async run(page) {
      const link = await page.evaluate(() =>
        document.querySelector("cms-review")!.shadowRoot!
          .querySelector<HTMLInputElement>("input[readonly]")!.value
      );
      // Another host name: no editor session comes along.
      await page.goto(link.replace("//127.0.0.1:", "//localhost:"));
      await shadow(page, "cms-review", "[data-k=name]");
      await page.evaluate(() => {
        const root = document.querySelector("cms-review")!.shadowRoot!;
        const name = root.querySelector<HTMLInputElement>("[data-k=name]")!;
        name.value = "Bo";
        name.dispatchEvent(new Event("input"));
        root.querySelector<HTMLElement>("button.p")!.click();
      });
      await shadow(page, "cms-review", "li[data-t]");
      await clickBar(page, "Approve");
      await shadow(page, "cms-review", "[data-k=note]");
    },
  },
  {
    name: "locales",
    title: "Locales: the language switcher, untranslated fields marked",
    mode: "locales",
    async run(page, { url }) {
      await page.goto(`${url}/de/?edit`);
      await page.waitFor("h1[data-cms-untranslated]", { timeout: 15_000 });
      await page.click("cms-edit-bar >>> cms-locales >>> button");
      await page.waitFor("cms-edit-bar >>> cms-locales >>> ul:not([hidden])", {
        timeout: 10_000,
      });
    },
  },
  {
    name: "german-list",
    title: "The German list on /de/: its own controls, marks and saves",
    mode: "locales",
    async run(page, { url }) {
      await escape(page);
      await page.goto(`${url}/de/?edit`);
      await page.waitFor("cms-edit-bar", { timeout: 15_000 });
      await listControls(page, "[data-cms-list] [data-cms-field]:nth-child(2)");
    },
  },
];

/** Logs in and opens the demo in edit mode. */
async function editPage(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/login`);
  await page.click("#password");
  await page.type(PASSWORD);
  await page.press("Enter");
  await page.waitFor(() => document.querySelector('a[href="/?edit"]'), {
    timeout: 10_000,
  });
  await page.goto(`${url}/?edit`);
  await page.waitFor("cms-edit-bar", { timeout: 15_000 });
}

/** The scenes to take: those whose names start with the argument, if any. */
const only = (s: Scene) => s.name.startsWith(Deno.args[0] ?? "");

/** Scenes that failed, with the reason: the run fails when any did. */
const failed: string[] = [];

/** Takes every scene of one mode in one scheme and width. */
async function shoot(
  scheme: string,
  width: number,
  mode: Mode,
  image: string,
): Promise<string[]> {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-shots-" });
  const demo = await startDemo({
    port: 0,
    dataDir,
    password: PASSWORD,
    ...mode === "draft" ? { publishMode: "draft" as const } : {},
    ...mode === "locales" ? { locales: ["en", "de"] } : {},
  });
  const browser = await launch("chromium");
  const done: string[] = [];
  try {
    const page = await browser.newPage();
    await page.setViewport(width, width > 600 ? 800 : 740);
    await page.puppeteer!.emulateMediaFeatures([
      { name: "prefers-color-scheme", value: scheme },
    ]);
    await editPage(page, demo.url);
    const ctx: Context = { image, url: demo.url, browser };
    for (const scene of SCENES.filter((s) => s.mode === mode && only(s))) {
      const fail = (err: unknown) => {
        failed.push(`${scene.name} ${scheme} ${width}: ${err}`);
        console.error(failed.at(-1));
      };
      try {
        await scene.run(page, ctx);
        await new Promise((r) => setTimeout(r, 150)); // let transitions end
        await Deno.writeFile(
          `${OUT}${scene.name}-${scheme}-${width}.png`,
          await page.screenshot(),
        );
        done.push(scene.name);
      } catch (err) {
        fail(err);
      }
      await scene.after?.(page, ctx).catch(fail);
    }
  } finally {
    await browser.close();
    await demo.close();
    await Deno.remove(dataDir, { recursive: true });
  }
  return done;
}

if (import.meta.main) {
  await Deno.mkdir(OUT, { recursive: true });
  for await (const f of Deno.readDir(OUT)) {
    const scene = SCENES.find((s) => f.name.startsWith(`${s.name}-`));
    if (f.name.endsWith(".png") && (!scene || only(scene))) {
      await Deno.remove(OUT + f.name);
    }
  }
  const image = await Deno.makeTempFile({ suffix: ".png" });
  await Deno.writeFile(image, await png(320, 200));
  const taken = new Set<string>();
  try {
    for (const scheme of SCHEMES) {
      for (const width of WIDTHS) {
        for (const mode of MODES) {
          for (const n of await shoot(scheme, width, mode, image)) {
            taken.add(n);
          }
          console.log(`${scheme} ${width}${mode ? ` ${mode}` : ""}: done`);
        }
      }
    }
  } finally {
    await Deno.remove(image);
  }
  // The scenes not taken this time keep their pictures.
  const kept = async (s: Scene) =>
    !only(s) &&
    await Deno.stat(`${OUT}${s.name}-light-1280.png`).then(() => true, () =>
      false);
  for (const s of SCENES) if (await kept(s)) taken.add(s.name);
  const rows = SCENES.filter((s) => taken.has(s.name)).map((s) =>
    `## ${s.title}\n\n` +
    SCHEMES.map((scheme) =>
      WIDTHS.map((w) =>
        `<img src="${s.name}-${scheme}-${w}.png" width="${
          w > 600 ? 480 : 180
        }" alt="${s.title}, ${scheme}, ${w} px">`
      ).join("\n")
    ).join("\n") + "\n"
  );
  await Deno.writeTextFile(
    `${OUT}README.md`,
    `# The editor's UI\n\nEvery surface in the light and dark schemes, at 1280 px and 375 px (Chromium, the demo). Regenerate with \`deno task screenshots\`.\n\n${
      rows.join("\n")
    }`,
  );
  // In deno fmt's shape, so `deno fmt --check` stays clean.
  await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", `${OUT}README.md`],
  }).output();
  console.log(`docs/ui/: ${taken.size} surfaces`);
  if (failed.length) {
    console.error(`${failed.length} scene(s) failed:\n${failed.join("\n")}`);
    Deno.exit(1);
  }
}
