/**
 * The contract every wiring of `createCms` passes (plain `Deno.serve`,
 * Hono, Fresh's catch-all route): for several option sets, each routed
 * method and path answers (never 404), every part that isn't turned on is
 * 404, the page config names exactly the routed endpoints, and an editor
 * saves, uploads, publishes and reads history through it.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type Cms,
  type CmsOptions,
  createCms,
} from "../../../server/app/mod.ts";
import { MemoryContentStore } from "../../../server/store/mod.ts";
import { LocalMediaStorage } from "../../../server/media/mod.ts";
import { PreviewSigner } from "../../../server/drafts/mod.ts";
import { defineContent } from "../../../core/content.ts";
import { png } from "../../fixtures/images.ts";

/** Turns a service into the site's handler, as a host wires it. */
export type Wire = (cms: Cms) => (req: Request) => Promise<Response>;

/** Every endpoint the service can route, by name, under the base path. */
export const ENDPOINTS: Record<string, string> = {
  save: "save",
  media: "media",
  library: "media/library",
  history: "history",
  drafts: "drafts",
  publish: "publish",
  discard: "discard",
  preview: "preview",
  schedule: "schedule",
  cancelSchedule: "schedule/cancel",
  events: "events",
  checks: "checks/links",
};

/** The test site's content. */
export const content = defineContent({
  pages: { title: "plain", body: "rich" },
});

/** An editor whose request carries `Cookie: sid=ok`. */
export const authorize = (req: Request) =>
  req.headers.get("Cookie") === "sid=ok" ? { name: "Ada" } : null;

/** One option set of the contract and the parts it must route. */
interface Case {
  label: string;
  options: (dir: string) => CmsOptions;
  parts: string[];
}

const CASES: Case[] = [
  {
    label: "defaults (no storage)",
    options: () => ({ authorize, allowlist: content, store: store() }),
    parts: ["save", "history", "client", "checks"],
  },
  {
    label: "history off, no client",
    options: () => ({
      authorize,
      allowlist: content,
      store: store(),
      history: false,
      client: false,
      linkCheck: false,
    }),
    parts: ["save"],
  },
  {
    label: "local storage: media, library, files",
    options: (dir) => ({
      authorize,
      allowlist: content,
      store: store(),
      storage: local(dir),
    }),
    parts: [
      "save",
      "media",
      "library",
      "history",
      "client",
      "files",
      "checks",
    ],
  },
  {
    label: "drafts at /cms, no library",
    options: (dir) => ({
      authorize,
      allowlist: content,
      store: store(),
      storage: local(dir),
      library: false,
      publishMode: "draft",
      basePath: "/cms/",
    }),
    parts: [
      "save",
      "media",
      "history",
      "drafts",
      "publish",
      "discard",
      "client",
      "files",
      "checks",
    ],
  },
  {
    label: "everything",
    options: (dir) => ({
      authorize,
      allowlist: content,
      store: store(),
      storage: local(dir),
      publishMode: "draft",
      schedules: { pollMs: 20 },
      preview: new PreviewSigner("a-long-random-secret-of-32-bytes-or-more"),
      events: { heartbeatMs: 60_000 },
    }),
    parts: Object.keys(ENDPOINTS).concat("client", "files"),
  },
];

function store() {
  return new MemoryContentStore();
}

function local(dir: string) {
  return new LocalMediaStorage({ dir, publicUrl: "/media" });
}

const BASE = "http://127.0.0.1:8000";
const SAME = { "Sec-Fetch-Site": "same-origin", Cookie: "sid=ok" };

/** A request to `path` on the test origin. */
function req(path: string, init: RequestInit = {}): Request {
  return new Request(BASE + path, init);
}

/** Status of a request, its body drained. */
async function status(
  handler: (req: Request) => Promise<Response>,
  request: Request,
): Promise<number> {
  const res = await handler(request);
  await res.body?.cancel();
  return res.status;
}

/**
 * Runs the contract against `wire`: each option set's routes answer,
 * what's off is 404, the page config matches, and the editor's round trip
 * works.
 */
export async function cmsContract(wire: Wire): Promise<void> {
  for (const c of CASES) {
    const dir = await Deno.makeTempDir({ prefix: "cms-app-" });
    const cms = createCms(c.options(dir));
    try {
      await routedExactly(c, cms, wire(cms));
    } finally {
      await cms.close();
      await Deno.remove(dir, { recursive: true });
    }
  }
  await roundTrip(wire);
}

