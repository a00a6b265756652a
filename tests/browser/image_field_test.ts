/**
 * Browser tests of image fields (`<img data-cms-type="image">`) in Chromium,
 * Firefox and WebKit: the region is focusable with its name, Enter opens the
 * lazy panel, Replace uploads through the real media handler and the `<img>`
 * gets the stored URL, size and srcset from the variants; the URL is saved
 * like any field; Esc reverts; a file dropped onto the image replaces it.
 */
import assert from "node:assert/strict";
import type { Page } from "../helpers/browser.ts";
import { clientSiteTest, photo, waitState } from "../helpers/client_page.ts";

const OLD = "/media/old.png";
const SEED = { "pages:home": { title: "Hello", hero: OLD } };
const IMG = "img[data-cms-field]";
const PANEL = "cms-image-field";

/** The image region's attributes. */
const attrs = (page: Page) =>
  page.evaluate((sel) => {
    const img = document.querySelector(sel)!;
    return Object.fromEntries(
      [...img.attributes].map((a) => [a.name, a.value]),
    );
  }, IMG);

/** Waits until the image's `src` is something other than `src`. */
const srcChanged = (page: Page, src: string) =>
  page.waitFor(
    (sel, src) => document.querySelector(sel)!.getAttribute("src") !== src,
    { timeout: 15000 },
    IMG,
    src,
  );

clientSiteTest("image field: panel, upload with variants, save, Esc, drop", {
  seed: SEED,
  allowlist: { pages: { title: "plain", hero: "image" } },
  pages: {
    "/": () =>
      `<p data-cms-field="pages:home:title">Hello</p><img data-cms-field="pages:home:hero" data-cms-type="image" src="${OLD}" width="40" height="30" alt="A hill">`,
  },
}, async (t, site, browser) => {
  const dir = await Deno.makeTempDir({ prefix: "cms-image-field-" });
  const file = `${dir}/photo.jpg`;
  await Deno.writeFile(file, await photo(1200, 800));
  const page = await browser.newPage();
  try {
    await page.goto(site.url + "/");
    await page.waitFor("cms-edit-bar");

    await t.step("the image is a named, focusable region", async () => {
      const a = await attrs(page);
      assert.equal(a.tabindex, "0");
      assert.equal(a.role, "button");
      assert.equal(a["aria-label"], "Change image");
      assert.equal(a.alt, "A hill");
    });

    let first = "";
    await t.step("Enter opens the panel; Replace uploads", async () => {
      await page.evaluate(
        (sel) => (document.querySelector(sel) as HTMLElement).focus(),
        IMG,
      );
      await page.press("Enter");
      await page.waitFor(PANEL);
      const names = await page.evaluate(
        (p) =>
          [...document.querySelector(p)!.shadowRoot!.querySelectorAll("button")]
            .map((b) => b.textContent),
        PANEL,
      );
      assert.deepEqual(names, ["Replace", "Choose from library", "Cancel"]);
      await page.upload(`${PANEL} >>> input[type=file]`, file);
      await srcChanged(page, OLD);
      const a = await attrs(page);
      first = a.src;
      assert.match(first, /^\/media\/.+\.jpe?g$/);
      assert.equal(a.width, "1200");
      assert.equal(a.height, "800");
      assert.equal(a.alt, "A hill", "the host's alt text stays");
      // Variants at 480 and 960 px, plus the original.
      assert.match(a.srcset, /480w/);
      assert.match(a.srcset, /960w/);
      assert.match(a.srcset, /1200w/);
      assert.ok(a.sizes);
      for (const url of a.srcset.split(", ").map((s) => s.split(" ")[0])) {
        assert.ok(site.media.get(url.replace(/^\/media\//, "")), url);
      }
      // The panel closed and the field is dirty.
      await page.waitFor((p) => !document.querySelector(p), {}, PANEL);
      await waitState(page, "unsaved");
      assert.equal(
        await site.store.get("pages", "home").then((r) => r?.hero),
        OLD,
      );
    });

    await t.step("the URL is saved like any field", async () => {
      await page.press("s", ["Control"]);
      await waitState(page, "clean");
      const stored = await site.store.get("pages", "home");
      assert.equal(stored?.hero, first);
      const last = site.saves.at(-1)!;
      assert.equal(last.status, 204);
      assert.equal(last.body.field, "hero");
      assert.equal(last.body.value, first);
    });

    await t.step("a dropped image replaces it; Esc reverts", async () => {
      // The stored photo, dropped from the page as a File.
      await page.evaluate(
        async (sel, url) => {
          const blob = await (await fetch(url)).blob();
          const data = new DataTransfer();
          data.items.add(new File([blob], "drop.jpg", { type: "image/jpeg" }));
          const img = document.querySelector(sel)!;
          const over = new DragEvent("dragover", {
            bubbles: true,
            cancelable: true,
            dataTransfer: data,
          });
          img.dispatchEvent(over);
          if (!over.defaultPrevented) throw new Error("dragover not accepted");
          img.dispatchEvent(
            new DragEvent("drop", {
              bubbles: true,
              cancelable: true,
              dataTransfer: data,
            }),
          );
        },
        IMG,
        first,
      );
      await srcChanged(page, first);
      await waitState(page, "unsaved");
      const dropped = await attrs(page);
      assert.notEqual(dropped.src, first);
      assert.match(dropped.srcset, /480w/);
      await page.evaluate(
        (sel) => (document.querySelector(sel) as HTMLElement).focus(),
        IMG,
      );
      await page.press("Escape");
      await waitState(page, "clean");
      const a = await attrs(page);
      assert.equal(a.src, first);
      assert.match(a.srcset, /960w/, "the saved image's srcset is back");
      assert.equal(a.width, "1200");
    });

    await t.step("a non-image file is refused with a reason", async () => {
      const errors = await page.evaluate(
        (sel) =>
          new Promise<string>((resolve) => {
            document.addEventListener(
              "cms:error",
              (e) => resolve((e as CustomEvent).detail.reason),
              { once: true },
            );
            const data = new DataTransfer();
            data.items.add(new File(["hi"], "a.txt", { type: "text/plain" }));
            document.querySelector(sel)!.dispatchEvent(
              new DragEvent("drop", {
                bubbles: true,
                cancelable: true,
                dataTransfer: data,
              }),
            );
          }),
        IMG,
      );
      assert.equal(errors, "Not an image");
      // The edit bar says so (status and toast) until its toast is closed.
      await waitState(page, "error");
      assert.deepEqual(
        await page.evaluate(() => {
          const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
          const toast = root.querySelector(".n")!;
          const text = [
            root.querySelector("[aria-live]")!.textContent,
            toast.firstChild!.textContent,
          ];
          toast.querySelector("button")!.click(); // OK
          return text;
        }),
        ["Upload failed: Not an image", "Upload failed: Not an image"],
      );
      await waitState(page, "clean");
    });
  } finally {
    await page.close();
    await Deno.remove(dir, { recursive: true });
  }
});
