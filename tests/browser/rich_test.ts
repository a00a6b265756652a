/**
 * Browser tests (Chromium, Firefox and WebKit) of the rich text editor: lazy loading,
 * sanitized paste, image upload with progress through the real media
 * handler, upload failures, a marker-free page, and a Preact island using
 * `mountRichText` and `Icon`.
 */
import assert from "node:assert/strict";
import { engineTest, type Page } from "../helpers/browser.ts";
import { denoBundle } from "../../tools/build_client.ts";
import {
  buildTempBundle,
  type ClientSite,
  gif,
  marker,
  type PageEvent,
  type PageGlobals,
  startClientSite,
} from "../helpers/client_page.ts";

const SEED = { "pages:home": { title: "Hello", body: "<p>Body text</p>" } };

const ISLAND = `
import { h, render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Icon, mountRichText } from "${
  new URL("../../client/mod.ts", import.meta.url).href
}";

function Panel() {
  const host = useRef(null);
  const icon = useRef(null);
  const [html, setHtml] = useState("");
  useEffect(() => {
    icon.current.append(Icon("settings"));
    const area = document.createElement("div");
    host.current.append(area);
    let editor, gone = false;
    mountRichText(area, { value: "<p>Island</p>", label: "Summary", onChange: setHtml })
      .then((c) => { if (gone) c.destroy(); else { editor = c; setHtml(c.value); } });
    return () => { gone = true; editor?.destroy(); };
  }, []);
  return h("section", null,
    h("span", { id: "island-icon", ref: icon }),
    h("div", { id: "island-host", ref: host }),
    h("output", { id: "island-out" }, html));
}
render(h(Panel, null), document.getElementById("island"));
`;

async function richPage(site: ClientSite): Promise<string> {
  return `${await marker(site, "h1", "pages:home:title")}
${await marker(site, "div", "pages:home:body", true)}`;
}

/** Runs `deno bundle` on the island entry into `dist` (as `island.js`). */
async function bundleIsland(dist: string) {
  const src = await Deno.makeTempDir({ prefix: "cms-island-" });
  await Deno.writeTextFile(`${src}/island.js`, ISLAND);
  try {
    await denoBundle([
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      "--code-splitting",
      "--outdir",
      dist,
      `${src}/island.js`,
    ]);
  } finally {
    await Deno.remove(src, { recursive: true });
  }
}

/** Focuses the rich region and puts the caret at its end. */
async function caretAtEnd(page: Page, sel = "div[data-cms-field]") {
  await page.evaluate((sel) => {
    const el = document.querySelector(sel) as HTMLElement;
    el.focus();
    const range = document.createRange();
    range.selectNodeContents(el.lastElementChild ?? el);
    range.collapse(false);
    getSelection()!.removeAllRanges();
    getSelection()!.addRange(range);
  }, sel);
}

/**
 * Waits for the alt text dialog asked on insertion, then answers it with
 * `alt`, or cancels it when `alt` is null.
 */
async function answerAlt(page: Page, alt: string | null) {
  const sel = "dialog[open]";
  await page.waitFor(
    (sel: string) =>
      document.querySelector("cms-rich-toolbar")!.shadowRoot!.querySelector(
        sel,
      ),
    { timeout: 5000 },
    sel,
  );
  await page.evaluate(
    (sel: string, alt: string | null) => {
      const d = document.querySelector("cms-rich-toolbar")!.shadowRoot!
        .querySelector(sel)!;
      if (alt !== null) {
        d.querySelector<HTMLInputElement>("input[type=text]")!.value = alt;
      }
      d.querySelectorAll<HTMLButtonElement>("button")[alt === null ? 1 : 0]
        .click();
    },
    sel,
    alt,
  );
}

function toolbarText(page: Page): Promise<string> {
  return page.evaluate(() =>
    document.querySelector("cms-rich-toolbar")!.shadowRoot!.querySelector(
      "[role=status]",
    )!.textContent ?? ""
  );
}

