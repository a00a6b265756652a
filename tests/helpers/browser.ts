/**
 * One small browser driver for the test suites, with three engines behind
 * it: Chromium and Firefox ESR through puppeteer-core (CDP and WebDriver
 * BiDi), WebKitGTK's MiniBrowser through `WebKitWebDriver` (W3C WebDriver
 * over plain `fetch`, on its own Xvfb display). Every call has a timeout.
 *
 * A test file registers one `Deno.test` per available engine with
 * {@linkcode engineTest}; the engine's browser is started once for that
 * test and stopped in `finally`; each case opens its own {@linkcode Page}
 * (a fresh context: own cookies and storage) and closes it.
 *
 * @example Run a behaviour test in every engine
 * ```ts ignore
 * import { engineTest } from "./helpers/browser.ts";
 *
 * engineTest("client: typing marks the field dirty", async (t, browser) => {
 *   await t.step("type", async () => {
 *     const page = await browser.newPage();
 *     try {
 *       await page.goto(site.url + "/");
 *       await page.click("h1");
 *       await page.press("End");
 *       await page.type(" more");
 *       await page.press("z", ["Control"]); // undo
 *       await page.waitFor(() => document.title === "ok", { timeout: 2000 });
 *       const text = await page.evaluate(
 *         (sel) => document.querySelector(sel)!.textContent,
 *         "h1",
 *       );
 *     } finally {
 *       await page.close();
 *     }
 *   });
 * });
 * // → "client: typing marks the field dirty [chromium]", "… [firefox]",
 * //   "… [webkit]". Only some engines: engineTest(name, fn, ["chromium"]).
 * // Only some engines from the shell: CMS_ENGINES=webkit deno test -A …
 * ```
 *
 * Selectors may pierce open shadow roots with `>>>`:
 * `"cms-rich-toolbar >>> input[type=file]"`.
 *
 * @module
 */
import { freePort } from "./serve.ts";
import { installed } from "./skips.ts";
import puppeteer, {
  type Browser as PBrowser,
  type BrowserContext as PContext,
  type KeyInput,
  type Page as PPage,
} from "puppeteer-core";

/** A browser engine the suites run in. */
export type Engine = "chromium" | "firefox" | "webkit";

/** A modifier key held during {@linkcode Page.press}. */
export type Modifier = "Control" | "Shift" | "Alt" | "Meta";

/** Options of {@linkcode Page.waitFor}. */
export interface WaitOptions {
  /** Milliseconds before giving up with an error; default 5000. */
  timeout?: number;
}

/** One tab in a fresh browsing context (own cookies and storage). */
export interface Page {
  /** The engine this page runs in. */
  readonly engine: Engine;
  /** The puppeteer page (Chromium and Firefox only) for engine-only APIs. */
  readonly puppeteer?: PPage;
  /** Navigates and waits for the `load` event. */
  goto(url: string): Promise<void>;
  /** Reloads and waits for the `load` event. */
  reload(): Promise<void>;
  /** The current URL. */
  url(): Promise<string>;
  /**
   * Runs `fn` in the page with JSON-serializable `args`; awaits a returned
   * promise and returns the JSON-serializable result.
   */
  evaluate<A extends unknown[], R>(
    fn: (...args: A) => R | Promise<R>,
    ...args: A
  ): Promise<Awaited<R>>;
  /** A real pointer click in the middle of the element. */
  click(selector: string): Promise<void>;
  /** Types `text` into the focused element, key by key. */
  type(text: string): Promise<void>;
  /** Presses `key` (`"Enter"`, `"Tab"`, `"z"`, …) with `modifiers` held. */
  press(key: string, modifiers?: Modifier[]): Promise<void>;
  /** Waits until `what` (a selector, or a function run in the page) is truthy. */
  waitFor<A extends unknown[]>(
    what: string | ((...args: A) => unknown),
    options?: WaitOptions,
    ...args: A
  ): Promise<void>;
  /** Sets the layout viewport to `width`×`height` CSS pixels. */
  setViewport(width: number, height: number): Promise<void>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Uint8Array>;
  /** Sets the file(s) of an `<input type=file>` as a user would. */
  upload(selector: string, ...paths: string[]): Promise<void>;
  /**
   * Goes offline or back online. Chromium and Firefox cut the network;
   * WebKit (no WebDriver command for it) flips `navigator.onLine`, fires
   * `offline`/`online` and makes the page's `fetch` reject (XHR still
   * goes out).
   */
  setOffline(offline: boolean): Promise<void>;
  /**
   * IME input into the focused element: shows each of `steps` as the
   * composition in turn, then commits `commit`. Chromium uses CDP's
   * `Input.imeSetComposition`; the others get the DOM's composition and
   * input events (Firefox's order: `compositionend` before the last `input`).
   */
  compose(steps: string[], commit: string): Promise<void>;
  /** Closes the page and its context. */
  close(): Promise<void>;
}

