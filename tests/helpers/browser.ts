/** Launches Debian's Chromium for browser tests. Always close it in `finally`. */
import puppeteer, { type Browser } from "puppeteer-core";

/** Path of the system Chromium (`apt-get install -y chromium`). */
export const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

/** Starts a headless Chromium with the flags this sandbox needs. */
export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** Runs `fn` with a fresh browser and closes it afterwards, whatever happens. */
export async function withBrowser<T>(
  fn: (browser: Browser) => Promise<T>,
): Promise<T> {
  const browser = await launchBrowser();
  try {
    return await fn(browser);
  } finally {
    await browser.close();
  }
}
