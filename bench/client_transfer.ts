/**
 * Bench: the client's bytes on the wire, as a browser loads them. The real
 * `createClientHandler` (the files in `server/bundle/_generated.ts`: run
 * `deno task build` first) serves the client behind `Deno.serve`; Chromium
 * opens a page with a plain and a rich region, mounts, focuses the rich
 * region (its toolbar shown), then opens the panels it can open without
 * fixtures: the link panel (Ctrl+K), the shortcuts panel (Ctrl+/) and the
 * history panel (the edit bar's History). Resource Timing gives each
 * client file's `encodedBodySize` (the body as sent, compressed) and
 * `transferSize` (with the response headers).
 *
 * Twice: as Chromium asks (`Accept-Encoding: gzip, deflate, br, zstd`: the
 * handler sends Brotli), and with the handler offered only `gzip` (the
 * issue's goals are gzip: entry ≤ 2 KiB, editing a rich page ≤ 20 KiB, each
 * panel ≤ 4 KiB). Every file fetched once from the handler in each coding
 * gives the totals: all files (goal ≤ 30 KiB gzip), and, for context, every
 * file but the opt-in features' chunks (`OPT_IN` in `client_size.ts`).
 *
 * Run: `deno run -A bench/client_transfer.ts`
 *
 * @module
 */
import { CLIENT_FILES, createClientHandler } from "../server/bundle/mod.ts";
import { launch, type Page } from "../tests/helpers/browser.ts";
import {
  marker,
  type PageGlobals,
  startClientSite,
} from "../tests/helpers/client_page.ts";
import { goal, GOALS, isOptIn, kib } from "./client_size.ts";

/** One client file as the browser loaded it. */
export interface Loaded {
  name: string;
  /** Body bytes on the wire (compressed). */
  encoded: number;
  /** Bytes on the wire with the response headers. */
  transfer: number;
  /** Bytes once decoded. */
  decoded: number;
}

/** What one page session loaded, in one coding. */
export interface Session {
  /** The coding the handler was allowed to send (`br` or `gzip`). */
  coding: string;
  /** `mod.js` on the wire (its body). */
  entry: number;
  /** Every client file loaded once the rich region's toolbar shows. */
  editing: number;
  /** Bytes each panel's opening added, by panel. */
  panels: { name: string; encoded: number; files: string[] }[];
  /** Every client file loaded in the session, panels included. */
  session: number;
  /** The same with response headers (`transferSize`). */
  sessionTransfer: number;
  files: Loaded[];
}

/** Bytes of every served file in one coding, as the handler sends them. */
export interface Served {
  coding: string;
  /** Every file but the opt-in features' chunks (and `mount.js`). */
  editor: number;
  /** Every file. */
  all: number;
}

/** Result of {@linkcode run}. */
export interface TransferResult {
  sessions: Session[];
  served: Served[];
}

const SCRIPT = `import { mountCms } from "/cms/mod.js";
const real = fetch.bind(globalThis);
const json = (body) => Promise.resolve(new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } }));
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input), location.href);
  if (url.pathname === "/api/cms/history") {
    if (url.searchParams.get("revision")) return json({ value: "Hello" });
    return json({ revisions: [{ id: "r1", at: "2025-05-01T09:30:00Z", editor: "Ada", bytes: 5 }] });
  }
  return real(input, init);
};
window.cmsHandle = mountCms();`;

const RICH = "div[data-cms-field]";
const TOOLBAR = "cms-rich-toolbar";

/** The client files the page has loaded so far. */
const loaded = (page: Page): Promise<Loaded[]> =>
  page.evaluate(() =>
    performance.getEntriesByType("resource")
      .map((e) => e as PerformanceResourceTiming)
      .filter((e) => new URL(e.name).pathname.startsWith("/cms/"))
      .map((e) => ({
        name: new URL(e.name).pathname.slice(5),
        encoded: e.encodedBodySize,
        transfer: e.transferSize,
        decoded: e.decodedBodySize,
      }))
  );

const inShadow = (page: Page, host: string, selector: string) =>
  page.waitFor(
    (host: string, selector: string) =>
      document.querySelector(host)?.shadowRoot?.querySelector(selector),
    { timeout: 10_000 },
    host,
    selector,
  );

/** The panels opened in turn: how to open each (waiting until shown). */
const PANELS: [string, (page: Page) => Promise<void>][] = [
  ["link", async (page) => {
    await page.evaluate((sel: string) => {
      const text = document.querySelector(`${sel} p`)!.firstChild!;
      getSelection()!.setBaseAndExtent(text, 0, text, 4);
    }, RICH);
    await page.press("k", ["Control"]);
    await inShadow(page, TOOLBAR, "form input[name=linkUrl]");
    await page.press("Escape");
  }],
  ["shortcuts", async (page) => {
    await page.click(`${RICH} p`);
    await page.press("/", ["Control"]);
    await inShadow(page, TOOLBAR, "#cms-keys");
    await page.press("Escape");
  }],
  ["history", async (page) => {
    await page.click("h1[data-cms-field]");
    await page.evaluate(() => {
      const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
      [...root.querySelectorAll("button")]
        .find((b) => b.textContent!.startsWith("History"))!.click();
    });
    await inShadow(page, "cms-history", "dialog[open] li");
  }],
];

