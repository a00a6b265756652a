/**
 * Review in place in the browser, on the demo (draft mode, publish waits
 * for an approval), in Chromium, Firefox and WebKit: an editor comments on
 * a selection (a highlight, the count in the bar); a reviewer in a
 * separate browser context without a session opens the review link, gives
 * a name, replies and approves; the editor sees both live (and the
 * reviewer the editor's resolve); publish waits
 * for the approval, and an edit after it voids it. And in a German UI on a
 * test site: the count, the highlight, a detached thread with its quote.
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/main.ts";
import { engineTest, type Page } from "../helpers/browser.ts";
import { editInBrowser } from "../helpers/demo.ts";
import { seriousViolations } from "../helpers/axe.ts";
import { clientSiteTest } from "../helpers/client_page.ts";

const PASSWORD = "correct horse battery staple";
const WAIT = { timeout: 15_000 };

/** Waits for an edit bar button whose text matches `pattern`. */
function barButton(page: Page, pattern: string) {
  return page.waitFor(
    (pattern: string) =>
      [
        ...document.querySelector("cms-edit-bar")?.shadowRoot
          ?.querySelectorAll("button") ?? [],
      ].some((b) => new RegExp(pattern).test(b.textContent!)),
    WAIT,
    pattern,
  );
}

/** Clicks the edit bar button whose text matches `pattern`. */
async function clickBar(page: Page, pattern: string) {
  await barButton(page, pattern);
  await page.evaluate((pattern: string) => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    [...root.querySelectorAll("button")]
      .find((b) => new RegExp(pattern).test(b.textContent!))!.click();
  }, pattern);
}

/** Clicks the review panel's button `label` (in the thread quoting `quote`). */
async function clickPanel(page: Page, label: string, quote = "") {
  await page.waitFor(
    (label: string, quote: string) =>
      [
        ...document.querySelector("cms-review")?.shadowRoot
          ?.querySelectorAll("button") ?? [],
      ].some((b) =>
        b.textContent === label &&
        (b.closest("li")?.textContent ?? quote).includes(quote)
      ),
    WAIT,
    label,
    quote,
  );
  await page.evaluate(
    (label: string, quote: string) => {
      const root = document.querySelector("cms-review")!.shadowRoot!;
      [...root.querySelectorAll("button")].find((b) =>
        b.textContent === label &&
        (b.closest("li")?.textContent ?? quote).includes(quote)
      )!.click();
    },
    label,
    quote,
  );
}

/** Types `text` into the panel's field `key` (as input events do). */
async function fill(page: Page, key: string, text: string) {
  await page.waitFor(
    (key: string) =>
      document.querySelector("cms-review")?.shadowRoot
        ?.querySelector(`[data-k="${key}"]`),
    WAIT,
    key,
  );
  await page.evaluate(
    (key: string, text: string) => {
      const el = document.querySelector("cms-review")!.shadowRoot!
        .querySelector<HTMLTextAreaElement>(`[data-k="${key}"]`)!;
      el.focus();
      el.value = text;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    },
    key,
    text,
  );
}

/** The review panel's text (empty while closed). */
function panelText(page: Page) {
  return page.evaluate(() => {
    const aside = document.querySelector("cms-review")?.shadowRoot
      ?.querySelector("aside");
    return aside && !aside.hidden ? aside.textContent! : "";
  });
}

/** Waits until the panel's text includes `text`. */
function panelHas(page: Page, text: string) {
  return page.waitFor(
    (text: string) =>
      document.querySelector("cms-review")?.shadowRoot?.querySelector("aside")
        ?.textContent?.includes(text),
    WAIT,
    text,
  );
}

/** Selects `word` in the first text node of `selector`. */
function select(page: Page, selector: string, word: string) {
  return page.evaluate(
    (selector: string, word: string) => {
      const el = document.querySelector(selector)!;
      const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n; (n = walk.nextNode() as Text | null);) {
        const at = n.data.indexOf(word);
        if (at < 0) continue;
        const r = document.createRange();
        r.setStart(n, at);
        r.setEnd(n, at + word.length);
        getSelection()!.removeAllRanges();
        getSelection()!.addRange(r);
        return;
      }
      throw new Error(`no ${word} in ${selector}`);
    },
    selector,
    word,
  );
}

