/**
 * The real-site scenario: a trilingual magazine built from the README only
 * (`tests/helpers/real_site_app.ts`: plain `Deno.serve`, a Deno KV file,
 * publish mode `draft`, en/de/fr, a list, an image inside a host form, a
 * 7,000-word article per locale), driven in Chromium, Firefox and WebKit
 * the way an editor works: sign in, edit, paste from Word, the cover image,
 * translate to German, publish per locale, a refusal, history; then a
 * restart on the same KV file keeps what was published and what is draft.
 *
 * One server serves every browser (each edits its own issue). A browser
 * that is not installed is skipped locally and fails under CI.
 *
 * @module
 */
import assert from "node:assert/strict";
import { contentVersion } from "../core/version.ts";
import {
  CHROMIUM,
  type Engine,
  engines,
  FIREFOX,
  type Page,
  withBrowser,
} from "./helpers/browser.ts";
import { photo } from "./helpers/client_page.ts";
import {
  articleEnd,
  createRealSiteApp,
  longArticle,
  PASSWORD,
  type RealSite,
  signIn,
  WORD_HTML,
} from "./helpers/real_site.ts";

const app = await createRealSiteApp();
let site: RealSite = await app.start();
const ISSUE: Record<Engine, string> = {
  chromium: "1",
  firefox: "2",
  webkit: "3",
};
/** Issues whose browser run reached each point, for the restart check. */
const done = new Map<string, Set<string>>();
const reached = (issue: string, what: string) => {
  if (!done.has(issue)) done.set(issue, new Set());
  done.get(issue)!.add(what);
};
globalThis.addEventListener("unload", () => void site.stop());

const json = {
  "Content-Type": "application/json",
  "Sec-Fetch-Site": "same-origin",
};
const visitor = async (path: string) =>
  await (await fetch(site.url + path)).text();

Deno.test("real site: the 7,000-word article is stored and published in English and French", async () => {
  const cookie = await signIn(site.url);
  const failures: string[] = [];
  for (const issue of Object.values(ISSUE)) {
    for (const locale of ["en", "fr"]) {
      const value = longArticle(locale);
      assert.ok(
        value.length > 40_000 && value.length < 48_000,
        `${value.length}`,
      );
      const res = await fetch(`${site.url}/api/cms/save`, {
        method: "PATCH",
        headers: { cookie, ...json },
        body: JSON.stringify({
          collection: "issues",
          key: issue,
          field: "article",
          ...locale === "en" ? {} : { locale },
          value,
          version: contentVersion("<p>The article is on its way.</p>"),
        }),
      });
      const text = await res.text();
      if (res.status !== 204) {
        failures.push(`${issue}/${locale}: ${res.status} ${text}`);
      }
    }
  }
  const pub = await fetch(`${site.url}/api/cms/publish`, {
    method: "POST",
    headers: { cookie, ...json },
    body: "{}",
  });
  const pubText = await pub.text();
  assert.deepEqual(failures, [], "every article save is 204");
  assert.equal(pub.status, 200, pubText);
  for (const issue of Object.values(ISSUE)) {
    assert.ok((await visitor(`/issues/${issue}`)).includes(articleEnd("en")));
    assert.ok(
      (await visitor(`/fr/issues/${issue}`)).includes(articleEnd("fr")),
    );
  }
});

/** The edit bar: its buttons' texts and all its text. */
const bar = (page: Page) =>
  page.evaluate(() => {
    const root = document.querySelector("cms-edit-bar")?.shadowRoot;
    return {
      buttons: [...root?.querySelectorAll("button") ?? []]
        .filter((b) => !b.hidden && b.getClientRects().length > 0)
        .map((b) => b.textContent ?? ""),
      text: root?.textContent ?? "",
    };
  });

const clickBar = (page: Page, label: string) =>
  page.evaluate((label) => {
    const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
    const button = [...root.querySelectorAll("button")]
      .find((b) => b.textContent!.startsWith(label));
    if (!button) throw new Error(`no ${label} button in the bar`);
    button.click();
  }, label);

