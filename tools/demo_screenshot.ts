/**
 * Takes the README screenshot: starts the demo on a free port with a temp
 * data folder, logs in, opens `/?edit`, inserts the sample picture into the
 * body through the rich toolbar, and saves `docs/demo-edit.png`. With
 * `--phone`: the same on a 375×667 touch screen (2× pixels), the body
 * focused (its toolbar shown), saved as `docs/phone.png`.
 *
 * Run: `deno run -A tools/demo_screenshot.ts [--phone] [out.png]`
 *
 * @module
 */
import { launch } from "../tests/helpers/browser.ts";
import { startDemo } from "../demo/main.ts";
import { samplePng } from "../demo/sample_image.ts";

const phone = Deno.args.includes("--phone");
const out = Deno.args.find((a) => a !== "--phone") ??
  (phone ? "docs/phone.png" : "docs/demo-edit.png");
const dataDir = await Deno.makeTempDir({ prefix: "cms-shot-" });
const picture = `${dataDir}/landscape.png`;
await Deno.writeFile(picture, await samplePng(640, 280));
const demo = await startDemo({ port: 0, dataDir, password: "screenshot" });
const browser = await launch("chromium");
try {
  const page = (await browser.newPage()).puppeteer!;
  await page.setViewport(
    phone
      ? {
        width: 375,
        height: 667,
        deviceScaleFactor: 2,
        hasTouch: true,
        isMobile: true,
      }
      : { width: 1200, height: 1240 },
  );
  await page.goto(`${demo.url}/login`);
  await page.type("#password", demo.password);
  await Promise.all([
    page.waitForNavigation(),
    page.click("form.login button"),
  ]);
  await page.goto(`${demo.url}/?edit`);
  await page.waitForSelector("cms-edit-bar");
  const input = await page.waitForSelector(
    "cms-rich-toolbar >>> input[type=file]",
  );
  // Put the caret at the end of the body, then insert the picture there.
  await page.click('[data-cms-field="pages:home:body"] p:last-of-type');
  await page.keyboard.press("End");
  await input!.uploadFile(picture);
  // Answer the alt text dialog.
  await page.waitForSelector(
    "cms-rich-toolbar >>> dialog[open] input[type=text]",
  );
  await page.keyboard.type("Mountains above the lake");
  await page.keyboard.press("Enter");
  await page.waitForSelector('[data-cms-field="pages:home:body"] img', {
    timeout: 10_000,
  });
  if (phone) {
    // The body focused near the top of the screen: its toolbar shows.
    await page.evaluate(() =>
      scrollTo(
        0,
        document.querySelector('[data-cms-field="pages:home:body"]')!
          .getBoundingClientRect().top + scrollY - 120,
      )
    );
    await page.click('[data-cms-field="pages:home:body"] p');
  } else await page.click('[data-cms-field="pages:home:title"]');
  await new Promise((r) => setTimeout(r, 300));
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await demo.close();
  await Deno.remove(dataDir, { recursive: true });
}
