/**
 * `createClientHandler`: the browser client served from the package (GET,
 * HEAD, types, caching, 304, 404 and traversal), the served files equal a
 * fresh build of `client/` (so they can't go stale), and in Chromium the
 * editor mounts under `Content-Security-Policy: script-src 'self'`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createClientHandler } from "../../../server/bundle/handler.ts";
import { cmsClientRoute } from "../../../fresh/routes.ts";
import { CLIENT_FILES } from "../../../server/bundle/_generated.ts";
import { buildClient } from "../../../tools/build_client.ts";
import { engines, withBrowser } from "../../helpers/browser.ts";
import { serve } from "../../helpers/serve.ts";
import { brotliDecompressSync } from "node:zlib";

const client = createClientHandler();
const get = (path: string, init?: RequestInit) =>
  client(new Request(`http://localhost${path}`, init));
const hashed = Object.keys(CLIENT_FILES).filter((n) => n !== "mod.js");

Deno.test("client handler: entry and chunks with JavaScript types and the right caching", async () => {
  assert.equal(client.entry, "/cms/mod.js");
  assert.equal(client.mount, "/cms/mount.js");
  assert.ok(hashed.length > 3, "the build has lazy chunks");
  const entry = await get(client.entry);
  assert.equal(entry.status, 200);
  assert.equal(
    entry.headers.get("Content-Type"),
    "text/javascript; charset=utf-8",
  );
  assert.equal(entry.headers.get("X-Content-Type-Options"), "nosniff");
  assert.equal(entry.headers.get("Cache-Control"), "no-cache");
  const etag = entry.headers.get("ETag")!;
  assert.match(etag, /^"[0-9a-f]{24}"$/);
  assert.equal(await entry.text(), CLIENT_FILES["mod.js"]);

  for (const name of hashed) {
    assert.match(name, /-[A-Z0-9]{8}\.js$/, `${name} is not content-hashed`);
    const res = await get(`/cms/${name}`);
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("Content-Type"),
      "text/javascript; charset=utf-8",
    );
    assert.equal(
      res.headers.get("Cache-Control"),
      "public, max-age=31536000, immutable",
    );
    assert.equal(await res.text(), CLIENT_FILES[name]);
  }
  // Every chunk the files import (statically or lazily) is served.
  for (const code of Object.values(CLIENT_FILES)) {
    for (const [, ref] of code.matchAll(/["']\.\/([\w.-]+\.js)["']/g)) {
      assert.ok(ref in CLIENT_FILES, `${ref} is imported but not served`);
    }
  }
  const mount = await get(client.mount);
  assert.equal(mount.status, 200);
  assert.equal(
    await mount.text(),
    'import{mountCms}from"./mod.js";mountCms();',
  );
});

Deno.test("client handler: ETag revalidation gives 304; HEAD has headers only; other methods 405", async () => {
  const etag = (await get(client.entry)).headers.get("ETag")!;
  for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
    const res = await get(client.entry, { headers: { "If-None-Match": inm } });
    assert.equal(res.status, 304, inm);
    assert.equal(res.headers.get("ETag"), etag);
    assert.equal(await res.text(), "");
  }
  const changed = await get(client.entry, {
    headers: { "If-None-Match": '"0000"' },
  });
  assert.equal(changed.status, 200);
  await changed.body?.cancel();

  const head = await get(client.entry, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(
    head.headers.get("Content-Length"),
    String(new TextEncoder().encode(CLIENT_FILES["mod.js"]).byteLength),
  );
  assert.equal(await head.text(), "");

  const post = await get(client.entry, { method: "POST", body: "x" });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("Allow"), "GET, HEAD");
  await post.body?.cancel();
});

/** The body of `res` decoded by its `Content-Encoding`. */
async function decoded(res: Response): Promise<string> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  switch (res.headers.get("Content-Encoding")) {
    case null:
      return new TextDecoder().decode(bytes);
    case "gzip":
      return await new Response(
        new Blob([bytes]).stream()
          .pipeThrough(new DecompressionStream("gzip")),
      ).text();
    case "br":
      return new TextDecoder().decode(brotliDecompressSync(bytes));
    default:
      throw new Error(`unexpected ${res.headers.get("Content-Encoding")}`);
  }
}