/** A running browser of one engine. */
export interface Browser {
  /** Which engine. */
  readonly engine: Engine;
  /** Opens a page in a fresh context. */
  newPage(): Promise<Page>;
  /** Stops the browser (and for WebKit its driver and display). */
  close(): Promise<void>;
}

/** Path of the system Chromium (`apt-get install -y chromium`). */
export const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";
/** Path of Firefox ESR (`apt-get install -y firefox-esr`). */
export const FIREFOX = Deno.env.get("FIREFOX_PATH") ?? "/usr/bin/firefox-esr";
/** WebKitGTK's MiniBrowser (`apt-get install -y webkit2gtk-driver`). */
export const MINIBROWSER = Deno.env.get("MINIBROWSER_PATH") ??
  "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/** Per-command timeout: nothing waits longer than this. */
const COMMAND_MS = 15_000;

/**
 * The engines installed here (`skips.ts` decides, so a missing one is
 * named in the run's report), optionally narrowed by `CMS_ENGINES`
 * (comma-separated, e.g. `CMS_ENGINES=chromium,webkit`).
 */
export function engines(): Engine[] {
  const all: Engine[] = ["chromium", "firefox", "webkit"];
  const found = all.filter((e) => installed(e));
  const wanted = Deno.env.get("CMS_ENGINES")?.split(",").map((s) => s.trim());
  return wanted ? found.filter((e) => wanted.includes(e)) : found;
}

/** Starts a browser of `engine`. Always close it in `finally`. */
export function launch(
  engine: Engine,
  options: LaunchOptions = {},
): Promise<Browser> {
  return engine === "webkit"
    ? launchWebKit(options)
    : launchPuppeteer(engine, options);
}

/** Options of {@linkcode launch}. */
export interface LaunchOptions {
  /**
   * The colour scheme pages see (`prefers-color-scheme`), set at launch:
   * Firefox by its content-override pref, WebKitGTK by a dark GTK theme.
   * Chromium pages use `emulateMediaFeatures` over CDP instead.
   */
  scheme?: "dark";
}

/** Runs `fn` with a fresh browser of `engine`, closed whatever happens. */
export async function withBrowser<T>(
  engine: Engine,
  fn: (browser: Browser) => Promise<T>,
): Promise<T> {
  const browser = await launch(engine);
  try {
    return await fn(browser);
  } finally {
    await browser.close();
  }
}

/**
 * Registers one `Deno.test` per engine (named `name [engine]`); each starts
 * its browser once, runs `fn` and stops the browser in `finally`. `only`
 * narrows the engines; `ignore` ignores them all (a test that also needs
 * PostgreSQL passes `!HAS_POSTGRES`).
 */
export function engineTest(
  name: string,
  fn: (t: Deno.TestContext, browser: Browser) => Promise<void>,
  only?: Engine[],
  ignore = false,
): void {
  for (const engine of engines()) {
    if (only && !only.includes(engine)) continue;
    Deno.test(
      `${name} [${engine}]`,
      { ignore },
      (t) => withBrowser(engine, (b) => fn(t, b)),
    );
  }
}