const waitBarHas = (page: Page, label: string, timeout = 10_000) =>
  page.waitFor(
    (label: string) =>
      [
        ...document.querySelector("cms-edit-bar")?.shadowRoot
          ?.querySelectorAll("button") ?? [],
      ].some((b) => b.textContent!.startsWith(label)),
    { timeout },
    label,
  );

/** Waits until the session is saved: "clean", or "drafts" in draft mode. */
const waitSaved = (page: Page, timeout = 10_000) =>
  page.waitFor(
    () =>
      ["clean", "drafts"].includes(
        document.querySelector("cms-edit-bar")?.shadowRoot?.querySelector(
          "[data-state]",
        )?.getAttribute("data-state") ?? "",
      ),
    { timeout },
  );

/** Saves with Ctrl+S and waits until saved (or throws the bar's text). */
async function saveAll(page: Page) {
  await page.press("s", ["Control"]);
  await waitSaved(page).catch(async () => {
    throw new Error(`not saved: ${(await bar(page)).text}`);
  });
}

/** Opens `path?edit` and waits until the session is ready. */
async function openEdit(page: Page, path: string) {
  await page.goto(`${site.url}${path}?edit`);
  await page.waitFor("cms-edit-bar", { timeout: 15_000 });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
}

/**
 * Clicks `selector` after scrolling it to the middle of the window, as an
 * editor looks at what they click. The drivers' own scrolling leaves it at
 * the window's edge, where WebKit found another element over it ("element
 * click intercepted"), likely a floating bar of the editor.
 */
async function clickCentred(page: Page, selector: string) {
  await page.evaluate(
    (sel) => document.querySelector(sel)!.scrollIntoView({ block: "center" }),
    selector,
  );
  await page.click(selector);
}

/** Selects the whole text of the focused region and types `text`. */
async function replaceText(page: Page, selector: string, text: string) {
  await page.click(selector);
  await page.evaluate((sel) => {
    const el = document.querySelector(sel)!;
    const range = document.createRange();
    range.selectNodeContents(el);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  }, selector);
  await page.type(text);
}

/** Waits until every rich region is editable with its toolbar mounted. */
const waitRichMounted = (page: Page) =>
  page.waitFor(() => {
    const regions = [
      ...document.querySelectorAll<HTMLElement>('[data-cms-type="richtext"]'),
    ];
    return regions.length > 0 && regions.every((el) =>
      el.isContentEditable &&
      el.previousElementSibling?.localName === "cms-rich-toolbar"
    );
  }, { timeout: 15_000 });

/**
 * The regions (tag names) whose rich toolbar shows. The toolbar's host is
 * a size-less anchor before its region: this measures the floating bar
 * inside its shadow root.
 */
const shownToolbars = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll("cms-rich-toolbar")].filter((host) => {
      const w = host.shadowRoot?.querySelector<HTMLElement>(".w");
      if (!w || w.hidden) return false;
      const r = w.getBoundingClientRect();
      const s = getComputedStyle(w);
      return r.width > 0 && r.height > 0 && s.visibility !== "hidden" &&
        s.display !== "none";
    }).map((host) => host.nextElementSibling?.localName ?? "")
  );

