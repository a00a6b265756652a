/**
 * End to end through the real CLI: `deno task dev` on a free port with a temp
 * data folder, driven in Chromium: log in, edit title, a feature and the
 * body (with an uploaded image), save, reload, and check what visitors see.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { withBrowser } from "../helpers/browser.ts";
import { samplePng } from "../../demo/sample_image.ts";

const PASSWORD = "e2e-secret-password";
const ROOT = new URL("../..", import.meta.url).pathname;

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Reads the child's stdout until the printed URL appears (bounded). */
async function waitForUrl(
  stdout: ReadableStream<Uint8Array>,
  log: string[],
  timeoutMs: number,
): Promise<string> {
  const lines = stdout.getReader();
  const decoder = new TextDecoder();
  const deadline = setTimeout(() => lines.cancel("timeout"), timeoutMs);
  let buffer = "";
  try {
    while (true) {
      const { done, value } = await lines.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      buffer += text;
      log.push(text);
      const m = buffer.match(/(http:\/\/127\.0\.0\.1:\d+)\//);
      if (m) {
        // Keep draining so the child never blocks on a full pipe.
        (async () => {
          try {
            while (!(await lines.read()).done);
          } catch { /* closed */ }
        })();
        return m[1];
      }
    }
  } finally {
    clearTimeout(deadline);
  }
  throw new Error(`deno task dev printed no URL:\n${log.join("")}`);
}

/** Clicks the edit bar button labelled `label` (inside its shadow root). */
async function clickBar(page: Page, label: string) {
  const clicked = await page.evaluate((label) => {
    const root = document.querySelector("cms-edit-bar")?.shadowRoot;
    const button = [...root?.querySelectorAll("button") ?? []]
      .find((b) => b.textContent?.trim() === label);
    button?.click();
    return Boolean(button);
  }, label);
  assert.ok(clicked, `edit bar button ${label}`);
}

async function replaceText(page: Page, selector: string, text: string) {
  await page.click(selector);
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.type(text);
}

/**
 * SIGTERM to `deno task dev`: the demo drains and exits. The task runs it
 * under `--watch`, whose watcher then waits for a file change; while the
 * task is still there, it gets SIGTERM again (at most 40 times, 250 ms
 * apart), which ends the watcher.
 */
async function stopDevTask(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  for (let i = 0; i < 40; i++) {
    const done = await Promise.race([
      child.status.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), 250)),
    ]);
    if (done) return;
    try {
      child.kill("SIGTERM");
    } catch {
      return; // exited between the two checks
    }
  }
  child.kill("SIGKILL");
  await child.status;
}