/** Edits the title (appends `text`) and saves. */
async function editTitle(page: Page, text: string) {
  await page.click("h1");
  // The caret at the end (End alone is not enough in every engine once
  // the text has highlights).
  await page.evaluate(() => {
    const r = document.createRange();
    r.selectNodeContents(document.querySelector("h1")!);
    r.collapse(false);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(r);
  });
  await page.type(text);
  await page.press("s", ["Control"]);
  await page.waitFor(
    () =>
      document.querySelector("cms-edit-bar")!.shadowRoot!
        .querySelector("[aria-live]")!.textContent === "1 unpublished change",
    WAIT,
  );
}

engineTest(
  "review in place: comment, review link, reply, approve, publish gate",
  async (t, browser) => {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-review-" });
    const demo = await startDemo({
      port: 0,
      dataDir,
      password: PASSWORD,
      publishMode: "draft",
      requireApproval: true,
    });
    const editor = await browser.newPage();
    let reviewer: Page | undefined;
    try {
      await editInBrowser(editor, demo.url);
      await barButton(editor, "^0 comments$");
      const title = await editor.evaluate(() =>
        document.querySelector("h1")!.textContent!
      );
      const word = title.split(/\s+/).find((w) => w.length > 3)!;

      await t.step("an editor comments on a selection", async () => {
        await editTitle(editor, " now");
        await select(editor, "h1", word);
        // The Comment button beside the selection.
        await editor.waitFor(
          () =>
            !document.querySelector("cms-review")!.shadowRoot!
              .querySelector<HTMLElement>(".F")!.hidden,
          WAIT,
        );
        await editor.evaluate(() =>
          document.querySelector("cms-review")!.shadowRoot!
            .querySelector<HTMLElement>(".F")!.click()
        );
        await fill(editor, "new", "Is this the right word?");
        await clickPanel(editor, "Comment");
        await barButton(editor, "^1 comment$");
        await panelHas(editor, "Is this the right word?");
        const marked = await editor.evaluate(() =>
          globalThis.Highlight
            ? [...CSS.highlights.get("cms-c")!].map((r) => r.toString())
            : null
        );
        if (marked) assert.deepEqual(marked, [word]);
        // The keyboard: Ctrl+Alt+M on a selection opens the form with its
        // quote, focused; Escape closes the panel.
        await select(editor, "h1", "place");
        await editor.press("m", ["Control", "Alt"]);
        await editor.waitFor(
          () => {
            const root = document.querySelector("cms-review")!.shadowRoot!;
            return root.querySelector("p.q")?.textContent === "place" &&
              root.activeElement === root.querySelector("[data-k=new]");
          },
          WAIT,
        );
        await editor.press("Escape");
        assert.equal(await panelText(editor), "");
        // Nothing of the comment is in the region's content.
        assert.equal(
          await editor.evaluate(() => document.querySelector("h1")!.innerHTML),
          `${title} now`,
        );
      });

      await t.step("publish waits for an approval", async () => {
        await clickBar(editor, "^Publish \\(1\\)");
        await editor.waitFor(
          () =>
            document.querySelector("cms-edit-bar")!.shadowRoot!.textContent!
              .includes("Publish needs an approval"),
          WAIT,
        );
      });

      let link = "";
      await t.step("the editor makes a review link", async () => {
        await clickBar(editor, "^1 comment$"); // opens the panel
        await clickPanel(editor, "Review link");
        await editor.waitFor(
          () =>
            document.querySelector("cms-review")!.shadowRoot!
              .querySelector("input[readonly]"),
          WAIT,
        );
        link = await editor.evaluate(() =>
          document.querySelector("cms-review")!.shadowRoot!
            .querySelector<HTMLInputElement>("input[readonly]")!.value
        );
        assert.match(link, /\?review=/);
      });

      await t.step(
        "a reviewer without a session names themself, replies and approves",
        async () => {
          reviewer = await browser.newPage();
          // Another host name: WebKit's windows share one cookie jar, and
          // the reviewer must come without the editor's session.
          await reviewer.goto(link.replace("//127.0.0.1:", "//localhost:"));
          await reviewer.waitFor("[data-review]", WAIT);
          // Asked for a name once, in the panel.
          await reviewer.waitFor(
            () =>
              document.querySelector("cms-review")?.shadowRoot
                ?.querySelector("[data-k=name]"),
            WAIT,
          );
          await reviewer.evaluate(() => {
            const input = document.querySelector("cms-review")!.shadowRoot!
              .querySelector<HTMLInputElement>("[data-k=name]")!;
            input.value = "Bo Reviewer";
            input.dispatchEvent(new Event("input"));
          });
          await clickPanel(reviewer, "Continue");
          await panelHas(reviewer, "Is this the right word?");
          // No editing for a reviewer.
          assert.equal(
            await reviewer.evaluate(() =>
              document.querySelector("[contenteditable]") === null &&
              document.querySelector("cms-edit-bar")!.shadowRoot!
                  .textContent!.includes("Save") === false
            ),
            true,
          );
          await clickPanel(reviewer, "Reply", word);
          await fill(
            reviewer,
            `r:${await threadId(reviewer)}`,
            "Yes, it reads well.",
          );
          await clickPanel(reviewer, "Send");
          await panelHas(reviewer, "Yes, it reads well.");
          await clickBar(reviewer, "^Approve$");
          await fill(reviewer, "note", "Good to go");
          await clickPanel(reviewer, "Approve");
          await panelHas(reviewer, "Approved by Bo Reviewer");
          if (reviewer.engine !== "webkit") {
            assert.deepEqual(await seriousViolations(reviewer), [], "axe");
          }
        },
      );

      await t.step(
        "the editor sees the reply and the approval live",
        async () => {
          await barButton(editor, "^1 comment · Approved by Bo Reviewer");
          await panelHas(editor, "Yes, it reads well.");
          assert.match(await panelText(editor), /Bo Reviewer/);
          // axe: not in WebKit, whose WebDriver evaluates under the CSP.
          if (editor.engine !== "webkit") {
            assert.deepEqual(await seriousViolations(editor), [], "axe");
          }
          // The reviewer sees the editor resolve the thread, live.
          await clickPanel(editor, "Resolve", word);
          await barButton(reviewer!, "^0 comments · Approved");
          await clickPanel(editor, "Close");
        },
      );

      await t.step(
        "an edit after the approval voids it; a new one lets publish through",
        async () => {
          await editTitle(editor, "!");
          await barButton(editor, "\\(edited since\\)");
          await clickBar(editor, "^Publish \\(1\\)");
          await editor.waitFor(
            () =>
              document.querySelector("cms-edit-bar")!.shadowRoot!.textContent!
                .includes("Publish needs an approval"),
            WAIT,
          );
          await clickBar(reviewer!, "^Approve$");
          await clickPanel(reviewer!, "Approve");
          await editor.waitFor(
            () =>
              [
                ...document.querySelector("cms-edit-bar")!.shadowRoot!
                  .querySelectorAll("button"),
              ].some((b) =>
                /Approved by Bo Reviewer/.test(b.textContent!) &&
                !b.textContent!.includes("edited since")
              ),
            WAIT,
          );
          await clickBar(editor, "^Publish \\(1\\)");
          // The draft mark goes; if it doesn't, the bar says why.
          await editor.waitFor(
            () => !document.querySelector("[data-cms-draft]"),
            { timeout: 30_000 },
          ).catch(async (err) => {
            const bar = await editor.evaluate(() =>
              document.querySelector("cms-edit-bar")!.shadowRoot!.textContent!
            );
            throw new Error(`not published; the bar: ${bar}`, { cause: err });
          });
          const visitor = await (await fetch(`${demo.url}/`)).text();
          assert.ok(
            visitor.includes(`${title} now!`),
            visitor.match(/<h1[^>]*>.*?<\/h1>/s)?.[0],
          );
        },
      );
    } finally {
      await reviewer?.close();
      await editor.close();
      await demo.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
);

/** The id of the panel's first thread. */
function threadId(page: Page) {
  return page.evaluate(() =>
    document.querySelector("cms-review")!.shadowRoot!
      .querySelector("li[data-t]")!.getAttribute("data-t")!
  );
}

/** A comment on `quote` of the title (`prefix`/`suffix`: its context). */
const onTitle = (id: string, quote: string, prefix: string) => ({
  id,
  page: "/",
  anchor: { field: "pages:home:title", quote, prefix, suffix: "" },
  thread: id,
  text: `Zu „${quote}“`,
  author: { name: "Bo", kind: "reviewer" },
  created: "2026-01-01T09:00:00.000Z",
});

clientSiteTest(
  "review in place in German: count, highlight, a detached thread listed with its quote",
  {
    pages: {
      "/": () => `<h1 data-cms-field="pages:home:title">Hallo Welt</h1>`,
    },
    config: { editor: "Ada", comments: "/cms/comments", settings: false },
    script:
      `import * as cms from "/dist/mod.js"; window.cms = cms; window.cmsHandle = cms.mountCms({ labels: "de" });`,
    client: () =>
      Promise.resolve(Response.json({
        comments: [onTitle("a", "Welt", "Hallo "), onTitle("b", "Erde", "")],
        approvals: [],
      })),
  },
  async (_t, site, browser) => {
    const page = await browser.newPage();
    try {
      await page.goto(site.url + "/");
      await clickBar(page, "^2 Kommentare$");
      await panelHas(page, "Losgelöst: der Text ist weg");
      const view = await page.evaluate(() => {
        const root = document.querySelector("cms-review")!.shadowRoot!;
        return {
          items: [...root.querySelectorAll("li[data-t]")].map((li) =>
            li.querySelector(".q")!.textContent
          ),
          marked: globalThis.Highlight
            ? [...CSS.highlights.get("cms-c")!].map((r) => r.toString())
            : null,
        };
      });
      // The attached thread first, in page order; the detached one after.
      assert.deepEqual(view.items, ["“Welt”", "Erde"]);
      if (view.marked) assert.deepEqual(view.marked, ["Welt"]);
      // A re-read while typing a reply keeps the box, its text and caret.
      await clickPanel(page, "Antworten", "Welt");
      await fill(page, "r:a", "Gut so");
      const kept = await page.evaluate(async () => {
        const root = document.querySelector("cms-review")!.shadowRoot!;
        const before = root.activeElement as HTMLTextAreaElement;
        before.setSelectionRange(3, 3);
        document.dispatchEvent(
          new CustomEvent("cms:comments", { detail: { page: "/" } }),
        );
        for (let i = 0; i < 50 && root.activeElement === before; i++) {
          await new Promise((r) => setTimeout(r, 20));
        }
        const box = root.activeElement as HTMLTextAreaElement;
        return [box !== before, box.dataset.k, box.value, box.selectionStart];
      });
      assert.deepEqual(kept, [true, "r:a", "Gut so", 3]);
      // Typing in the panel (its input events reach the document) does
      // not render it again, which would end an IME composition.
      const same = await page.evaluate(async () => {
        const root = document.querySelector("cms-review")!.shadowRoot!;
        const box = root.activeElement as HTMLTextAreaElement;
        box.value += "!";
        box.dispatchEvent(
          new InputEvent("input", { bubbles: true, composed: true }),
        );
        await new Promise((r) => setTimeout(r, 100));
        return root.activeElement === box;
      });
      assert.equal(same, true);
      // Nor does a re-read during an IME composition in the panel.
      const composing = await page.evaluate(async () => {
        const root = document.querySelector("cms-review")!.shadowRoot!;
        const box = root.activeElement as HTMLTextAreaElement;
        box.dispatchEvent(
          new CompositionEvent("compositionstart", { bubbles: true }),
        );
        document.dispatchEvent(
          new CustomEvent("cms:comments", { detail: { page: "/" } }),
        );
        await new Promise((r) => setTimeout(r, 300));
        const same = root.activeElement === box;
        box.dispatchEvent(
          new CompositionEvent("compositionend", { bubbles: true }),
        );
        return same;
      });
      assert.equal(composing, true);
    } finally {
      await page.close();
    }
  },
);
