/**
 * A test site for the browser client: serves the built bundle, HTML pages
 * rendered from a content store, and the REAL save and media handlers, and
 * records every request so tests can count them server-side.
 */
import { createMediaLibraryHandler } from "../../server/media/library.ts";
import { buildClient } from "../../tools/build_client.ts";
import { createMediaHandler } from "../../server/media/upload.ts";
import { MemoryMediaStorage } from "../../server/media/memory.ts";
import { createSaveHandler } from "../../server/save/handler.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import type { ContentRecord } from "../../server/store/types.ts";
import type { Allowlist } from "../../server/http/auth.ts";
import { contentVersion } from "../../core/version.ts";
import { type Browser, type Engine, engineTest, type Page } from "./browser.ts";
import { serve } from "./serve.ts";

/** A recorded `cms:*` event: its type plus its detail's fields. */
export interface PageEvent {
  type: string;
  field?: string;
  status?: number;
  reason?: string;
  stored?: string;
  editor?: string;
  upload?: boolean;
}

/** Globals the test pages set (for typing code run in the page). */
export interface PageGlobals {
  cms: typeof import("../../client/mod.ts");
  cmsHandle: import("../../client/mod.ts").CmsHandle;
  events: PageEvent[];
  errors: PageEvent[];
  pwned?: unknown;
}

/** One request that reached the save endpoint. */
export interface SaveCall {
  method: string;
  body: Record<string, unknown>;
  status: number;
}

/** A running test site. */
export interface ClientSite {
  url: string;
  store: MemoryContentStore;
  media: MemoryMediaStorage;
  /** Requests answered by the save endpoint, in order. */
  saves: SaveCall[];
  /** Status of every media request, in order. */
  uploads: number[];
  /** Content type and raw body of every media request, in order. */
  mediaBodies: { type: string | null; bytes: Uint8Array }[];
  /** Every request path, in order (static files included). */
  paths: string[];
  /** When false, `authorize` returns null (→ 403 from the real handlers). */
  authorized: boolean;
  /** Delay before the media handler runs, to observe upload progress. */
  uploadDelayMs: number;
  /** Canned answers for the next save requests (the handler is skipped). */
  saveAnswers: (() => Response)[];
  close(): Promise<void>;
}

/** Page renderer: gets the site, returns the `<body>` content. */
export type PageBody = (site: ClientSite) => string | Promise<string>;

/** Options of {@linkcode startClientSite}. */
export interface ClientSiteOptions {
  /** Directory with the built bundle, served under `/dist/`. */
  dist: string;
  /** Pages by path; each gets the config script and the module script. */
  pages: Record<string, PageBody>;
  /** Seed records for the content store. */
  seed?: Record<string, ContentRecord>;
  /** Allowlist; default pages: title, subtitle, body (rich), features. */
  allowlist?: Allowlist;
  /**
   * Page config JSON; default save/media/history endpoints, Settings shown,
   * editor "Ada", exit "/bye".
   */
  config?: Record<string, string | boolean>;
  /** Module script of every page; default imports the client and mounts. */
  script?: string;
  /** Send COOP/COEP headers (cross-origin isolation: 5 µs timers). */
  isolated?: boolean;
  /** A handler for paths under `/cms/` (e.g. the real client handler). */
  client?: (req: Request) => Promise<Response>;
}

/** Builds the client bundle once into a fresh temp dir. */
export async function buildTempBundle(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "cms-client-" });
  await buildClient(dir);
  return dir;
}

/**
 * Registers one `Deno.test` per engine (see {@linkcode engineTest}): each
 * builds the bundle into a temp dir, starts the site on it and the engine's
 * browser, runs `fn`, then stops both and removes the bundle.
 */
export function clientSiteTest(
  name: string,
  options: Omit<ClientSiteOptions, "dist">,
  fn: (
    t: Deno.TestContext,
    site: ClientSite,
    browser: Browser,
  ) => Promise<void>,
  only?: Engine[],
): void {
  engineTest(name, async (t, browser) => {
    const dist = await buildTempBundle();
    const site = startClientSite({ ...options, dist });
    try {
      await fn(t, site, browser);
    } finally {
      await site.close();
      await Deno.remove(dist, { recursive: true });
    }
  }, only);
}