async function scenario(t: Deno.TestContext, engine: Engine) {
  const issue = ISSUE[engine];
  const en = `/issues/${issue}`,
    de = `/de/issues/${issue}`,
    fr = `/fr/issues/${issue}`;
  const logStart = (await site.log()).length;
  const newLog = async () => (await site.log()).slice(logStart);
  const photoDir = await Deno.makeTempDir({ prefix: "cms-magazine-photo-" });
  const photoFile = `${photoDir}/cover.jpg`;
  await Deno.writeFile(photoFile, await photo(1200, 800));
  await withBrowser(engine, async (browser) => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.puppeteer?.on("console", (m) => {
      if (m.type() === "error" || /404/.test(m.text())) {
        consoleErrors.push(m.text() + " " + (m.location()?.url ?? ""));
      }
    });
    try {
      await t.step(
        "sign in with the form; the bar has Save, Settings, History, Done",
        async () => {
          await page.goto(site.url + en);
          await page.click("input[type=password]");
          await page.type(PASSWORD);
          await page.press("Enter");
          await page.waitFor("cms-edit-bar", { timeout: 15_000 });
          assert.match(await page.url(), /\?edit$/);
          const { buttons } = await bar(page);
          for (const b of ["Save", "Settings", "History", "Done"]) {
            assert.ok(
              buttons.includes(b),
              `${b} missing: ${buttons.join(", ")}`,
            );
          }
        },
      );

      await t.step(
        "at most one rich toolbar shows on the long article",
        async () => {
          await waitRichMounted(page);
          const before = await shownToolbars(page);
          assert.ok(before.length <= 1, `before any focus: ${before}`);
          await page.click("article p");
          // The focused region's toolbar shows, and only that one.
          await page.waitFor(
            () => {
              const bar = document.querySelector("article")!
                .previousElementSibling?.shadowRoot?.querySelector<
                HTMLElement
              >(".w");
              return !!bar && !bar.hidden &&
                bar.getBoundingClientRect().height > 0;
            },
            { timeout: 5000 },
          ).catch(() => {});
          assert.deepEqual(
            await shownToolbars(page),
            ["article"],
            "with the article focused",
          );
        },
      );

      await t.step(
        "edit the title and a part of the article; Save makes drafts",
        async () => {
          await page.click("h1");
          await page.press("End");
          await page.type(" live");
          await page.click("article p");
          await page.press("End");
          await page.type(" Checked in place.");
          await saveAll(page);
          const saves = (await newLog()).filter((l) =>
            l.path === "/api/cms/save"
          );
          assert.deepEqual(
            saves.map((s) =>
              `${s.field} ${s.status}${s.reason ? " " + s.reason : ""}`
            ).sort(),
            ["article 204", "title 204"],
          );
          await page.waitFor("h1[data-cms-draft]", { timeout: 10_000 });
          assert.doesNotMatch(await visitor(en), /live/);
          reached(issue, "edited");
        },
      );

      await t.step(
        "paste from Word into the fact box keeps the nested list and the header row",
        async () => {
          await clickCentred(page, "aside p");
          await page.press("End");
          await page.evaluate((html) => {
            const data = new DataTransfer();
            data.setData("text/html", html);
            data.setData(
              "text/plain",
              "Opening hours\nWeekdays 8–18\nTickets from 12 €",
            );
            const target = document.activeElement?.closest("aside") ??
              document.querySelector("aside")!;
            const paste = new ClipboardEvent("paste", {
              clipboardData: data,
              bubbles: true,
              cancelable: true,
            });
            // Firefox gives a script-made ClipboardEvent its own empty
            // DataTransfer (the init's data is dropped); that one is
            // writable until dispatch, so the same data goes into it.
            const own = paste.clipboardData;
            if (own && !own.types.includes("text/html")) {
              for (const type of data.types) {
                own.setData(type, data.getData(type));
              }
            }
            target.dispatchEvent(paste);
          }, WORD_HTML);
          await page.waitFor(
            () => document.querySelector("aside table") !== null,
            { timeout: 10_000 },
          ).catch(() => {});
          const got = await page.evaluate(() => {
            const aside = document.querySelector("aside")!;
            return {
              nested:
                aside.querySelector("ul li ul li, ol li ol li, ul li ol li")
                  ?.textContent ?? "",
              th: [...aside.querySelectorAll("th")].map((e) =>
                e.textContent!.trim()
              ),
              html: aside.innerHTML.slice(0, 600),
            };
          });
          await saveAll(page);
          assert.match(got.nested, /Weekdays/, got.html);
          assert.deepEqual(got.th, ["Station", "Price"], got.html);
        },
      );

      await t.step(
        "the cover image inside the newsletter form: every control, no submit",
        async () => {
          await page.evaluate(() => {
            const w = globalThis as unknown as { submits: number };
            w.submits = 0;
            document.addEventListener("submit", (e) => {
              w.submits++;
              e.preventDefault();
            }, true);
          });
          const open = async () => {
            await page.evaluate(() =>
              (document.querySelector("img[data-cms-field]") as HTMLElement)
                .focus()
            );
            await page.press("Enter");
            await page.waitFor("cms-image-field");
          };
          await open();
          const labels: string[] = await page.evaluate(() =>
            [...document.querySelector("cms-image-field")!.shadowRoot!
              .querySelectorAll("button")]
              .map((b) => b.textContent ?? "")
          );
          assert.ok(
            labels.includes("Replace") && labels.includes("Cancel"),
            labels.join(),
          );
          const left: string[] = [];
          for (const label of labels) {
            if (
              !(await page.evaluate(() =>
                !!document.querySelector("cms-image-field")
              ))
            ) {
              await open();
            }
            // A script click: activation behaviour (a form submit) runs, a
            // file picker does not open without a user gesture.
            await page.evaluate((label) => {
              const b = [
                ...document.querySelector("cms-image-field")!.shadowRoot!
                  .querySelectorAll("button"),
              ].find((b) => b.textContent === label)!;
              b.click();
            }, label);
            await new Promise((r) => setTimeout(r, 400));
            const where = await page.url();
            if (!where.endsWith(`${en}?edit`)) {
              left.push(`${label} → ${where}`);
              await openEdit(page, en);
              continue;
            }
            await page.press("Escape");
            await new Promise((r) => setTimeout(r, 200));
          }
          if (
            !(await page.evaluate(() =>
              !!document.querySelector("cms-image-field")
            ))
          ) {
            await open();
          }
          assert.deepEqual(left, [], "an image field control left the page");
          await page.upload("cms-image-field >>> input[type=file]", photoFile);
          await page.waitFor(
            () =>
              /^\/media\//.test(
                document.querySelector("img[data-cms-field]")!.getAttribute(
                  "src",
                ) ?? "",
              ),
            { timeout: 20_000 },
          );
          assert.equal(
            await page.evaluate(() =>
              (globalThis as unknown as { submits: number }).submits
            ),
            0,
            "a control submitted the host's form",
          );
          assert.ok(
            await page.evaluate(() => !!document.querySelector("cms-edit-bar")),
            "the edit bar is gone: " +
              await page.evaluate(() =>
                document.body.innerHTML.replace(
                  /<article[\s\S]*?<\/article>/,
                  "",
                ).slice(0, 3000)
              ),
          );
          assert.match(await page.url(), new RegExp(`${en}\\?edit$`));
          await saveAll(page);
          reached(issue, "cover");
        },
      );

      await t.step("Publish on the English page: visitors see it", async () => {
        await clickBar(page, "Publish (");
        await page.waitFor(() => !document.querySelector("[data-cms-draft]"), {
          timeout: 15_000,
        });
        const html = await visitor(en);
        assert.match(html, /<h1>Spring issue \d live<\/h1>/);
        assert.match(html, /Checked in place\./);
        assert.match(html, /<table>/, "the pasted table is published");
        if (done.get(issue)?.has("cover")) {
          assert.match(html, /src="\/media\//);
        }
        reached(issue, "published-en");
      });

      await t.step(
        "German: list controls work, translating the list from English is one write",
        async () => {
          await openEdit(page, de);
          assert.equal(
            await page.evaluate(() =>
              document.querySelector("ul.topics")!.getAttribute(
                "data-cms-fallback",
              )
            ),
            "en",
          );
          const before = (await newLog()).length;
          const german = ["Städte", "Flüsse", "Märkte", "Nachtzüge"];
          for (let i = 0; i < 4; i++) {
            await replaceText(
              page,
              `ul.topics li:nth-child(${i + 1})`,
              german[i],
            );
          }
          await page.click("ul.topics li:nth-child(1)");
          await page.waitFor("cms-list");
          const disabled = await page.evaluate(() =>
            Object.fromEntries(
              [...document.querySelector("cms-list")!.shadowRoot!
                .querySelectorAll("button")]
                .map((b) => [b.getAttribute("aria-label"), b.disabled]),
            )
          );
          assert.equal(
            disabled["Move item down"],
            false,
            JSON.stringify(disabled),
          );
          assert.equal(
            disabled["Remove item"],
            false,
            JSON.stringify(disabled),
          );
          await page.click('cms-list >>> button[aria-label="Move item down"]');
          await page.click("ul.topics li:nth-child(4)");
          await page.click('cms-list >>> button[aria-label="Remove item"]');
          await page.waitFor(() =>
            document.querySelectorAll("ul.topics li").length === 3
          );
          await replaceText(
            page,
            "div.intro",
            "Willkommen zur Frühlingsausgabe.",
          );
          await saveAll(page);
          const lines = (await newLog()).slice(before);
          const list = lines.filter((l) =>
            l.path === "/api/cms/save" && /^topics/.test(l.field ?? "")
          );
          assert.equal(list.length, 1, JSON.stringify(list));
          assert.equal(list[0].status, 204, JSON.stringify(list));
          assert.deepEqual(lines.filter((l) => l.status === 409), []);
          const items = await page.evaluate(() =>
            [...document.querySelectorAll("ul.topics li")].map((li) =>
              li.textContent
            )
          );
          assert.deepEqual(items, ["Flüsse", "Städte", "Märkte"]);
        },
      );

      await t.step(
        "German: the article copied from English and edited; Publish from /de/",
        async () => {
          await clickCentred(page, "article p:nth-of-type(1)");
          await waitBarHas(page, "Copy from");
          await clickBar(page, "Copy from");
          await clickCentred(page, "article p:nth-of-type(1)");
          await page.press("End");
          await page.type(" Übersetzt.");
          await saveAll(page);
          await waitBarHas(page, "Publish (");
          await clickBar(page, "Publish (");
          await page.waitFor(
            () => !document.querySelector("[data-cms-draft]"),
            { timeout: 15_000 },
          );
          const html = await visitor(de);
          assert.match(
            html,
            /<li>Flüsse<\/li><li>Städte<\/li><li>Märkte<\/li><\/ul>/,
          );
          assert.match(html, /Willkommen zur Frühlingsausgabe\./);
          assert.match(html, /Übersetzt\./);
          assert.match(
            await visitor(en),
            /<li>Cities<\/li>/,
            "English list unchanged",
          );
          reached(issue, "published-de");
        },
      );

      await t.step("French: a title draft stays a draft", async () => {
        await openEdit(page, fr);
        await replaceText(page, "h1", `Numéro de printemps ${issue}`);
        await saveAll(page);
        assert.doesNotMatch(await visitor(fr), /Numéro de printemps/);
        reached(issue, "draft-fr");
      });

      await t.step(
        "a refused save: the server's reason shows in the bar",
        async () => {
          await page.click("h1");
          await page.press("End");
          await page.type(" " + "x".repeat(110));
          const before = (await newLog()).length;
          await page.press("s", ["Control"]);
          let refused: { reason?: string } | undefined;
          for (let i = 0; i < 100 && !refused; i++) {
            refused = (await newLog()).slice(before).find((l) =>
              l.status >= 400
            );
            if (!refused) await new Promise((r) => setTimeout(r, 100));
          }
          assert.ok(refused?.reason, "the server refused the save");
          await page.waitFor(
            (reason: string) =>
              document.querySelector("cms-edit-bar")!.shadowRoot!.textContent!
                .includes(reason),
            { timeout: 5000 },
            refused.reason.trim(),
          ).catch(async () => {
            throw new Error(
              `"${refused!.reason}" not in the bar: ${(await bar(page)).text}`,
            );
          });
          await page.click("h1");
          await page.press("Escape");
          await waitSaved(page);
        },
      );

      await t.step("History marks draft and published revisions", async () => {
        // A new draft of the published English title: both kinds show.
        await openEdit(page, en);
        await page.click("h1");
        await page.press("End");
        await page.type(" again");
        await saveAll(page);
        reached(issue, "history");
        await clickBar(page, "History");
        await page.waitFor("cms-history", { timeout: 10_000 });
        await page.waitFor(
          () =>
            /live again/.test(
              document.querySelector("cms-history")!.shadowRoot!.textContent!,
            ),
          { timeout: 10_000 },
        );
        const text = await page.evaluate(() =>
          document.querySelector("cms-history")!.shadowRoot!.textContent!
        );
        assert.match(text, /published/i, text);
        assert.match(text, /draft/i, text);
        await page.press("Escape");
      });

      await t.step(
        "no request to an endpoint the site did not wire",
        async () => {
          const missing = (await newLog()).filter((l) =>
            l.status === 404 || l.status === 405
          );
          assert.deepEqual(
            missing.map((l) => `${l.method} ${l.path} ${l.status}`),
            [],
          );
          assert.deepEqual(
            // The site serves no favicon; the browser asks for one anyway.
            consoleErrors.filter((e) =>
              /404|Not Found/i.test(e) && !e.endsWith("/favicon.ico")
            ),
            [],
          );
        },
      );
    } finally {
      await page.close();
      await Deno.remove(photoDir, { recursive: true });
    }
  });
}