/** The routed set is `c.parts`, each answers, the rest is 404. */
async function routedExactly(
  c: Case,
  cms: Cms,
  handler: (req: Request) => Promise<Response>,
) {
  const names = [...new Set(cms.routes.map((r) => r.name))];
  assert.deepEqual(names.sort(), [...c.parts].sort(), c.label);
  const base = cms.basePath;
  for (const [name, path] of Object.entries(ENDPOINTS)) {
    const route = cms.routes.find((r) => r.name === name);
    const url = `${base}/${path}`;
    if (!route) {
      assert.equal(await status(handler, req(url)), 404, `${c.label}: ${url}`);
      continue;
    }
    assert.equal(route.path, url);
    // Without a session every endpoint refuses (403), whatever the method.
    const method = route.method;
    const got = await status(handler, req(url, { method }));
    assert.equal(got, 403, `${c.label}: ${method} ${url}`);
    // A method it doesn't serve: 405 with Allow, not "not mine".
    const wrong = await handler(req(url, { method: "PUT" }));
    await wrong.body?.cancel();
    assert.equal(wrong.status, 405, `${c.label}: PUT ${url}`);
    assert.ok(wrong.headers.get("Allow")?.includes(method));
  }
  const mount = `${base}/client/mount.js`;
  const client = await status(handler, req(mount));
  assert.equal(client, c.parts.includes("client") ? 200 : 404, c.label);
  assert.equal(cms.mount, c.parts.includes("client") ? mount : null);
  // The page config names exactly what is routed.
  const config = cms.pageConfig({ editor: "Ada", settings: false });
  const keys = [
    "media",
    "history",
    "publish",
    "schedule",
    "library",
    "events",
    "checks",
  ];
  for (const key of keys) {
    assert.equal(
      config[key as keyof typeof config],
      c.parts.includes(key) ? `${base}/${ENDPOINTS[key]}` : undefined,
      `${c.label}: page config ${key}`,
    );
  }
  assert.equal(config.save, `${base}/save`);
  assert.equal(config.editor, "Ada");
  assert.equal(config.settings, false);
  assert.equal(
    config.mediaBase,
    c.parts.includes("media") ? "/media/" : undefined,
  );
  // Outside the base path and the media files: not the service's.
  assert.equal(await status(handler, req("/")), 404);
  assert.equal(await status(handler, req(`${base}/nope`)), 404);
}

/** Save, upload, file, history, publish (now and scheduled) over `wire`. */
async function roundTrip(wire: Wire): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cms-app-" });
  const s = store();
  const cms = createCms({
    ...CASES[4].options(dir),
    store: s,
    basePath: "/api/cms",
  });
  const handler = wire(cms);
  const json = { ...SAME, "Content-Type": "application/json" };
  try {
    const save = await handler(req("/api/cms/save", {
      method: "PATCH",
      headers: json,
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value: "Draft title",
      }),
    }));
    assert.equal(save.status, 204, await save.text());
    assert.equal((await s.get("pages", "home"))?.title, undefined);
    const cross = await handler(req("/api/cms/save", {
      method: "PATCH",
      headers: {
        ...json,
        "Sec-Fetch-Site": "cross-site",
        Origin: "https://evil.example",
      },
      body: "{}",
    }));
    await cross.body?.cancel();
    assert.equal(cross.status, 403);

    const upload = await handler(req("/api/cms/media", {
      method: "POST",
      headers: { ...SAME, "Content-Type": "image/png" },
      body: await png(40, 30),
    }));
    assert.equal(upload.status, 200, await upload.clone().text());
    const { url } = await upload.json() as { url: string };
    const file = await handler(req(url));
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("Content-Type"), "image/png");
    await file.body?.cancel();

    const drafts = await handler(req("/api/cms/drafts", { headers: SAME }));
    assert.equal(drafts.status, 200);
    assert.match(await drafts.text(), /pages:home:title/);
    const publish = await handler(req("/api/cms/publish", {
      method: "POST",
      headers: json,
      body: "{}",
    }));
    assert.equal(publish.status, 200, await publish.clone().text());
    assert.equal((await s.get("pages", "home"))?.title, "Draft title");
    const history = await handler(
      req("/api/cms/history?field=pages:home:title", { headers: SAME }),
    );
    assert.equal(history.status, 200);
    const { revisions } = await history.json() as { revisions: unknown[] };
    assert.ok(revisions.length >= 1);

    // A scheduled publish: the service's own scheduler fires it.
    await handler(req("/api/cms/save", {
      method: "PATCH",
      headers: json,
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value: "Scheduled title",
      }),
    })).then((r) => r.body?.cancel());
    const at = new Date(Date.now() + 50).toISOString();
    const scheduled = await handler(req("/api/cms/publish", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ at }),
    }));
    assert.equal(scheduled.status, 202, await scheduled.clone().text());
    await scheduled.body?.cancel();
    for (let i = 0; i < 100; i++) {
      if ((await s.get("pages", "home"))?.title === "Scheduled title") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal((await s.get("pages", "home"))?.title, "Scheduled title");
  } finally {
    await cms.close();
    await Deno.remove(dir, { recursive: true });
  }
}