/** Rejects with a clear message when `promise` takes longer than `ms`. */
export function timeout<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what}: no answer in ${ms} ms`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * In-page: the element for `selector`, where `a >>> b` looks for `b` in
 * the open shadow root of `a`. Serialized into the page, so self-contained.
 */
function deepQuery(selector: string): Element | null {
  let scope: Document | ShadowRoot | null = document;
  let found: Element | null = null;
  for (const part of selector.split(">>>")) {
    found = scope?.querySelector(part.trim()) ?? null;
    scope = found?.shadowRoot ?? null;
  }
  return found;
}

/** In-page: the DOM side of an IME composition (engines without CDP). */
function domCompose(steps: string[], commit: string): void {
  const el = document.activeElement as HTMLElement;
  let active: Element | null = el;
  while (active?.shadowRoot?.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  const target = (active ?? document.body) as HTMLElement;
  const sel = getSelection()!;
  let range = sel.rangeCount ? sel.getRangeAt(0) : document.createRange();
  let node: Text | null = null;
  const show = (text: string) => {
    if (node) node.remove();
    node = document.createTextNode(text);
    range.deleteContents();
    range.insertNode(node);
    range = document.createRange();
    range.setStartAfter(node);
    sel.removeAllRanges();
    sel.addRange(range);
  };
  const fire = (type: string, data: string) =>
    target.dispatchEvent(
      new CompositionEvent(type, { data, bubbles: true, cancelable: true }),
    );
  const input = (data: string, isComposing: boolean) =>
    target.dispatchEvent(
      new InputEvent("input", {
        data,
        isComposing,
        inputType: "insertCompositionText",
        bubbles: true,
      }),
    );
  fire("compositionstart", "");
  for (const step of steps) {
    fire("compositionupdate", step);
    show(step);
    input(step, true);
  }
  fire("compositionupdate", commit);
  show(commit);
  fire("compositionend", commit);
  input(commit, false);
  (node as Text | null)?.parentNode?.normalize();
}

// ---------------------------------------------------------------- puppeteer

async function launchPuppeteer(
  engine: "chromium" | "firefox",
  { scheme }: LaunchOptions,
) {
  const browser: PBrowser = await timeout(
    engine === "chromium"
      ? puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        // puppeteer gives every launch a fresh temp --user-data-dir.
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-dev-shm-usage",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--disable-quic",
        ],
      })
      : puppeteer.launch({
        browser: "firefox",
        executablePath: FIREFOX,
        headless: true,
        extraPrefsFirefox: {
          "app.update.enabled": false,
          "app.update.auto": false,
          "toolkit.telemetry.enabled": false,
          "datareporting.policy.dataSubmissionEnabled": false,
          "network.captive-portal-service.enabled": false,
          "network.connectivity-service.enabled": false,
          "browser.safebrowsing.malware.enabled": false,
          "browser.safebrowsing.phishing.enabled": false,
          "extensions.update.enabled": false,
          // 0: dark, 2: follow the browser (light here).
          ...scheme === "dark"
            ? { "layout.css.prefers-color-scheme.content-override": 0 }
            : {},
        },
      }),
    60_000,
    `launch ${engine}`,
  );
  return {
    engine,
    async newPage(): Promise<Page> {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      page.setDefaultTimeout(COMMAND_MS);
      page.setDefaultNavigationTimeout(COMMAND_MS);
      // A real beforeunload prompt (reload with unsaved changes) would block.
      page.on("dialog", (d) => void d.accept());
      return puppeteerPage(engine, page, context);
    },
    close: () => timeout(browser.close(), 20_000, `close ${engine}`),
  } satisfies Browser;
}

function puppeteerPage(
  engine: Engine,
  page: PPage,
  context: PContext,
): Page {
  const keys = (key: string) => key as KeyInput;
  return {
    engine,
    puppeteer: page,
    async goto(url) {
      await page.goto(url, { waitUntil: "load" });
    },
    async reload() {
      await page.reload({ waitUntil: "load" });
    },
    url: () => Promise.resolve(page.url()),
    evaluate: (fn, ...args) =>
      timeout(
        // deno-lint-ignore no-explicit-any
        page.evaluate(fn as any, ...args) as Promise<any>,
        COMMAND_MS,
        "evaluate",
      ),
    async click(selector) {
      const el = await page.waitForSelector(selector, { timeout: COMMAND_MS });
      if (!el) throw new Error(`no element ${selector}`);
      await el.click();
      await el.dispose();
    },
    type: (text) => page.keyboard.type(text),
    async press(key, modifiers = []) {
      for (const m of modifiers) await page.keyboard.down(keys(m));
      try {
        await page.keyboard.press(keys(key));
      } finally {
        for (const m of [...modifiers].reverse()) {
          await page.keyboard.up(keys(m));
        }
      }
    },
    async waitFor(what, options, ...args) {
      const timeout = options?.timeout ?? 5000;
      if (typeof what === "string") {
        await page.waitForSelector(what, { timeout });
      } else {
        // deno-lint-ignore no-explicit-any
        await page.waitForFunction(what as any, { timeout }, ...args);
      }
    },
    setViewport: (width, height) => page.setViewport({ width, height }),
    async screenshot() {
      return new Uint8Array(await page.screenshot({ type: "png" }));
    },
    async upload(selector, ...paths) {
      const el = await page.waitForSelector(selector, { timeout: COMMAND_MS });
      if (!el) throw new Error(`no element ${selector}`);
      // deno-lint-ignore no-explicit-any
      await (el as any).uploadFile(...paths);
      await el.dispose();
    },
    setOffline: (offline) => page.setOfflineMode(offline),
    async compose(steps, commit) {
      if (engine !== "chromium") {
        await page.evaluate(domCompose, steps, commit);
        return;
      }
      const cdp = await page.createCDPSession();
      try {
        for (const text of steps) {
          await cdp.send("Input.imeSetComposition", {
            text,
            selectionStart: text.length,
            selectionEnd: text.length,
          });
        }
        await cdp.send("Input.insertText", { text: commit });
      } finally {
        await cdp.detach();
      }
    },
    close: () => timeout(context.close(), COMMAND_MS, "close page"),
  };
}

// ------------------------------------------------------------------- WebKit

/** WebDriver key codes for named keys. */
const WD_KEYS: Record<string, string> = {
  Backspace: "\uE003",
  Tab: "\uE004",
  Enter: "\uE007",
  Shift: "\uE008",
  Control: "\uE009",
  Alt: "\uE00A",
  Escape: "\uE00C",
  Space: " ",
  PageUp: "\uE00E",
  PageDown: "\uE00F",
  End: "\uE010",
  Home: "\uE011",
  ArrowLeft: "\uE012",
  ArrowUp: "\uE013",
  ArrowRight: "\uE014",
  ArrowDown: "\uE015",
  Delete: "\uE017",
  F10: "\uE03A",
  Meta: "\uE03D",
};

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/** Starts Xvfb on a display it picks itself (`-displayfd`). */
async function startXvfb(): Promise<
  { display: string; stop(): Promise<void> }
> {
  const child = new Deno.Command("Xvfb", {
    args: [
      "-displayfd",
      "1",
      "-screen",
      "0",
      "1280x1024x24",
      "-nolisten",
      "tcp",
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
  };
  try {
    const reader = child.stdout.getReader();
    let out = "";
    const read = async () => {
      while (!out.includes("\n")) {
        const { done, value } = await reader.read();
        if (done) throw new Error("Xvfb exited");
        out += new TextDecoder().decode(value);
      }
    };
    await timeout(read(), 10_000, "Xvfb");
    reader.releaseLock();
    void child.stdout.cancel().catch(() => {});
    return { display: `:${out.trim()}`, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function launchWebKit({ scheme }: LaunchOptions): Promise<Browser> {
  const xvfb = await startXvfb();
  const port = freePort();
  const driver = new Deno.Command("WebKitWebDriver", {
    args: [`--port=${port}`, "--host=127.0.0.1"],
    // MiniBrowser inherits it: WebKitGTK follows a dark GTK theme.
    env: {
      DISPLAY: xvfb.display,
      ...scheme === "dark" ? { GTK_THEME: "Adwaita:dark" } : {},
    },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  let sessionId = "";
  const stop = async () => {
    if (sessionId) {
      await fetch(`${base}/session/${sessionId}`, {
        method: "DELETE",
        signal: AbortSignal.timeout(5000),
      }).then((r) => r.body?.cancel(), () => {});
    }
    try {
      driver.kill("SIGTERM");
    } catch { /* already gone */ }
    await driver.status;
    await xvfb.stop();
  };
  try {
    // The driver is up once /status answers (bounded).
    for (let i = 0;; i++) {
      const ok = await fetch(`${base}/status`, {
        signal: AbortSignal.timeout(1000),
      }).then((r) => r.body?.cancel().then(() => r.ok), () => false);
      if (ok) break;
      if (i >= 100) throw new Error("WebKitWebDriver did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
    const created = await wd(base, "POST", "/session", {
      capabilities: {
        alwaysMatch: {
          browserName: "MiniBrowser",
          unhandledPromptBehavior: "accept",
          "webkitgtk:browserOptions": {
            binary: MINIBROWSER,
            args: ["--automation"],
          },
        },
      },
    }) as { sessionId: string };
    sessionId = created.sessionId;
  } catch (e) {
    await stop();
    throw e;
  }
  const session = new WebDriverSession(base, `/session/${sessionId}`);
  await session.init();
  return {
    engine: "webkit",
    newPage: () => session.newPage(),
    close: () => timeout(stop(), 20_000, "close webkit"),
  };
}

/** One W3C WebDriver command; throws the driver's error message. */
async function wd(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  ms = COMMAND_MS,
): Promise<unknown> {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(ms),
  });
  const json = await res.json();
  if (!res.ok) {
    throw new Error(
      `webkit ${method} ${path}: ${json.value?.error}: ${json.value?.message}`,
    );
  }
  return json.value;
}

/**
 * One WebDriver session: one window per {@linkcode Page}, switched to
 * before each command. WebKit has no per-window storage, so a page clears
 * its origin's storage and the cookies when it opens and closes.
 */
class WebDriverSession {
  #current = "";
  #first = "";
  /** Whether commands go to the current window's frame (its only iframe). */
  #framed = false;
  constructor(readonly base: string, readonly path: string) {}

  cmd(method: string, path: string, body?: unknown, ms?: number) {
    return wd(this.base, method, this.path + path, body, ms);
  }

  async init() {
    this.#first = this.#current = await this.cmd("GET", "/window") as string;
  }

  /**
   * Makes window `handle` current; with `frame`, its one `<iframe>` (a
   * viewport narrower than the window, see `setViewport`) gets the commands.
   */
  async use(handle: string, frame = false) {
    if (this.#current !== handle) {
      // Switching windows resets the context to the window's top level.
      await this.cmd("POST", "/window", { handle });
      this.#current = handle;
      this.#framed = false;
    }
    if (frame === this.#framed) return;
    if (frame) {
      const iframe = await this.cmd("POST", "/element", {
        using: "css selector",
        value: "iframe",
      });
      await this.cmd("POST", "/frame", { id: iframe });
    } else await this.cmd("POST", "/frame", { id: null });
    this.#framed = frame;
  }

  async newPage(): Promise<Page> {
    let handle = this.#first;
    if (handle) this.#first = "";
    else {
      const made = await this.cmd("POST", "/window/new", { type: "tab" }) as {
        handle: string;
      };
      handle = made.handle;
    }
    await this.use(handle);
    await this.cmd("DELETE", "/cookie");
    return webKitPage(this, handle);
  }

  async closeWindow(handle: string) {
    await this.use(handle);
    const all = await this.cmd("GET", "/window/handles") as string[];
    if (all.length > 1) {
      const left = await this.cmd("DELETE", "/window") as string[];
      // New windows open from the current one: make a live one current.
      await this.cmd("POST", "/window", { handle: left[0] });
      this.#current = left[0];
    } else {
      // A session without windows ends: keep the last one for the next page.
      await this.cmd("POST", "/url", { url: "about:blank" });
      this.#first = handle;
    }
  }
}

/**
 * MiniBrowser's window is never narrower than this: a narrower viewport is
 * an `<iframe>` of that size, and the page's commands run inside it.
 */
const WEBKIT_MIN_WIDTH = 447;

function webKitPage(s: WebDriverSession, handle: string): Page {
  /** A viewport narrower than the window: the size of its frame. */
  let frame: { width: number; height: number } | null = null;
  const use = () => s.use(handle, frame !== null);
  const run = async <R>(
    fn: (...args: never[]) => unknown,
    args: unknown[],
  ): Promise<R> => {
    await use();
    const script = `const done = arguments[arguments.length - 1];