Deno.test("client handler: every file in Brotli, gzip or as it is decodes to the exact file", async () => {
  for (const [name, code] of Object.entries(CLIENT_FILES)) {
    const sizes = new Map<string | null, number>();
    for (const ae of ["br", "gzip", "identity"]) {
      const res = await get(`/cms/${name}`, {
        headers: { "Accept-Encoding": ae },
      });
      assert.equal(res.status, 200);
      const coding = res.headers.get("Content-Encoding");
      // The coding asked for, or the file as it is when that would not pay.
      assert.ok(coding === ae || coding === null, `${name} ${ae} ${coding}`);
      assert.equal(res.headers.get("Vary"), "Accept-Encoding");
      const length = Number(res.headers.get("Content-Length"));
      assert.equal(await decoded(res.clone()), code, `${name} ${ae}`);
      assert.equal((await res.arrayBuffer()).byteLength, length);
      sizes.set(coding, length);
    }
    const raw = sizes.get(null)!;
    assert.equal(raw, new TextEncoder().encode(code).byteLength);
    // A coding is only sent when it is smaller than the one it replaces.
    assert.ok((sizes.get("gzip") ?? raw) <= raw, name);
    // (No Brotli body when it does not beat gzip: a `br` request then gets
    // the file as it is, which is no Brotli size.)
    assert.ok(
      (sizes.get("br") ?? sizes.get("gzip") ?? raw) <=
        (sizes.get("gzip") ?? raw),
      name,
    );
    if (raw > 1024) {
      assert.ok(sizes.has("br") && sizes.has("gzip"), `${name} ${raw} B`);
    }
  }
  // mount.js is too small to gain: served as it is, whatever is accepted.
  const mount = await get(client.mount, {
    headers: { "Accept-Encoding": "br, gzip" },
  });
  assert.equal(mount.headers.get("Content-Encoding"), null);
  assert.equal(mount.headers.get("Vary"), "Accept-Encoding");
  assert.equal(
    await mount.text(),
    'import{mountCms}from"./mod.js";mountCms();',
  );
});

Deno.test("client handler: Accept-Encoding negotiation (q values, identity, *)", async () => {
  const cases: [string | null, string | null][] = [
    [null, null],
    ["", null],
    ["gzip", "gzip"],
    ["GZip", "gzip"],
    ["gzip, deflate, br, zstd", "br"],
    ["br;q=0, gzip", "gzip"],
    ["br; q=0.5, gzip;q=0.8", "gzip"],
    ["br;q=0.8, gzip;q=0.8", "br"],
    ["gzip;q=0.2, identity", null],
    ["*", "br"],
    ["*;q=0.5, br;q=0", "gzip"],
    ["*;q=0, identity", null],
    ["*;q=0", null],
    ["identity", null],
    ["deflate", null],
    ["gzip;q=0, br;q=0", null],
    // Nothing acceptable: the file as it is rather than a 406.
    ["identity;q=0, gzip;q=0, br;q=0", null],
    ["identity;q=0, gzip", "gzip"],
    ["gzip;q=bad, br;q=0", null],
  ];
  for (const [ae, coding] of cases) {
    const res = await get(client.entry, {
      headers: ae === null ? {} : { "Accept-Encoding": ae },
    });
    assert.equal(res.headers.get("Content-Encoding"), coding, String(ae));
    assert.equal(await decoded(res), CLIENT_FILES["mod.js"], String(ae));
  }
});