/**
 * Replaces `confirm`, `prompt` and `alert` in the page (the same way in
 * every engine): `confirm` returns `accept`, `prompt` the next of
 * `answers` (null when none is left); each call is recorded as
 * `type:message` for {@linkcode dialogsSeen}. Install again after a
 * navigation.
 */
export function stubDialogs(
  page: Page,
  accept = true,
  answers: string[] = [],
): Promise<void> {
  return page.evaluate(
    (accept, answers) => {
      const w = globalThis as unknown as { cmsDialogs: string[] };
      w.cmsDialogs ??= [];
      const seen = (type: string, message?: string) =>
        w.cmsDialogs.push(`${type}:${message ?? ""}`);
      globalThis.confirm = (m) => (seen("confirm", m), accept);
      globalThis.prompt = (m) => (seen("prompt", m), answers.shift() ?? null);
      globalThis.alert = (m) => seen("alert", m);
    },
    accept,
    answers,
  );
}

/** The dialogs the page asked for since {@linkcode stubDialogs}. */
export function dialogsSeen(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    (globalThis as unknown as { cmsDialogs?: string[] }).cmsDialogs ?? []
  );
}

/** Median of `xs` (the upper one for an even count); for benches. */
export const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Escapes text for HTML. */
export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** A marker element rendered from the store, with its version. */
export async function marker(
  site: ClientSite,
  tag: string,
  id: string,
  rich = false,
): Promise<string> {
  const [collection, key, field] = id.split(":");
  const record = await site.store.get(collection, key);
  const [name, index] = field.split(".");
  const stored = record?.[name];
  const value = Array.isArray(stored) ? stored[Number(index)] : stored;
  const text = typeof value === "string" ? value : "";
  return `<${tag} data-cms-field="${id}"${
    rich ? ' data-cms-type="richtext"' : ""
  } data-cms-version="${contentVersion(value)}">${
    rich ? text : esc(text)
  }</${tag}>`;
}

/** Host CSS that tries hard to break the edit bar. */
const HOSTILE_CSS =
  `button{color:red!important;font-size:40px!important;display:block!important}
span,div{letter-spacing:3px}
cms-edit-bar{opacity:.1}`;