const sum = (files: Loaded[], key: "encoded" | "transfer" = "encoded") =>
  files.reduce((s, f) => s + f[key], 0);

/** One fresh page: mount, focus the rich region, open the panels. */
async function session(page: Page, url: string, coding: string) {
  await page.goto(url);
  await page.evaluate(() =>
    (globalThis as unknown as PageGlobals).cmsHandle.ready
  );
  await page.click(`${RICH} p`);
  await page.waitFor(TOOLBAR, { timeout: 10_000 });
  await inShadow(page, TOOLBAR, "button");
  const editing = await loaded(page);
  const panels = [];
  let before = editing;
  for (const [name, open] of PANELS) {
    await open(page);
    const now = await loaded(page);
    const added = now.filter((f) => !before.some((b) => b.name === f.name));
    panels.push({ name, encoded: sum(added), files: added.map((f) => f.name) });
    before = now;
  }
  return {
    coding,
    entry: editing.find((f) => f.name === "mod.js")?.encoded ?? NaN,
    editing: sum(editing),
    panels,
    session: sum(before),
    sessionTransfer: sum(before, "transfer"),
    files: before,
  };
}

/** Serves the client, loads it in Chromium in each coding, and measures. */
export async function run(): Promise<TransferResult> {
  const handler = createClientHandler();
  let accept = "";
  const dist = await Deno.makeTempDir({ prefix: "cms-transfer-" });
  const site = startClientSite({
    dist,
    script: SCRIPT,
    seed: { "pages:home": { title: "Hello", body: "<p>Body text</p>" } },
    pages: {
      "/": async (site) =>
        `<main>${await marker(site, "h1", "pages:home:title")}
${await marker(site, "div", "pages:home:body", true)}</main>`,
    },
    // The handler sees only the coding this run allows.
    client: (req) => {
      const headers = new Headers(req.headers);
      headers.set("Accept-Encoding", accept);
      return handler(new Request(req, { headers }));
    },
  });
  const browser = await launch("chromium");
  try {
    const sessions: Session[] = [];
    for (const coding of ["br", "gzip"]) {
      accept = coding;
      const page = await browser.newPage();
      try {
        sessions.push(await session(page, site.url + "/", coding));
      } finally {
        await page.close();
      }
    }
    const served: Served[] = [];
    for (const coding of ["br", "gzip"]) {
      let editor = 0, all = 0;
      for (const name of Object.keys(CLIENT_FILES)) {
        const res = await handler(
          new Request(`http://localhost/cms/${name}`, {
            headers: { "Accept-Encoding": coding },
          }),
        );
        const bytes = (await res.arrayBuffer()).byteLength;
        all += bytes;
        if (!isOptIn(name)) editor += bytes;
      }
      served.push({ coding, editor, all });
    }
    return { sessions, served };
  } finally {
    await browser.close();
    await site.close();
    await Deno.remove(dist, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  for (const s of r.sessions) {
    console.log(`\nAs the browser loads them, ${s.coding}:`);
    console.table(s.files.map((f) => ({
      file: f.name,
      "on the wire": kib(f.encoded),
      "with headers": kib(f.transfer),
      decoded: kib(f.decoded),
    })));
    const gz = s.coding === "gzip";
    console.table([
      {
        what: "entry (mod.js)",
        wire: kib(s.entry),
        goal: gz ? goal(s.entry, GOALS.entry) : "",
      },
      {
        what: "everything loaded to edit a page with a rich region",
        wire: kib(s.editing),
        goal: gz ? goal(s.editing, GOALS.editing) : "",
      },
      ...s.panels.map((p) => ({
        what: `opening the ${p.name} panel added (${p.files.join(" ")})`,
        wire: kib(p.encoded),
        goal: gz ? goal(p.encoded, GOALS.panel) : "",
      })),
      {
        what: `the session, panels included (with headers ${
          kib(s.sessionTransfer)
        })`,
        wire: kib(s.session),
        goal: "",
      },
    ]);
  }
  console.log("\nEvery file as the handler sends it:");
  console.table(r.served.flatMap((s) => [
    {
      what: `all files, ${s.coding}`,
      bytes: kib(s.all),
      goal: s.coding === "gzip" ? goal(s.all, GOALS.all) : "",
    },
    {
      what: `all files but the opt-in features', ${s.coding}`,
      bytes: kib(s.editor),
      goal: "",
    },
  ]));
}