Deno.test("client handler: one ETag per coding; 304 and HEAD per coding", async () => {
  const etags = new Map<string, string>();
  for (const ae of ["br", "gzip", "identity"]) {
    const headers = { "Accept-Encoding": ae };
    const res = await get(client.entry, { headers });
    const etag = res.headers.get("ETag")!;
    await res.body?.cancel();
    etags.set(ae, etag);
    const same = await get(client.entry, {
      headers: { ...headers, "If-None-Match": etag },
    });
    assert.equal(same.status, 304, ae);
    assert.equal(same.headers.get("ETag"), etag);
    assert.equal(same.headers.get("Vary"), "Accept-Encoding");
    assert.equal(await same.text(), "");
    const head = await get(client.entry, { method: "HEAD", headers });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("ETag"), etag);
    assert.equal(
      head.headers.get("Content-Encoding"),
      ae === "identity" ? null : ae,
    );
    const full = await get(client.entry, { headers });
    assert.equal(
      head.headers.get("Content-Length"),
      String((await full.arrayBuffer()).byteLength),
    );
    assert.equal(await head.text(), "");
  }
  assert.equal(new Set(etags.values()).size, 3, [...etags.values()].join());
  // Another coding's ETag does not validate this one's bytes.
  const other = await get(client.entry, {
    headers: { "Accept-Encoding": "gzip", "If-None-Match": etags.get("br")! },
  });
  assert.equal(other.status, 200);
  assert.equal(other.headers.get("ETag"), etags.get("gzip"));
  await other.body?.cancel();
});

Deno.test("client handler: 404 for anything else under base, traversal included", async () => {
  const paths = [
    "/cms/",
    "/cms",
    "/cms/nope.js",
    "/cms/mod.ts",
    "/cms/MOD.JS",
    "/cms/sub/mod.js",
    "/cms/..%2fdeno.json",
    "/cms/%2e%2e/server/client.ts",
    "/cms/..%5Cmod.ts",
    "/cms/mod.js%00",
    "/cms/mod.js/",
    "/cms/constructor",
    "/cms/__proto__.js",
    "/cms/toString.js",
    "/cmsx/mod.js",
    "/mod.js",
  ];
  for (const path of paths) {
    const res = await get(path);
    assert.equal(res.status, 404, path);
    assert.equal(res.headers.get("Content-Type"), "text/plain; charset=utf-8");
    await res.body?.cancel();
  }
  // `..` in the URL is resolved before the handler sees it: outside base.
  const dotted = await client(new Request("http://localhost/cms/../deno.json"));
  assert.equal(dotted.status, 404);
  await dotted.body?.cancel();
});

Deno.test("client handler: another base; a malformed base is refused", async () => {
  const other = createClientHandler({ base: "/assets/cms/" });
  assert.equal(other.entry, "/assets/cms/mod.js");
  const res = await other(new Request("http://localhost/assets/cms/mod.js"));
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const old = await other(new Request("http://localhost/cms/mod.js"));
  assert.equal(old.status, 404);
  await old.body?.cancel();
  for (const base of ["cms/", "/cms", "/c ms/", "/../", "/a/./b/", ""]) {
    assert.throws(() => createClientHandler({ base }), TypeError, base);
  }
});