Deno.test({
  name: "demo e2e: deno task dev, edit in Chromium, persisted, visitors clean",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-e2e-" });
    const picture = `${dataDir}/upload.png`;
    await Deno.writeFile(picture, await samplePng(320, 160));
    const port = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "dev"],
      cwd: ROOT,
      env: {
        PORT: String(port),
        CMS_DATA_DIR: `${dataDir}/data`,
        CMS_EDITOR_PASSWORD: PASSWORD,
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const log: string[] = [];
    try {
      const url = await waitForUrl(child.stdout, log, 60_000);
      assert.equal(url, `http://127.0.0.1:${port}`);
      assert.ok(
        !log.join("").includes(PASSWORD),
        "a given password is not printed",
      );

      // Chromium only: one long end-to-end run through the real CLI; the
      // behaviour suites (client_*_test.ts) cover the three engines.
      await withBrowser("chromium", async (browser) => {
        const page = (await browser.newPage()).puppeteer!;
        const saves: { field: string; status: number }[] = [];
        page.on("request", (req) => {
          if (req.url().endsWith("/api/cms/save")) {
            saves.push({
              field: JSON.parse(req.postData() ?? "{}").field,
              status: 0,
            });
          }
        });
        page.on("response", (res) => {
          if (res.url().endsWith("/api/cms/save")) {
            const pending = saves.find((s) => s.status === 0);
            if (pending) pending.status = res.status();
          }
        });

        // Log in through the form.
        await page.goto(`${url}/login`);
        await page.type("#password", PASSWORD);
        await Promise.all([
          page.waitForNavigation(),
          page.click("form.login button[type=submit]"),
        ]);
        assert.equal(new URL(page.url()).pathname, "/");
        assert.ok(await page.$('a[href="/?edit"]'), "Edit this page link");

        // Edit mode: the client mounts the edit bar and the rich toolbar.
        await page.goto(`${url}/?edit`);
        await page.waitForSelector("cms-edit-bar", { timeout: 15_000 });
        const input = await page.waitForSelector(
          "cms-rich-toolbar >>> input[type=file]",
          { timeout: 15_000 },
        );
        assert.ok(input);

        await replaceText(
          page,
          '[data-cms-field="pages:home:title"]',
          "Saved from Chromium",
        );
        await replaceText(
          page,
          '[data-cms-field="pages:home:features.1"]',
          "Edited feature",
        );

        // Image into the body through the toolbar's file input.
        await page.click('[data-cms-field="pages:home:body"] p:last-of-type');
        await page.keyboard.press("End");
        await input.uploadFile(picture);
        // The alt text dialog asks before the image goes in.
        const alt = await page.waitForSelector(
          "cms-rich-toolbar >>> dialog[open] input[type=text]",
          { timeout: 15_000 },
        );
        await alt!.type("A sample picture");
        await page.keyboard.press("Enter");
        const img = await page.waitForSelector(
          '[data-cms-field="pages:home:body"] img[width][height]',
          { timeout: 15_000 },
        );
        assert.ok(img);

        // Settings opens the demo's drawer with the client's RichText.
        await clickBar(page, "Settings");
        await page.waitForSelector(".drawer cms-rich-toolbar", {
          timeout: 10_000,
        });
        await page.click(".drawer [aria-label='Close settings']");
        assert.equal(await page.$(".drawer"), null);

        await clickBar(page, "Save");
        for (
          let i = 0;
          i < 150 && !(saves.length === 3 && saves.every((s) => s.status));
          i++
        ) {
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.deepEqual(
          saves.map((s) => s.field).sort(),
          ["body", "features.1", "title"],
          "exactly the three changed fields are sent",
        );
        assert.ok(saves.every((s) => s.status === 204), JSON.stringify(saves));

        // Reload: everything persisted.
        await page.goto(`${url}/?edit`);
        await page.waitForSelector("cms-edit-bar", { timeout: 15_000 });
        const state = await page.evaluate(() => {
          const q = (s: string) => document.querySelector(s);
          const image = q('[data-cms-field="pages:home:body"] img') as
            | HTMLImageElement
            | null;
          return {
            title: q('[data-cms-field="pages:home:title"]')?.textContent,
            feature: q('[data-cms-field="pages:home:features.1"]')?.textContent,
            src: image?.getAttribute("src"),
            width: image?.getAttribute("width"),
            height: image?.getAttribute("height"),
          };
        });
        assert.equal(state.title, "Saved from Chromium");
        assert.equal(state.feature, "Edited feature");
        assert.equal(state.width, "320");
        assert.equal(state.height, "160");
        assert.match(state.src ?? "", /^\/media\/.+\.png$/);
        const served = await fetch(url + state.src);
        assert.equal(served.headers.get("Content-Type"), "image/png");
        assert.equal(served.headers.get("X-Content-Type-Options"), "nosniff");
        await served.body?.cancel();

        // A visitor (fresh context, no cookie) sees the content, no markers.
        const incognito = await browser.newPage();
        try {
          const visitor = incognito.puppeteer!;
          for (const path of ["/", "/?edit"]) {
            await visitor.goto(url + path);
            const html = await visitor.content();
            assert.ok(!html.includes("data-cms-field"), path);
            assert.ok(!html.includes("cms-config"), path);
            assert.equal(await visitor.$("cms-edit-bar"), null);
            assert.equal(
              await visitor.$eval("h1", (h) => h.textContent),
              "Saved from Chromium",
            );
            assert.ok(await visitor.$('.prose img[width="320"][height="160"]'));
          }
        } finally {
          await incognito.close();
        }
      });
    } finally {
      await stopDevTask(child);
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
    // The demo really stopped (deno task forwards the signal).
    const after = await fetch(`http://127.0.0.1:${port}/`).then(
      (r) => r.body?.cancel().then(() => "up"),
      () => "down",
    );
    assert.equal(after, "down");
  },
});
