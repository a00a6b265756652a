/**
 * A new user's first hour, in new apps outside the repository that link
 * this checkout through `"links"` (Deno's default compiler options, no
 * `lib: dom`): the README's quick start type-checks, serves and saves; all
 * four entry points type-check; a KV + local-media app pulls in neither
 * `postgres` nor `aws4fetch`, and the npm counts in docs/storage.md are the
 * measured ones.
 *
 * @module
 */
import assert from "node:assert/strict";
import { formLoginAndEdit, freePort } from "../helpers/serve.ts";
import { png } from "../fixtures/images.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const README = await Deno.readTextFile(`${ROOT}/README.md`);

/** A new app folder outside the repository, linking this checkout. */
async function newApp(
  files: Record<string, string>,
  config: Record<string, unknown> = {},
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "cms-app-" });
  assert.ok(!dir.startsWith(ROOT));
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({
      imports: { "@inplace/cms": "jsr:@inplace/cms@^0.1.0" },
      links: [ROOT],
      ...config,
    }),
  );
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir;
}

/** Runs `deno ARGS` in `cwd`; its exit code and output. */
async function deno(
  cwd: string,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code, out: dec.decode(stdout), err: dec.decode(stderr) };
}

/** The README code block after `<!-- marker -->`. */
function readmeBlock(marker: string): string {
  const at = README.indexOf(`<!-- ${marker} -->`);
  assert.ok(at >= 0, `README has no <!-- ${marker} --> block`);
  const m = README.slice(at).match(/```\w*\n([\s\S]*?)```/);
  assert.ok(m, `no code block after <!-- ${marker} -->`);
  return m[1];
}