const CI = !!Deno.env.get("CI");
const installed = engines();
const wanted = Deno.env.get("CMS_ENGINES")?.split(",").map((s) => s.trim());
for (const engine of ["chromium", "firefox", "webkit"] as Engine[]) {
  if (wanted && !wanted.includes(engine)) continue;
  const name = `real site: an editor's day on the magazine [${engine}]`;
  if (!installed.includes(engine)) {
    const where = engine === "chromium"
      ? CHROMIUM
      : engine === "firefox"
      ? FIREFOX
      : "WebKitWebDriver";
    if (CI) Deno.test(name, () => assert.fail(`${where} is not installed`));
    else Deno.test({ name, ignore: true, fn() {} });
    continue;
  }
  Deno.test(name, (t) => scenario(t, engine));
}

Deno.test("real site: after a restart on the same KV file, published stays published and drafts stay drafts", async () => {
  await site.stop();
  site = await app.start();
  try {
    const cookie = await signIn(site.url);
    const edit = async (path: string) =>
      await (await fetch(`${site.url}${path}?edit`, { headers: { cookie } }))
        .text();
    // Every check runs; the failures are reported together.
    const failures: string[] = [];
    const check = (ok: boolean, what: string) => {
      if (!ok) failures.push(what);
    };
    for (const issue of Object.values(ISSUE)) {
      const en = await visitor(`/issues/${issue}`);
      const fr = await visitor(`/fr/issues/${issue}`);
      const at = `issue ${issue}:`;
      check(en.includes(articleEnd("en")), `${at} the English article`);
      check(fr.includes(articleEnd("fr")), `${at} the French article`);
      const seen = done.get(issue) ?? new Set();
      if (seen.has("published-en")) {
        check(
          /<h1>Spring issue \d live<\/h1>/.test(en),
          `${at} the published English title`,
        );
        check(/<table>/.test(en), `${at} the published pasted table`);
        if (seen.has("cover")) {
          check(/src="\/media\//.test(en), `${at} the published cover`);
        }
      }
      if (seen.has("history")) {
        check(
          !/live again/.test(en),
          `${at} the English title draft is public`,
        );
        check(
          /live again/.test(await edit(`/issues/${issue}`)),
          `${at} the English title draft is gone`,
        );
      }
      if (seen.has("published-de")) {
        const de = await visitor(`/de/issues/${issue}`);
        check(
          /<li>Flüsse<\/li><li>Städte<\/li><li>Märkte<\/li><\/ul>/.test(de),
          `${at} the published German list`,
        );
        check(/Übersetzt\./.test(de), `${at} the published German article`);
      }
      if (seen.has("draft-fr")) {
        check(
          !/Numéro de printemps/.test(fr),
          `${at} the French title draft is public`,
        );
        check(
          /<h1>Spring issue \d/.test(fr),
          `${at} the French fallback title`,
        );
        check(
          /Numéro de printemps/.test(await edit(`/fr/issues/${issue}`)),
          `${at} the French title draft is gone`,
        );
      }
    }
    assert.deepEqual(failures, [], "after the restart");
  } finally {
    await site.stop();
    await app.remove();
  }
});