Deno.test("client handler: the served files are a fresh build of client/ (run `deno task build` when this fails)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-client-fresh-" });
  try {
    await buildClient(dir);
    const built: Record<string, string> = {};
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.endsWith(".js")) {
        built[e.name] = await Deno.readTextFile(`${dir}/${e.name}`);
      }
    }
    const stale =
      "server/bundle/_generated.ts is stale: run `deno task build` and commit it";
    assert.deepEqual(
      Object.keys(CLIENT_FILES).sort(),
      Object.keys(built).sort(),
      stale,
    );
    for (const [name, code] of Object.entries(built)) {
      assert.ok(CLIENT_FILES[name] === code, `${stale} (${name} differs)`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const PAGE = `<!doctype html><meta charset="utf-8"><title>CSP</title>
<script src="/probe.js"></script>
<h1 data-cms-field="pages:home:title" data-cms-version="v1">Title</h1>
<div data-cms-field="pages:home:body" data-cms-version="v2" data-cms-type="richtext"><p>Body</p></div>
<script type="module" src="${client.mount}"></script>`;
const PROBE = `window.violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.violations.push(e.violatedDirective + " " + e.blockedURI));`;

Deno.test({
  name: "client handler: the editor mounts under script-src 'self' [chromium]",
  ignore: !engines().includes("chromium"),
  fn: async () => {
    const server = serve((req) => {
      const { pathname } = new URL(req.url);
      if (pathname.startsWith(client.base)) return client(req);
      const csp = { "Content-Security-Policy": "script-src 'self'" };
      if (pathname === "/probe.js") {
        return new Response(PROBE, {
          headers: { "Content-Type": "text/javascript", ...csp },
        });
      }
      return new Response(PAGE, {
        headers: { "Content-Type": "text/html; charset=utf-8", ...csp },
      });
    });
    try {
      await withBrowser("chromium", async (browser) => {
        const page = await browser.newPage();
        await page.goto(`${server.url}/`);
        await page.waitFor("cms-edit-bar", { timeout: 10_000 });
        // The rich region's lazy chunk loaded too: the region is editable.
        await page.waitFor(
          () =>
            document.querySelector<HTMLElement>("[data-cms-type=richtext]")
              ?.isContentEditable,
          { timeout: 10_000 },
        );
        const state = await page.evaluate(() => ({
          title: document.querySelector<HTMLElement>("h1")!.isContentEditable,
          violations: (globalThis as unknown as { violations: string[] })
            .violations,
        }));
        assert.equal(state.title, true);
        assert.deepEqual(state.violations, []);
        // The same page with an inline loader is blocked: the CSP is live.
        const blocked = await page.evaluate(async () => {
          const s = document.createElement("script");
          s.textContent = "window.inlineRan = true";
          document.body.append(s);
          await new Promise((r) => setTimeout(r, 50));
          return (globalThis as unknown as { inlineRan?: boolean }).inlineRan;
        });
        assert.equal(blocked, undefined);
      });
    } finally {
      await server.close();
    }
  },
});

Deno.test("client handler: cmsClientRoute serves the same files as a Fresh route", async () => {
  const route = cmsClientRoute<Record<string, never>>();
  assert.equal(route.entry, "/cms/mod.js");
  assert.equal(route.mount, "/cms/mount.js");
  const ctx = (path: string) => {
    const req = new Request(`http://localhost${path}`);
    return {
      req,
      url: new URL(req.url),
      state: {},
      next: () => Promise.reject(),
    };
  };
  const res = await route(ctx(route.entry) as never);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), CLIENT_FILES["mod.js"]);
  const missing = await route(ctx("/cms/../x") as never);
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});

Deno.test("client handler: works when the module is loaded over HTTP(S), as from JSR", async () => {
  // The repository's files over HTTP, as JSR serves a package's files.
  const root = new URL("../../../", import.meta.url);
  const files = serve(async (req) => {
    const path = new URL(req.url).pathname;
    if (!/^\/(server|core)\/[\w/]+\.ts$/.test(path)) {
      return new Response("Not found", { status: 404 });
    }
    return new Response(await Deno.readTextFile(new URL(`.${path}`, root)), {
      headers: { "Content-Type": "application/typescript" },
    });
  });
  const dir = await Deno.makeTempDir({ prefix: "cms-remote-" });
  try {
    // JSR rewrites a package's bare imports; an import map does it here.
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({
        imports: { "@opentelemetry/api": "npm:@opentelemetry/api@^1.9.0" },
      }),
    );
    await Deno.writeTextFile(
      `${dir}/main.ts`,
      `import { createClientHandler } from "${files.url}/server/bundle/mod.ts";
const client = createClientHandler();
const entry = await client(new Request("http://x" + client.entry));
const code = await entry.text();
const chunk = code.match(/"\\.\\/([\\w-]+\\.js)"/)![1];
const lazy = await client(new Request("http://x/cms/" + chunk));
console.log(JSON.stringify({
  entry: entry.status, code, chunk: lazy.status,
  cache: lazy.headers.get("Cache-Control"),
}));
`,
    );
    const host = new URL(files.url).host;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-lock",
        `--reload=${files.url}`,
        `--allow-import=${host}`,
        "main.ts",
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, err);
    const got = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(got.entry, 200);
    assert.equal(got.code, CLIENT_FILES["mod.js"]);
    assert.equal(got.chunk, 200);
    assert.equal(got.cache, "public, max-age=31536000, immutable");
  } finally {
    await files.close();
    await Deno.remove(dir, { recursive: true });
  }
});
