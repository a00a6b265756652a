/**
 * Browser tests of images in the rich editor in Chromium, Firefox and
 * WebKit: the alt text dialog on insertion (required text, Decorative,
 * cancel), undo of an insertion, the image tools (Alt text, Replace keeping
 * the old image until the new one is stored, Remove), the `<img>` written
 * from the media answer, and the missing-alt count (event and bar).
 */
import assert from "node:assert/strict";
import type { Page } from "../helpers/browser.ts";
import { clientSiteTest, marker, photo } from "../helpers/client_page.ts";
import { png } from "../fixtures/images.ts";
import { imageAttrs } from "../../client/upload.ts";

const SEED = { "pages:home": { title: "Hello", body: "<p>Body text</p>" } };
const REGION = "div[data-cms-field]";
const BAR = "cms-rich-toolbar";
const FILE = `${BAR} >>> input[type=file]`;

/** Attributes of the region's images. */
const imgs = (page: Page) =>
  page.evaluate(
    (sel) =>
      [...document.querySelectorAll(`${sel} img`)].map((img) =>
        Object.fromEntries([...img.attributes].map((a) => [a.name, a.value]))
      ),
    REGION,
  );

/** The open alt dialog, or null. */
const dialog = (page: Page) =>
  page.evaluate((bar) => {
    const root = document.querySelector(bar)!.shadowRoot!;
    const d = root.querySelector("dialog[open]");
    if (!d) return null;
    const text = d.querySelector("input[type=text]") as HTMLInputElement;
    return {
      name: root.getElementById(d.getAttribute("aria-labelledby")!)
        ?.textContent,
      // The text of the label(s) the input is labelled by.
      label: [...text.labels ?? []].map((l) => l.textContent).join(),
      value: text.value,
      focused: root.activeElement === text,
      decorative: (d.querySelector("[type=checkbox]") as HTMLInputElement)
        .checked,
      error: d.querySelector("[role=alert]")?.textContent ?? "",
    };
  }, BAR);

const waitDialog = (page: Page) =>
  page.waitFor(() =>
    document.querySelector("cms-rich-toolbar")!.shadowRoot!.querySelector(
      "dialog[open]",
    )
  );

/** Clicks the dialog's checkbox or its submit button. */
const inDialog = (page: Page, sel: string) =>
  page.evaluate(
    (bar, sel) =>
      (document.querySelector(bar)!.shadowRoot!.querySelector(
        `dialog[open] ${sel}`,
      ) as HTMLElement).click(),
    BAR,
    sel,
  );

const countImgs = (page: Page, n: number) =>
  page.waitFor(
    (sel, n) => document.querySelectorAll(`${sel} img`).length === n,
    {},
    REGION,
    n,
  );