Deno.test("adoption: a default-options app importing all four entry points type-checks", async () => {
  const dir = await newApp({
    // Server code: no DOM types anywhere (core's sanitizer included).
    "main.ts": [
      'import { createClientHandler, createCms, createSaveHandler } from "@inplace/cms";',
      'import { CmsField, cmsRoute, cmsSaveRoute } from "@inplace/cms/fresh";',
      'import { defineContent, type SaveBody } from "@inplace/cms/core";',
      "const body: SaveBody = { collection: 'p', key: 'k', field: 'f', value: 1 };",
      "console.log(createClientHandler, createSaveHandler, CmsField,",
      "  cmsSaveRoute, defineContent, body, createCms, cmsRoute);",
      "",
    ].join("\n"),
    // Browser code says so itself (JSR bans this line inside a package).
    "browser.ts": [
      '/// <reference lib="dom" />',
      '/// <reference lib="dom.iterable" />',
      'import { clearDrafts, mountCms } from "@inplace/cms/client";',
      "const cms = mountCms({ editor: 'Ada' });",
      "cms.ready.then(() => clearDrafts());",
      "",
    ].join("\n"),
  });
  try {
    const config = JSON.parse(await Deno.readTextFile(`${dir}/deno.json`));
    assert.equal(config.compilerOptions, undefined);
    const server = await deno(dir, ["check", "main.ts"]);
    assert.equal(server.code, 0, server.out + server.err);
    const both = await deno(dir, ["check", "main.ts", "browser.ts"]);
    assert.equal(both.code, 0, both.out + both.err);
    // A mistake is still found: the check is real.
    await Deno.writeTextFile(
      `${dir}/bad.ts`,
      'import { defineContent } from "@inplace/cms/core";\n' +
        "defineContent(42);\n",
    );
    assert.notEqual((await deno(dir, ["check", "bad.ts"])).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** npm package names in the module graph of `main.ts` of a new app. */
async function npmPackages(source: string): Promise<string[]> {
  const dir = await newApp({ "main.ts": source });
  try {
    const { code, out, err } = await deno(dir, [
      "info",
      "--no-lock",
      "--json",
      "main.ts",
    ]);
    assert.equal(code, 0, err);
    const info = JSON.parse(out) as {
      npmPackages?: Record<string, { name: string }>;
    };
    return Object.values(info.npmPackages ?? {}).map((p) => p.name);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("adoption: a KV + local-media app resolves neither postgres nor aws4fetch; the README's npm counts are measured", async () => {
  const kv = await npmPackages(
    'import { createSaveHandler, createMediaHandler, KvContentStore, LocalMediaStorage } from "@inplace/cms";\n' +
      "console.log(createSaveHandler, createMediaHandler, KvContentStore, LocalMediaStorage);\n",
  );
  const pg = await npmPackages(
    'import { createSaveHandler } from "@inplace/cms";\n' +
      'import { PostgresContentStore } from "@inplace/cms/postgres";\n' +
      "console.log(createSaveHandler, PostgresContentStore);\n",
  );
  const s3 = await npmPackages(
    'import { createMediaHandler, KvContentStore } from "@inplace/cms";\n' +
      'import { S3MediaStorage } from "@inplace/cms/s3";\n' +
      "console.log(createMediaHandler, KvContentStore, S3MediaStorage);\n",
  );
  assert.ok(kv.includes("jsdom") && kv.includes("sharp"), kv.join());
  assert.ok(!kv.includes("postgres"), "KV app resolves postgres");
  assert.ok(!kv.includes("aws4fetch"), "KV app resolves aws4fetch");
  assert.ok(pg.includes("postgres") && !pg.includes("aws4fetch"));
  assert.ok(s3.includes("aws4fetch") && !s3.includes("postgres"));

  const storage = await Deno.readTextFile(`${ROOT}/docs/storage.md`);
  const table = storage.slice(storage.indexOf("<!-- npm-counts -->"));
  const row = (label: string) => {
    const m = table.match(
      new RegExp(`^\\| ${label}[^|]*\\|\\s*(\\d+) \\|\\s*(\\d+) \\|$`, "m"),
    );
    assert.ok(m, `docs/storage.md has no npm-count row for ${label}`);
    return [Number(m[1]), Number(m[2])];
  };
  const measured = (names: string[]) => [
    names.length,
    names.filter((n) => n.startsWith("@img/sharp-")).length,
  ];
  const hint = "update the table under <!-- npm-counts --> in docs/storage.md";
  assert.deepEqual(row("KV"), measured(kv), hint);
  assert.deepEqual(row("PostgreSQL"), measured(pg), hint);
  assert.deepEqual(row("S3"), measured(s3), hint);
});

Deno.test("adoption: the README's quick start (≤ 60 lines), pasted into a new app, type-checks; an editor signs in, saves a draft, uploads, publishes and sees history", async () => {
  // The `unstable` list the README's Install section tells apps to set.
  const unstable = JSON.parse(
    README.match(/"unstable": (\[[^\]]*\])/)?.[1] ?? "null",
  );
  assert.ok(Array.isArray(unstable), "README shows no unstable list");
  const source = readmeBlock("quick-start");
  const lines = source.trimEnd().split("\n").length;
  assert.ok(lines <= 60, `the quick start has ${lines} lines (at most 60)`);
  const dir = await newApp({ "main.ts": source }, {
    unstable,
  });
  const port = freePort();
  let child: Deno.ChildProcess | undefined;
  try {
    const check = await deno(dir, ["check", "main.ts"]);
    assert.equal(check.code, 0, check.out + check.err);
    child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "main.ts"],
      cwd: dir,
      env: { PORT: String(port), EDITOR_PASSWORD: "pass-1234", NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const base = `http://127.0.0.1:${port}`;
    let up = false;
    for (let i = 0; i < 200 && !up; i++) {
      up = await fetch(base).then(async (r) => {
        await r.body?.cancel();
        return true;
      }, () => false);
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(up, "the quick start app did not start");

    const wrong = await fetch(`${base}/login`, {
      method: "POST",
      body: new URLSearchParams({ password: "nope" }),
    });
    await wrong.body?.cancel();
    assert.equal(wrong.status, 403);
    const { cookie, page, version } = await formLoginAndEdit(base, "pass-1234");
    const mount = page.match(/<script type="module" src="([^"]+)">/)?.[1];
    assert.equal(mount, "/api/cms/client/mount.js");
    const js = await fetch(base + mount);
    assert.equal(js.status, 200);
    assert.match(js.headers.get("Content-Type")!, /javascript/);
    assert.match(await js.text(), /mountCms/);
    // The page config names what the one call routes.
    const config = JSON.parse(
      page.match(/id="cms-config">([^<]*)<\/script>/)?.[1] ?? "null",
    );
    assert.equal(config.publish, "/api/cms/publish");
    assert.equal(config.history, "/api/cms/history");
    assert.equal(config.media, "/api/cms/media");
    assert.equal(config.editor, "Editor");

    const editor = { cookie, "Sec-Fetch-Site": "same-origin" };
    const json = { ...editor, "Content-Type": "application/json" };
    const save = await fetch(`${base}/api/cms/save`, {
      method: "PATCH",
      headers: json,
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value: "Saved <from> the quick start",
        version,
      }),
    });
    assert.equal(save.status, 204, await save.text());
    const anon = await fetch(`${base}/api/cms/save`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value: "x",
      }),
    });
    await anon.body?.cancel();
    assert.equal(anon.status, 403);
    // A draft: the editor sees it, visitors don't (yet).
    const visitorBefore = await (await fetch(base)).text();
    assert.match(visitorBefore, /<h1>Hello<\/h1>/);
    assert.doesNotMatch(visitorBefore, /data-cms-field/);
    const draft = await (await fetch(`${base}/?edit`, { headers: { cookie } }))
      .text();
    assert.match(draft, />Saved &lt;from> the quick start<\/h1>/);

    const upload = await fetch(`${base}/api/cms/media`, {
      method: "POST",
      headers: { ...editor, "Content-Type": "image/png" },
      body: await png(32, 24),
    });
    assert.equal(upload.status, 200, await upload.clone().text());
    const { url } = await upload.json() as { url: string };
    assert.match(url, /^\/media\//);
    const file = await fetch(base + url);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("Content-Type"), "image/png");
    await file.body?.cancel();

    const publish = await fetch(`${base}/api/cms/publish`, {
      method: "POST",
      headers: json,
      body: "{}",
    });
    assert.equal(publish.status, 200, await publish.clone().text());
    assert.deepEqual((await publish.json()).published, ["pages:home:title"]);
    const visitor = await (await fetch(base)).text();
    assert.match(visitor, /<h1>Saved &lt;from> the quick start<\/h1>/);
    assert.doesNotMatch(visitor, /data-cms-field|cms-config/);

    const history = await fetch(
      `${base}/api/cms/history?field=pages:home:title`,
      { headers: { cookie } },
    );
    assert.equal(history.status, 200);
    const { revisions } = await history.json() as {
      revisions: { editor: string | null; published?: string }[];
    };
    // The saved draft is the newest revision, now marked published.
    assert.equal(revisions[0]?.editor, "Editor", JSON.stringify(revisions));
    assert.ok(revisions[0]?.published, JSON.stringify(revisions));
  } finally {
    if (child) {
      child.kill();
      await child.stderr.cancel();
      await child.status;
    }
    await Deno.remove(dir, { recursive: true });
  }
});