engineTest("client: rich regions, uploads and islands", async (t, browser) => {
  const dist = await buildTempBundle();
  await bundleIsland(dist);
  const site = startClientSite({
    dist,
    seed: SEED,
    pages: {
      "/": richPage,
      "/plain": () => `<h1>No markers</h1><p>Just a page.</p>`,
      "/island": () => `<div id="island"></div>`,
    },
    script:
      `import * as cms from "/dist/mod.js"; window.cms = cms; if (location.pathname === "/island") import("/dist/island.js"); else if (location.pathname !== "/plain") window.cmsHandle = cms.mountCms();`,
  });
  const tmp = await Deno.makeTempDir({ prefix: "cms-upload-" });
  /** Whether a file the page loaded holds the uploader (its XHR). */
  const uploaderLoaded = async () => {
    for (const path of site.paths) {
      const name = /^\/dist\/([\w.-]+\.js)$/.exec(path)?.[1];
      if (!name) continue;
      const code = await Deno.readTextFile(`${dist}/${name}`);
      if (code.includes("XMLHttpRequest")) return true;
    }
    return false;
  };
  try {
    await t.step("a marker-free page: no DOM change, no request", async () => {
      const page = await browser.newPage();
      await page.goto(site.url + "/plain");
      site.paths.length = 0;
      const result = await page.evaluate(async () => {
        const w = globalThis as unknown as PageGlobals;
        const before = document.documentElement.outerHTML;
        const changes: MutationRecord[] = [];
        const observer = new MutationObserver((m) => changes.push(...m));
        observer.observe(document, {
          subtree: true,
          childList: true,
          attributes: true,
          characterData: true,
        });
        const resources = performance.getEntriesByType("resource").length;
        const handle = w.cms.mountCms();
        await handle.ready;
        await handle.save();
        await new Promise((r) => setTimeout(r, 200));
        changes.push(...observer.takeRecords());
        observer.disconnect();
        return {
          fields: handle.fields,
          changes: changes.length,
          same: before === document.documentElement.outerHTML,
          newResources: performance.getEntriesByType("resource").length -
            resources,
          scripts: performance.getEntriesByType("resource").map((r) =>
            new URL(r.name).pathname
          ),
        };
      });
      assert.equal(result.fields, 0);
      assert.equal(result.changes, 0);
      assert.ok(result.same);
      assert.equal(result.newResources, 0, result.scripts.join());
      assert.deepEqual(site.paths, []);
      assert.ok(result.scripts.every((p: string) => !p.includes("rich-")));
      assert.ok(result.scripts.includes("/dist/mod.js"));
      await page.close();
    });

    let page!: Page;
    await t.step(
      "a rich marker loads the rich chunk and its toolbar",
      async () => {
        site.paths.length = 0;
        page = await browser.newPage();
        await page.goto(site.url + "/");
        await page.evaluate(() =>
          (globalThis as unknown as PageGlobals).cmsHandle.ready
        );
        assert.ok(site.paths.some((p) => /^\/dist\/rich-\w+\.js$/.test(p)));
        // The uploader is loaded at the first upload, not to edit.
        assert.equal(await uploaderLoaded(), false, site.paths.join());
        const names = await page.evaluate(() =>
          [
            ...document.querySelector("cms-rich-toolbar")!.shadowRoot!
              .querySelectorAll("[role=toolbar] button[aria-label]"),
          ].map((b) => b.getAttribute("aria-label"))
        );
        assert.deepEqual(names, [
          "Bold",
          "Italic",
          "Inline code",
          "Link",
          "Block type: Paragraph",
          "Bulleted list",
          "Numbered list",
          "Insert image",
          "Undo",
          "Redo",
          "Keyboard shortcuts",
        ]);
        assert.equal(
          await page.evaluate(() =>
            document.querySelector("div[data-cms-field]")!.getAttribute(
              "contenteditable",
            )
          ),
          "true",
        );
      },
    );

    await t.step(
      "pasted HTML is sanitized with the shared policy",
      async () => {
        await caretAtEnd(page);
        const out = await page.evaluate(async () => {
          const dt = new DataTransfer();
          dt.setData(
            "text/html",
            `<p style="color:red" onclick="window.pwned=1">Pasted <b>bold</b><img src=x onerror="window.pwned=2"><script>window.pwned=3<\/script><a href="javascript:alert(1)">js</a></p>`,
          );
          const paste = new ClipboardEvent("paste", {
            bubbles: true,
            cancelable: true,
          });
          // Firefox gives a synthetic event an empty copy of clipboardData.
          Object.defineProperty(paste, "clipboardData", { value: dt });
          const el = document.querySelector("div[data-cms-field]")!;
          const handled = !el.dispatchEvent(paste);
          // The sanitizer is a lazy chunk: the paste lands once it loaded.
          const deadline = Date.now() + 5000;
          while (!/Pasted/.test(el.innerHTML) && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 20));
          }
          return {
            handled,
            html: document.querySelector("div[data-cms-field]")!.innerHTML,
            pwned: (globalThis as unknown as PageGlobals).pwned,
          };
        });
        assert.equal(out.pwned, undefined);
        assert.ok(out.handled, "the paste's default is prevented at once");
        assert.match(out.html, /Pasted/);
        assert.match(out.html, /<b>bold<\/b>/);
        assert.doesNotMatch(
          out.html,
          /onerror|onclick|<script|javascript:|style=|<img/i,
        );
      },
    );

    await t.step("image upload via the file input, with progress", async () => {
      const file = `${tmp}/beach_day.gif`;
      await Deno.writeFile(file, gif(40, 30));
      site.uploadDelayMs = 700;
      await caretAtEnd(page);
      const input = "cms-rich-toolbar >>> input[type=file]";
      await page.upload(input, file);
      await page.waitFor(() => {
        const p = document.querySelector("cms-rich-toolbar")!.shadowRoot!
          .querySelector("progress")!;
        return !p.hidden;
      }, { timeout: 2000 });
      assert.match(await toolbarText(page), /Uploading beach_day\.gif/);
      await answerAlt(page, "beach day");
      await page.waitFor("div[data-cms-field] img", { timeout: 5000 });
      site.uploadDelayMs = 0;
      const img = await page.evaluate(() => {
        const el = document.querySelector("div[data-cms-field] img")!;
        return {
          src: el.getAttribute("src"),
          width: el.getAttribute("width"),
          height: el.getAttribute("height"),
          alt: el.getAttribute("alt"),
          hidden: (document.querySelector("cms-rich-toolbar")!.shadowRoot!
            .querySelector("progress") as HTMLProgressElement).hidden,
          value: (document.querySelector("cms-rich-toolbar")!.shadowRoot!
            .querySelector("progress") as HTMLProgressElement).value,
        };
      });
      assert.match(img.src!, /^\/media\/[\w-]+\.gif$/);
      assert.deepEqual(
        [img.width, img.height, img.alt, img.hidden, img.value],
        ["40", "30", "beach day", true, 1],
      );
      assert.deepEqual(site.uploads, [200]);
      assert.equal(await uploaderLoaded(), true, site.paths.join());
      assert.doesNotMatch(
        await page.evaluate(() => document.documentElement.outerHTML),
        /data:image/,
      );
      // The image is part of the field: one save, sanitized and stored.
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).cmsHandle.save()
      );
      assert.equal(site.saves.length, 1);
      assert.equal(site.saves[0].body.field, "body");
      assert.equal(site.saves[0].status, 204);
      const stored = (await site.store.get("pages", "home"))?.body as string;
      assert.match(stored, /<img [^>]*width="40"/);
      // The region shows the pasted <b>; the value says <strong>.
      assert.match(stored, /Pasted <strong>bold<\/strong>/);
    });

    await t.step("a failed upload says why (415, 403)", async () => {
      const bad = `${tmp}/drawing.gif`;
      await Deno.writeTextFile(
        bad,
        "<svg xmlns='http://www.w3.org/2000/svg'/>",
      );
      await page.evaluate(() => {
        const w = globalThis as unknown as PageGlobals;
        w.errors = [];
        document.addEventListener(
          "cms:error",
          (e) => w.errors.push((e as CustomEvent).detail),
        );
      });
      const input = "cms-rich-toolbar >>> input[type=file]";
      await page.upload(input, bad);
      await page.waitFor(() =>
        (globalThis as unknown as PageGlobals).errors.length === 1
      );
      assert.match(await toolbarText(page), /^Upload failed: .+ \(415\)$/);
      await answerAlt(page, null);
      site.authorized = false;
      await Deno.writeFile(`${tmp}/ok.gif`, gif(2, 2));
      await page.upload(input, `${tmp}/ok.gif`);
      await page.waitFor(() =>
        (globalThis as unknown as PageGlobals).errors.length === 2
      );
      site.authorized = true;
      assert.match(await toolbarText(page), /^Upload failed: .+ \(403\)$/);
      await answerAlt(page, "ok");
      const errors = await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).errors
      );
      assert.deepEqual(errors.map((e: PageEvent) => [e.status, e.upload]), [
        [415, true],
        [403, true],
      ]);
      assert.deepEqual(site.uploads.slice(1), [415, 403]);
      assert.equal(
        await page.evaluate(() =>
          document.querySelectorAll("div[data-cms-field] img").length
        ),
        1,
      );
    });

    await t.step("toolbar: Bold wraps the selection", async () => {
      await page.evaluate(() => {
        const el = document.querySelector("div[data-cms-field] p")!;
        const range = document.createRange();
        range.selectNodeContents(el.firstChild!);
        getSelection()!.removeAllRanges();
        getSelection()!.addRange(range);
        (document.querySelector("div[data-cms-field]") as HTMLElement).focus();
      });
      await page.evaluate(() =>
        (document.querySelector("cms-rich-toolbar")!.shadowRoot!.querySelector(
          "[aria-label=Bold]",
        ) as HTMLElement).click()
      );
      assert.match(
        await page.evaluate(() =>
          document.querySelector("div[data-cms-field]")!.innerHTML
        ),
        /^<p><b>Body text/,
      );
      await page.close();
    });

    await t.step("a Preact island uses mountRichText and Icon", async () => {
      const island = await browser.newPage();
      await island.goto(site.url + "/island");
      await island.waitFor(() =>
        document.getElementById("island-out")?.textContent === "<p>Island</p>"
      );
      assert.deepEqual(
        await island.evaluate(() => [
          document.querySelector("#island-icon svg")!.getAttribute("data-icon"),
          document.querySelectorAll("cms-rich-toolbar").length,
          document.querySelectorAll("cms-edit-bar").length,
        ]),
        ["settings", 1, 0],
      );
      await caretAtEnd(island, "#island-host [contenteditable]");
      await island.type(" typed");
      await island.waitFor(() =>
        document.getElementById("island-out")?.textContent ===
          "<p>Island typed</p>"
      );
      // RichText: a ready-to-append element; its controller arrives async.
      const controller = await island.evaluate(async () => {
        const { cms } = globalThis as unknown as PageGlobals;
        const el = cms.RichText({ value: "<p>Two</p>", label: "Notes" });
        document.body.append(el);
        const c = await el.ready;
        const first = c.value;
        c.value = `<p>Set<img src="x" onerror="window.pwned=1"></p>`;
        const set = c.value;
        const toolbars = el.querySelectorAll("cms-rich-toolbar").length;
        c.destroy();
        return {
          first,
          set,
          toolbars,
          after: el.querySelectorAll("cms-rich-toolbar").length,
          editable: c.element.hasAttribute("contenteditable"),
        };
      });
      assert.deepEqual(controller, {
        first: "<p>Two</p>",
        set: "<p>Set</p>",
        toolbars: 1,
        after: 0,
        editable: false,
      });
      await island.close();
    });
  } finally {
    await site.close();
    await Deno.remove(dist, { recursive: true });
    await Deno.remove(tmp, { recursive: true });
  }
});