clientSiteTest("rich: images, alt text and the image tools", {
  seed: SEED,
  pages: { "/": (site) => marker(site, "div", "pages:home:body", true) },
  script:
    `import * as cms from "/dist/mod.js"; window.cms = cms; window.alts = []; document.addEventListener("cms:alt", (e) => alts.push(e.detail.missing)); window.cmsHandle = cms.mountCms();`,
}, async (t, site, browser) => {
  const dir = await Deno.makeTempDir({ prefix: "cms-rich-img-" });
  // A photo wide enough for variants (480 and 960 px), and a small PNG.
  const wide = `${dir}/wide.jpg`, tall = `${dir}/tall.png`;
  await Deno.writeFile(wide, await photo(1200, 800));
  await Deno.writeFile(tall, await png(20, 50));
  const open = async () => {
    const page = await browser.newPage();
    await page.goto(site.url + "/");
    // Regions, rich editors and drafts in place: a step may then reset the
    // region's HTML without the editor's start putting it back.
    await page.evaluate(() =>
      (globalThis as unknown as { cmsHandle: { ready: Promise<void> } })
        .cmsHandle.ready
    );
    await page.waitFor(BAR);
    // Focus, not a click: the region's centre may be an image saved by an
    // earlier step, and a click there opens its image tools.
    await page.evaluate((sel) => {
      const el = document.querySelector(sel) as HTMLElement;
      el.focus();
      getSelection()!.selectAllChildren(el.lastElementChild!);
      getSelection()!.collapseToEnd();
    }, REGION);
    return page;
  };
  /** The variants the media storage holds (the server may make none). */
  const variants = () =>
    site.media.keys().filter((k) => /-\d+w\.\w+$/.test(k)).length;

  try {
    await t.step("insert: the dialog asks, text is required", async () => {
      const page = await open();
      try {
        await page.upload(FILE, wide);
        await waitDialog(page);
        let d = await dialog(page);
        assert.deepEqual(d, {
          name: "Describe the image",
          label: "Alt text",
          value: "",
          focused: true,
          decorative: false,
          error: "",
        });
        await page.press("Enter");
        d = await dialog(page);
        assert.equal(d?.error, "Describe the image, or mark it as decorative.");
        await page.type("A grey square");
        await page.press("Enter");
        await countImgs(page, 1);
        const [img] = await imgs(page);
        assert.equal(img.alt, "A grey square");
        assert.deepEqual([img.width, img.height], ["1200", "800"]);
        assert.match(img.src, /^\/media\//);
        assert.ok(variants() >= 2, "the media handler made variants");
        assert.match(img.srcset, /480w/);
        assert.match(img.srcset, /960w/);
        assert.equal(img.loading, "lazy");
        assert.equal(img.decoding, "async");
        assert.ok(img.sizes);
        await page.press("z", ["Control"]);
        await countImgs(page, 0);
        await page.press("y", ["Control"]);
        await countImgs(page, 1);
        // Saved as inserted (the server sanitizes and keeps it).
        await page.evaluate(() =>
          (globalThis as unknown as { cmsHandle: { save(): Promise<void> } })
            .cmsHandle.save()
        );
        const stored = (await site.store.get("pages", "home"))?.body as string;
        assert.match(stored, /<img [^>]*alt="A grey square"/);
        assert.match(stored, /width="1200" height="800"/);
        // The variants reach the saved HTML.
        const saved = stored.match(/<img [^>]*>/)![0];
        assert.match(saved, /srcset="[^"]*480w[^"]*960w/);
        assert.match(saved, /sizes="[^"]+"/);
        assert.match(saved, /loading="lazy"/);
        assert.match(saved, /decoding="async"/);
      } finally {
        await page.close();
      }
    });

    await t.step('Decorative gives alt=""; Esc inserts nothing', async () => {
      const page = await open();
      try {
        const before = (await imgs(page)).length;
        await page.upload(FILE, wide);
        await waitDialog(page);
        await inDialog(page, "[type=checkbox]");
        await inDialog(page, "[type=submit]");
        await countImgs(page, before + 1);
        assert.equal((await imgs(page)).at(-1)?.alt, "");
        const uploads = site.uploads.length;
        await page.upload(FILE, wide);
        await waitDialog(page);
        await page.press("Escape");
        assert.equal(await dialog(page), null);
        // The upload still completes (stored, the progress bar gone);
        // nothing more is inserted.
        const deadline = Date.now() + 10_000;
        while (site.uploads.length === uploads) {
          if (Date.now() > deadline) throw new Error("no upload arrived");
          await new Promise((r) => setTimeout(r, 20));
        }
        await page.waitFor(() =>
          document.querySelector("cms-rich-toolbar")!.shadowRoot!
            .querySelector<HTMLElement>("progress")!.hidden
        );
        assert.equal((await imgs(page)).length, before + 1);
      } finally {
        await page.close();
      }
    });

    await t.step(
      "image tools: Alt text, Replace keeps the box, Remove",
      async () => {
        const page = await open();
        try {
          await page.evaluate((sel) => {
            document.querySelector(sel)!.innerHTML = "<p>Body text</p>";
          }, REGION);
          await page.upload(FILE, wide);
          await waitDialog(page);
          await page.type("First");
          await page.press("Enter");
          await countImgs(page, 1);
          const clickImg = async () => {
            // Click what is painted: the toolbar follows the region's size
            // from its resize observer, which runs in the next frame.
            await page.evaluate(() =>
              new Promise((r) =>
                requestAnimationFrame(() => requestAnimationFrame(r))
              ).then(() => {})
            );
            await page.click(`${REGION} img`);
            await page.waitFor(() =>
              document.querySelector("cms-rich-toolbar")!.shadowRoot!
                .querySelector("form[aria-label=Image]")
            );
          };
          await clickImg();
          const names = await page.evaluate((bar) =>
            [
              ...document.querySelector(bar)!.shadowRoot!.querySelectorAll(
                "form[aria-label=Image] button",
              ),
            ].map((b) => b.textContent), BAR);
          assert.deepEqual(names, [
            "Replace",
            "Choose from library",
            "Alt text",
            "Remove",
            "Cancel",
          ]);
          const tool = (name: string) =>
            page.evaluate(
              (bar, name) =>
                ([
                  ...document.querySelector(bar)!.shadowRoot!.querySelectorAll(
                    "form[aria-label=Image] button",
                  ),
                ].find((b) => b.textContent === name) as HTMLElement).click(),
              BAR,
              name,
            );
          await tool("Alt text");
          await waitDialog(page);
          assert.equal((await dialog(page))?.value, "First");
          await page.evaluate((bar) => {
            const input = document.querySelector(bar)!.shadowRoot!
              .querySelector(
                "dialog[open] input[type=text]",
              ) as HTMLInputElement;
            input.select();
          }, BAR);
          await page.type("Renamed");
          await page.press("Enter");
          await page.waitFor(
            (sel) =>
              document.querySelector(`${sel} img`)?.getAttribute("alt") ===
                "Renamed",
            {},
            REGION,
          );
          // Replace: no native picker; the file input gets the file.
          await clickImg();
          await page.evaluate((bar) => {
            const input = document.querySelector(bar)!.shadowRoot!
              .querySelector(
                "input[type=file]",
              ) as HTMLInputElement;
            input.click = () => {};
          }, BAR);
          await tool("Replace");
          const old = (await imgs(page))[0];
          site.uploadDelayMs = 400;
          await page.upload(FILE, tall);
          await waitDialog(page);
          assert.equal((await dialog(page))?.value, "Renamed");
          await page.press("Enter");
          // While the new image uploads, the old one keeps its box.
          const during = (await imgs(page))[0];
          assert.deepEqual(
            [during.src, during.width, during.height],
            [old.src, "1200", "800"],
          );
          await page.waitFor(
            (sel) =>
              document.querySelector(`${sel} img`)?.getAttribute("height") ===
                "50",
            {},
            REGION,
          );
          site.uploadDelayMs = 0;
          const replaced = (await imgs(page))[0];
          assert.notEqual(replaced.src, old.src);
          assert.deepEqual([replaced.width, replaced.alt], ["20", "Renamed"]);
          await clickImg();
          await tool("Remove");
          await countImgs(page, 0);
          await page.press("z", ["Control"]);
          await countImgs(page, 1);
        } finally {
          site.uploadDelayMs = 0;
          await page.close();
        }
      },
    );

    await t.step(
      "paste a photo: the alt dialog, then srcset in the saved HTML",
      async () => {
        const page = await open();
        try {
          const bytes = await Deno.readFile(wide);
          let binary = "";
          for (let i = 0; i < bytes.length; i += 0x8000) {
            binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
          }
          await page.evaluate(
            (sel, b64) => {
              const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
              const dt = new DataTransfer();
              dt.items.add(
                new File([data], "pasted.jpg", { type: "image/jpeg" }),
              );
              const paste = new ClipboardEvent("paste", {
                bubbles: true,
                cancelable: true,
              });
              // Firefox gives synthetic events an empty copy of the DataTransfer.
              Object.defineProperty(paste, "clipboardData", { value: dt });
              document.querySelector(sel)!.dispatchEvent(paste);
            },
            REGION,
            btoa(binary),
          );
          await waitDialog(page);
          await page.type("A pasted photo");
          await page.press("Enter");
          await page.waitFor(
            (sel) =>
              [...document.querySelectorAll(`${sel} img`)].some((img) =>
                img.getAttribute("alt") === "A pasted photo" &&
                img.hasAttribute("srcset")
              ),
            {},
            REGION,
          );
          await page.evaluate(() =>
            (globalThis as unknown as { cmsHandle: { save(): Promise<void> } })
              .cmsHandle.save()
          );
          const stored = (await site.store.get("pages", "home"))
            ?.body as string;
          const saved = stored.match(/<img [^>]*alt="A pasted photo"[^>]*>/)
            ?.[0];
          assert.ok(saved, stored);
          assert.match(saved, /srcset="[^"]*480w[^"]*960w/);
          assert.match(saved, /width="1200" height="800"/);
          assert.match(saved, /loading="lazy"/);
          assert.doesNotMatch(saved, /(data|blob):/);
        } finally {
          await page.close();
        }
      },
    );

    await t.step("the missing-alt count follows pasted images", async () => {
      const page = await open();
      try {
        await page.evaluate((sel) => {
          const data = new DataTransfer();
          data.setData(
            "text/html",
            '<img src="/media/a.png" width="4" height="4"><img src="/media/b.png" width="4" height="4" alt="">',
          );
          const paste = new ClipboardEvent("paste", {
            bubbles: true,
            cancelable: true,
          });
          Object.defineProperty(paste, "clipboardData", { value: data });
          document.querySelector(sel)!.dispatchEvent(paste);
        }, REGION);
        await page.waitFor(() =>
          (globalThis as unknown as { alts: number[] }).alts.length > 0
        );
        const alts = await page.evaluate(() =>
          (globalThis as unknown as { alts: number[] }).alts
        );
        assert.equal(alts.at(-1), 1);
        // The edit bar counts it with the content checks' problems.
        await page.waitFor(() =>
          [
            ...document.querySelector("cms-edit-bar")!.shadowRoot!
              .querySelectorAll("button"),
          ].some((s) => s.textContent === "1 problem")
        );
      } finally {
        await page.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("rich: <img> attributes from a media answer with and without variants", () => {
  const base = { key: "m/a.jpg", url: "/media/m/a.jpg", type: "image/jpeg" };
  assert.deepEqual(imageAttrs({ ...base, width: 2000, height: 1000 }, "Sea"), {
    src: "/media/m/a.jpg",
    width: "2000",
    height: "1000",
    alt: "Sea",
  });
  const v = (width: number) => ({
    url: `/media/m/a-${width}w.webp`,
    width,
    height: width / 2,
    type: "image/webp",
  });
  assert.deepEqual(
    imageAttrs({
      ...base,
      width: 2000,
      height: 1000,
      variants: [v(480), v(960)],
    }, ""),
    {
      src: "/media/m/a.jpg",
      width: "2000",
      height: "1000",
      alt: "",
      srcset:
        "/media/m/a-480w.webp 480w, /media/m/a-960w.webp 960w, /media/m/a.jpg 2000w",
      sizes: "(max-width: 2000px) 100vw, 2000px",
      loading: "lazy",
      decoding: "async",
    },
  );
  // A same-width variant replaces the original in srcset; a wider one, or a
  // URL that would break the srcset syntax, is left out.
  const odd = imageAttrs({
    ...base,
    width: 960,
    height: 480,
    variants: [v(960), v(1440), { ...v(480), url: "/media/a b.webp" }],
  }, "x");
  assert.equal(odd.srcset, "/media/m/a-960w.webp 960w");
});