const deepQuery = ${deepQuery.toString()};
Promise.resolve().then(() => (${fn.toString()})(...arguments[0]))
  .then((v) => done(JSON.stringify({ v })),
    (e) => done(JSON.stringify({ e: String(e) + (e && e.stack ? "\\n" + e.stack : "") })));`;
    const out = JSON.parse(
      await s.cmd("POST", "/execute/async", { script, args: [args] }) as string,
    );
    if ("e" in out) throw new Error(`evaluate: ${out.e}`);
    return out.v as R;
  };
  // WebKitWebDriver may answer a navigation before the new document has
  // run its module scripts: the old document is marked, and the wait
  // (bounded) ends once a complete document without the mark is there.
  const navigate = async (go: () => Promise<unknown>) => {
    await run(() => {
      (globalThis as { cmsOldDocument?: boolean }).cmsOldDocument = true;
    }, []);
    await go();
    for (let i = 0; i < 200; i++) {
      const fresh = await run<boolean>(
        () =>
          document.readyState === "complete" &&
          !(globalThis as { cmsOldDocument?: boolean }).cmsOldDocument,
        [],
      );
      if (fresh) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error("the page did not finish loading within 5 s");
  };
  const element = async (selector: string): Promise<string> => {
    await use();
    const parts = selector.split(">>>").map((p) => p.trim());
    let scope = "";
    let id = "";
    for (const part of parts) {
      const found = await s.cmd(
        "POST",
        scope ? `/shadow/${scope}/element` : "/element",
        { using: "css selector", value: part },
      ) as Record<string, string>;
      id = found[ELEMENT];
      if (part !== parts.at(-1)) {
        const root = await s.cmd("GET", `/element/${id}/shadow`) as Record<
          string,
          string
        >;
        scope = Object.values(root)[0];
      }
    }
    return id;
  };
  const keys = (values: { type: string; value: string }[]) =>
    s.cmd("POST", "/actions", {
      actions: [{ type: "key", id: "keyboard", actions: values }],
    });
  const waitFor = async (
    what: string | ((...args: never[]) => unknown),
    options: WaitOptions | undefined,
    args: unknown[],
  ) => {
    const ms = options?.timeout ?? 5000;
    const deadline = Date.now() + ms;
    const check = typeof what === "string"
      ? (sel: string) => deepQuery(sel) !== null
      : what;
    const checkArgs = typeof what === "string" ? [what] : args;
    while (true) {
      // Fails while a navigation is under way: then try again.
      const ok = await run<unknown>(
        check as (...a: never[]) => unknown,
        checkArgs,
      ).catch(() => false);
      if (ok) return;
      if (Date.now() > deadline) {
        throw new Error(`waitFor: not true after ${ms} ms: ${what}`);
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  };
  // A same-origin holder page (any path of the site) with one borderless
  // iframe of the viewport's size: the page is first-party in it, and its
  // media queries see the frame's width.
  const gotoFramed = async (
    url: string,
    size: { width: number; height: number },
  ) => {
    frame = null;
    await use();
    await navigate(() =>
      s.cmd("POST", "/url", { url: new URL("/cms-test-frame", url).href })
    );
    await run(
      (src: string, width: number, height: number) =>
        new Promise<void>((resolve) => {
          const iframe = document.createElement("iframe");
          iframe.style.cssText =
            `display:block;border:0;width:${width}px;height:${height}px`;
          iframe.onload = () => resolve();
          iframe.src = src;
          document.body.style.margin = "0";
          document.body.replaceChildren(iframe);
        }),
      [url, size.width, size.height],
    );
    frame = size;
    for (let i = 0; i < 200; i++) {
      if (await run<boolean>(() => document.readyState === "complete", [])) {
        return;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error("the framed page did not finish loading within 5 s");
  };
  const clearStorage = () =>
    run(() => {
      try {
        localStorage.clear();
        sessionStorage.clear();
      } catch { /* about:blank has no storage */ }
    }, []);
  return {
    engine: "webkit",
    async goto(url) {
      if (frame) return await gotoFramed(url, frame);
      await use();
      await navigate(() => s.cmd("POST", "/url", { url }));
    },
    async reload() {
      if (frame) return await gotoFramed(await this.url(), frame);
      await use();
      await navigate(() => s.cmd("POST", "/refresh", {}));
    },
    async url() {
      if (frame) return await run<string>(() => location.href, []);
      await use();
      return await s.cmd("GET", "/url") as string;
    },
    evaluate: (fn, ...args) => run(fn as (...a: never[]) => unknown, args),
    async click(selector) {
      const id = await element(selector);
      await s.cmd("POST", `/element/${id}/click`, {});
    },
    async type(text) {
      await use();
      await keys(
        [...text].flatMap((c) => {
          const v = c === "\n" ? WD_KEYS.Enter : c;
          return [{ type: "keyDown", value: v }, { type: "keyUp", value: v }];
        }),
      );
    },
    async press(key, modifiers = []) {
      await use();
      const v = WD_KEYS[key] ?? key;
      const mods = modifiers.map((m) => WD_KEYS[m]);
      await keys([
        ...mods.map((m) => ({ type: "keyDown", value: m })),
        { type: "keyDown", value: v },
        { type: "keyUp", value: v },
        ...mods.reverse().map((m) => ({ type: "keyUp", value: m })),
      ]);
    },
    waitFor: (what, options, ...args) =>
      waitFor(what as string | ((...a: never[]) => unknown), options, args),
    async setViewport(width, height) {
      if (width < WEBKIT_MIN_WIDTH) {
        // The window keeps a viewport at least as large; the next `goto`
        // loads the page into a frame of this size.
        frame = null;
        await this.setViewport(
          WEBKIT_MIN_WIDTH,
          Math.max(height, await run<number>(() => innerHeight, [])),
        );
        frame = { width, height };
        return;
      }
      frame = null;
      await use();
      // Size the window so that the viewport (window minus chrome) fits.
      for (let i = 0; i < 3; i++) {
        const [w, h] = await run<number[]>(
          () => [innerWidth, innerHeight],
          [],
        );
        if (w === width && h === height) return;
        const rect = await s.cmd("GET", "/window/rect") as {
          width: number;
          height: number;
        };
        await s.cmd("POST", "/window/rect", {
          width: rect.width + width - w,
          height: rect.height + height - h,
        });
      }
      const [w, h] = await run<number[]>(() => [innerWidth, innerHeight], []);
      if (w !== width || h !== height) {
        throw new Error(
          `webkit: viewport ${width}×${height} not reachable (got ${w}×${h})`,
        );
      }
    },
    async screenshot() {
      await use();
      const b64 = await s.cmd("GET", "/screenshot") as string;
      return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    },
    async upload(selector, ...paths) {
      const id = await element(selector);
      await s.cmd("POST", `/element/${id}/value`, { text: paths.join("\n") });
    },
    async setOffline(offline) {
      await run((offline: boolean) => {
        const w = globalThis as unknown as { cmsFetch?: typeof fetch };
        w.cmsFetch ??= globalThis.fetch;
        const real = w.cmsFetch;
        globalThis.fetch = offline
          ? () => Promise.reject(new TypeError("Load failed"))
          : real;
        Object.defineProperty(navigator, "onLine", {
          configurable: true,
          get: () => !offline,
        });
        dispatchEvent(new Event(offline ? "offline" : "online"));
      }, [offline]);
    },
    async compose(steps, commit) {
      await run(domCompose as (...a: never[]) => unknown, [steps, commit]);
    },
    async close() {
      await clearStorage().catch(() => {});
      await s.cmd("DELETE", "/cookie").catch(() => {});
      await s.closeWindow(handle);
    },
  };
}