/** Starts the site on 127.0.0.1. Close it in `finally`. */
export function startClientSite(options: ClientSiteOptions): ClientSite {
  const store = new MemoryContentStore(options.seed ?? {});
  const media = new MemoryMediaStorage({ publicUrl: "/media" });
  const authorize = () => site.authorized ? { name: "Ada" } : null;
  const save = createSaveHandler({
    authorize,
    store,
    // srcset under the media base survives the sanitizer.
    mediaBase: media.url(""),
    allowlist: options.allowlist ??
      {
        pages: {
          title: "plain",
          subtitle: "plain",
          body: "rich",
          features: "list",
        },
      },
  });
  const upload = createMediaHandler({
    authorize,
    storage: media,
    uploads: store,
  });
  const library = createMediaLibraryHandler({
    authorize,
    storage: media,
    store,
  });
  const config = options.config ??
    {
      save: "/api/cms/save",
      media: "/api/cms/media",
      history: "/api/cms/history",
      library: "/api/cms/media/library",
      settings: true,
      editor: "Ada",
      exit: "/bye",
    };
  const script = options.script ??
    `import * as cms from "/dist/mod.js"; window.cms = cms; window.cmsHandle = cms.mountCms();`;

  const handler = async (req: Request): Promise<Response> => {
    const { pathname } = new URL(req.url);
    site.paths.push(pathname);
    if (pathname === "/api/cms/save") {
      const body = await req.clone().json().catch(() => ({}));
      const res = site.saveAnswers.shift()?.() ?? await save(req);
      site.saves.push({ method: req.method, body, status: res.status });
      return res;
    }
    if (pathname === "/api/cms/media/library") return await library(req);
    if (pathname === "/api/cms/media") {
      if (site.uploadDelayMs) {
        await new Promise((r) => setTimeout(r, site.uploadDelayMs));
      }
      const bytes = new Uint8Array(await req.clone().arrayBuffer());
      site.mediaBodies.push({ type: req.headers.get("content-type"), bytes });
      const res = await upload(req);
      site.uploads.push(res.status);
      return res;
    }
    if (pathname === "/noop") return new Response(null, { status: 204 });
    if (pathname.startsWith("/media/")) {
      const object = media.get(decodeURIComponent(pathname.slice(7)));
      return object
        ? new Response(object.bytes as BodyInit, {
          headers: { "content-type": object.contentType },
        })
        : new Response("Not found", { status: 404 });
    }
    if (options.client && pathname.startsWith("/cms/")) {
      return await options.client(req);
    }
    if (pathname.startsWith("/dist/")) {
      const name = pathname.slice(6);
      if (!/^[\w.-]+\.js$/.test(name)) {
        return new Response("Not found", { status: 404 });
      }
      try {
        const js = await Deno.readFile(`${options.dist}/${name}`);
        return new Response(js, {
          headers: { "content-type": "text/javascript; charset=utf-8" },
        });
      } catch {
        return new Response("Not found", { status: 404 });
      }
    }
    const page = options.pages[pathname];
    if (!page) {
      return new Response("<!doctype html><title>Other</title><p>other", {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    const body = await page(site);
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Test page</title><link rel="icon" href="data:,"><style>${HOSTILE_CSS}</style>
<script type="application/json" id="cms-config">${
      JSON.stringify(config)
    }</script></head><body>${body}
<script type="module">${script}</script></body></html>`;
    return new Response(html, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  };

  const server = serve(async (req) => {
    const res = await handler(req);
    if (options.isolated) {
      res.headers.set("cross-origin-opener-policy", "same-origin");
      res.headers.set("cross-origin-embedder-policy", "require-corp");
    }
    return res;
  });
  const site: ClientSite = {
    url: server.url,
    store,
    media,
    saves: [],
    uploads: [],
    mediaBodies: [],
    paths: [],
    authorized: true,
    uploadDelayMs: 0,
    saveAnswers: [],
    close: () => server.close(),
  };
  return site;
}

/** A small valid GIF header of the given size (the media handler sniffs it). */
export function gif(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array([
    0x47,
    0x49,
    0x46,
    0x38,
    0x39,
    0x61,
    0,
    0,
    0,
    0,
    0x80,
    0,
    0,
    0xff,
    0xff,
    0xff,
    0,
    0,
    0,
    0x2c,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    0x02,
    0x02,
    0x44,
    0x01,
    0x00,
    0x3b,
  ]);
  new DataView(bytes.buffer).setUint16(6, width, true);
  new DataView(bytes.buffer).setUint16(8, height, true);
  return bytes;
}

/** Waits until the edit bar's status dot shows `state` (5 s at most). */
export async function waitState(page: Page, state: string): Promise<void> {
  await page.waitFor(
    (s: string) =>
      (document.querySelector("cms-edit-bar")?.shadowRoot?.querySelector(
        "[data-state]",
      ) as HTMLElement)?.dataset.state === s,
    { timeout: 5000 },
    state,
  );
}

/**
 * A photo-like JPEG of `width` × `height` (a colour gradient with noise,
 * encoded by sharp), wide enough for the media handler to make variants.
 */
export async function photo(width = 1200, height = 800): Promise<Uint8Array> {
  const sharp = (await import("sharp")).default;
  const raw = new Uint8Array(width * height * 3);
  let seed = 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const i = (y * width + x) * 3, n = (seed >> 16) & 31;
      raw[i] = (x * 255 / width + n) & 255;
      raw[i + 1] = (y * 255 / height + n) & 255;
      raw[i + 2] = (128 + n) & 255;
    }
  }
  const out = await sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 }).toBuffer();
  return new Uint8Array(out);
}
