/**
 * Drafts and publish: one draft-store contract run against the memory, KV
 * and PostgreSQL stores; every draft endpoint over HTTP against the demo on
 * KV and on PostgreSQL, in both publish modes; preview links; publish-all
 * under a killed process.
 */
import assert from "node:assert/strict";
import { previewPath, PreviewSigner } from "../../../server/drafts/preview.ts";
import type { PublishMode } from "../../../server/store/types.ts";
import { contentVersion } from "../../../core/version.ts";
import { type Site, startSignedIn } from "../../helpers/demo.ts";
import { draftStoreSuite, type Open } from "../../helpers/draft_stores.ts";
import { HAS_POSTGRES, startPostgres } from "../../helpers/postgres.ts";

const ED = { field: "title", editor: "Ada" };

// ---------------------------------------------------------------------------
// The draft-store contract

const cases: Record<string, (open: Open) => Promise<void>> = {
  "a draft leaves the published value; getDrafted shows it": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({
      title: "Pub",
      features: ["a", "b"],
    }));
    await s.store.updateDraft("pages", "home", (r) => ({
      ...r,
      title: "Draft",
    }), ED);
    await s.store.updateDraft("pages", "home", (r) => ({
      ...r,
      features: (r!.features as string[]).with(1, "B"),
    }), { field: "features.1", editor: "Bo" });
    assert.deepEqual(await s.store.get("pages", "home"), {
      title: "Pub",
      features: ["a", "b"],
    });
    assert.deepEqual(await s.store.getDrafted("pages", "home"), {
      title: "Draft",
      features: ["a", "B"],
    });
    // Both drafts may share a millisecond: their order is then by address
    // (its own case below), so compare them by field here.
    const drafts = await s.store.drafts();
    assert.deepEqual(
      drafts.map((d) => [d.field, d.value, d.editor]).toSorted(),
      [["features.1", "B", "Bo"], ["title", "Draft", "Ada"]],
    );
    // The draft's revision is unpublished; the seeded value kept before it.
    const revs = await s.store.revisions("pages", "home", "title");
    assert.deepEqual(
      revs.map((r) => [r.value, r.published === undefined]),
      [["Draft", true], ["Pub", false]],
    );
  },

  "publish all: values go public, drafts gone, revisions published": async (
    open,
  ) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ title: "Pub", body: "x" }));
    await s.store.updateDraft(
      "pages",
      "home",
      (r) => ({ ...r, title: "T2" }),
      ED,
    );
    await s.store.updateDraft("pages", "about", () => ({ body: "<p>A</p>" }), {
      field: "body",
      editor: "Ada",
    });
    const result = await s.store.publish(null, "Cy");
    assert.deepEqual(result.conflicts, []);
    assert.deepEqual(
      result.published.map((d) => `${d.key}:${d.field}`).sort(),
      ["about:body", "home:title"],
    );
    assert.deepEqual(await s.store.get("pages", "home"), {
      title: "T2",
      body: "x",
    });
    assert.deepEqual(await s.store.get("pages", "about"), { body: "<p>A</p>" });
    assert.deepEqual(await s.store.drafts(), []);
    const [newest] = await s.store.revisions("pages", "home", "title");
    assert.equal(newest.value, "T2");
    assert.equal(newest.editor, "Cy");
    assert.ok(newest.published);
    assert.equal(new Date(newest.published).toISOString(), newest.published);
    // Nothing left: publishing again publishes nothing.
    assert.deepEqual(await s.store.publish(null, "Cy"), {
      published: [],
      conflicts: [],
    });
  },

  "publish some: only those fields; others stay drafts": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ title: "P", body: "B" }));
    await s.store.updateDraft(
      "pages",
      "home",
      (r) => ({ ...r, title: "t" }),
      ED,
    );
    await s.store.updateDraft("pages", "home", (r) => ({ ...r, body: "b" }), {
      field: "body",
      editor: "Ada",
    });
    const result = await s.store.publish([
      { collection: "pages", key: "home", field: "title" },
      { collection: "pages", key: "home", field: "summary" }, // no draft
    ], "Ada");
    assert.deepEqual(result.published.map((d) => d.field), ["title"]);
    assert.deepEqual(await s.store.get("pages", "home"), {
      title: "t",
      body: "B",
    });
    assert.deepEqual((await s.store.drafts()).map((d) => d.field), ["body"]);
  },

  "a stale version is a conflict and nothing is published": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ title: "P", body: "B" }));
    await s.store.updateDraft(
      "pages",
      "home",
      (r) => ({ ...r, title: "mine" }),
      ED,
    );
    const seen = contentVersion("mine");
    await s.store.updateDraft("pages", "home", (r) => ({ ...r, body: "b" }), {
      field: "body",
      editor: "Ada",
    });
    // Another editor changes the title draft after it was seen.
    await s.store.updateDraft("pages", "home", (r) => ({
      ...r,
      title: "theirs",
    }), { field: "title", editor: "Bo" });
    const result = await s.store.publish([
      { collection: "pages", key: "home", field: "body" },
      { collection: "pages", key: "home", field: "title", version: seen },
    ], "Ada");
    assert.deepEqual(result.published, []);
    assert.deepEqual(
      result.conflicts.map((c) => [c.field, c.value, c.version]),
      [["title", "theirs", contentVersion("theirs")]],
    );
    assert.deepEqual(await s.store.get("pages", "home"), {
      title: "P",
      body: "B",
    });
    assert.equal((await s.store.drafts()).length, 2);
    const ok = await s.store.publish([
      {
        collection: "pages",
        key: "home",
        field: "title",
        version: contentVersion("theirs"),
      },
    ], "Ada");
    assert.deepEqual(ok.published.map((d) => d.value), ["theirs"]);
  },

  "discard drops the draft and keeps the published value": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ title: "P" }));
    await s.store.updateDraft(
      "pages",
      "home",
      (r) => ({ ...r, title: "d" }),
      ED,
    );
    assert.equal(await s.store.discard("pages", "home", "title"), true);
    assert.equal(await s.store.discard("pages", "home", "title"), false);
    assert.deepEqual(await s.store.getDrafted("pages", "home"), { title: "P" });
    assert.deepEqual(await s.store.drafts(), []);
  },

  "a draft of a new record: visitors see no record": async (open) => {
    await using s = await open();
    await s.store.updateDraft("pages", "new", () => ({ title: "Hi" }), ED);
    assert.equal(await s.store.get("pages", "new"), null);
    assert.deepEqual(await s.store.getDrafted("pages", "new"), { title: "Hi" });
    await s.store.publish(null, "Ada");
    assert.deepEqual(await s.store.get("pages", "new"), { title: "Hi" });
  },

  "concurrent drafts and publishes lose nothing": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({}));
    const N = 40;
    await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        await s.store.updateDraft("pages", "home", (r) => ({
          ...r,
          [`f${i}`]: `v${i}`,
        }), { field: `f${i}`, editor: "Ada" });
        if (i % 5 === 4) await s.store.publish(null, "Ada");
      }),
    );
    await s.store.publish(null, "Ada");
    const record = await s.store.get("pages", "home");
    for (let i = 0; i < N; i++) assert.equal(record?.[`f${i}`], `v${i}`);
    assert.deepEqual(await s.store.drafts(), []);
    for (const i of [0, N - 1]) {
      const revs = await s.store.revisions("pages", "home", `f${i}`);
      assert.equal(revs[0].value, `v${i}`);
      assert.ok(revs[0].published);
    }
  },

  "drafts list oldest first, same-millisecond drafts by address": async (
    open,
  ) => {
    await using s = await open();
    // Concurrent drafts across records and fields: many share a millisecond.
    await Promise.all(
      ["b", "a", "c"].flatMap((key) =>
        ["z", "title", "m"].map((field) =>
          s.store.updateDraft("pages", key, (r) => ({ ...r, [field]: key }), {
            field,
            editor: "Ada",
          })
        )
      ),
    );
    const listed = (await s.store.drafts()).map((d) =>
      [d.at, d.collection, d.key, d.field].join(" ")
    );
    assert.equal(listed.length, 9);
    assert.deepEqual(listed, listed.toSorted());
  },

  "a draft that cannot be written leaves everything unchanged": async (
    open,
  ) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ title: "P" }));
    await assert.rejects(
      s.store.updateDraft("pages", "home", (r) => ({ ...r }), {
        field: "nope",
        editor: "Ada",
      }),
      TypeError,
    );
    assert.deepEqual(await s.store.drafts(), []);
    assert.deepEqual(await s.store.revisions("pages", "home", "nope"), []);
  },
};

draftStoreSuite("draft store contract", cases);

// ---------------------------------------------------------------------------
// Preview tokens

Deno.test("preview tokens: path and expiry are signed", async () => {
  assert.throws(() => new PreviewSigner("short"), RangeError);
  const signer = new PreviewSigner("x".repeat(32));
  const other = new PreviewSigner("y".repeat(32));
  const now = Date.now();
  const { token, expires } = await signer.sign("/", 60, now);
  assert.equal(expires.getTime(), (Math.floor(now / 1000) + 60) * 1000);
  assert.equal(await signer.verify(token, "/", now), true);
  assert.equal(await signer.verify(token, "/about", now), false);
  assert.equal(await other.verify(token, "/", now), false, "rotated secret");
  assert.equal(await signer.verify(token, "/", now + 61_000), false);
  const [exp, sig] = token.split(".");
  assert.equal(await signer.verify(`${Number(exp) + 999}.${sig}`, "/"), false);
  const flipped = sig[0] === "A" ? "B" + sig.slice(1) : "A" + sig.slice(1);
  assert.equal(await signer.verify(`${exp}.${flipped}`, "/"), false);
  // The spare low bits of the last character are part of the token too.
  const last = sig.at(-1)!;
  const spare = last === "A"
    ? "B"
    : String.fromCharCode(last.charCodeAt(0) ^ 1);
  assert.equal(
    await signer.verify(`${exp}.${sig.slice(0, -1)}${spare}`, "/"),
    false,
  );
  // One spelling only: no leading zeros, sign or spaces in the expiry.
  for (const spelling of [`0${exp}`, `00${exp}`, `+${exp}`, ` ${exp}`]) {
    assert.equal(await signer.verify(`${spelling}.${sig}`, "/", now), false);
  }
  assert.equal(await signer.verify(`${exp}.${sig}`, "/", now), true);
  for (const bad of ["", "x", `${exp}.`, `${exp}.${sig}=`, null, undefined]) {
    assert.equal(await signer.verify(bad, "/"), false, String(bad));
  }
  assert.equal(previewPath("/"), "/");
  for (const bad of ["", "x", "//evil", "/a?b", "/a#b", "/a\\b", "/a b", 1]) {
    assert.equal(previewPath(bad), null, String(bad));
  }
});

// ---------------------------------------------------------------------------
// Over HTTP against the demo

function headers(site: Site, extra: HeadersInit = {}): HeadersInit {
  return {
    Cookie: site.cookie,
    "Sec-Fetch-Site": "same-origin",
    Origin: site.url,
    "Content-Type": "application/json",
    ...extra,
  };
}

async function call(
  site: Site,
  path: string,
  body?: unknown,
  extra: HeadersInit = {},
  method = body === undefined ? "GET" : "POST",
) {
  const res = await fetch(`${site.url}${path}`, {
    method,
    headers: headers(site, extra),
    body: body === undefined
      ? undefined
      : typeof body === "string"
      ? body
      : JSON.stringify(body),
  });
  const type = res.headers.get("Content-Type") ?? "";
  const data = type.startsWith("application/json")
    ? await res.json()
    : await res.text();
  return { status: res.status, body: data, type, headers: res.headers };
}

async function save(
  site: Site,
  field: string,
  value: string,
  version?: string,
) {
  const res = await call(
    site,
    "/api/cms/save",
    {
      collection: "pages",
      key: "home",
      field,
      value,
      version,
    },
    {},
    "PATCH",
  );
  return { status: res.status, version: res.headers.get("CMS-Version") };
}

/** The page as a visitor (no cookie) and as the editor in edit mode. */
async function pages(site: Site) {
  const visitor = await (await fetch(`${site.url}/`)).text();
  const edit = await (await fetch(`${site.url}/?edit`, {
    headers: { Cookie: site.cookie },
  })).text();
  return { visitor, edit };
}

const ANON = { Cookie: "" };
const CROSS = {
  Origin: "https://evil.example",
  "Sec-Fetch-Site": "cross-site",
};

/** Draft mode, every endpoint and status, on one running demo. */
async function draftSuite(t: Deno.TestContext, site: Site) {
  await t.step("a save is a draft: visitors never see it", async () => {
    assert.equal((await save(site, "title", "Draft title")).status, 204);
    assert.equal((await save(site, "features.1", "Draft item")).status, 204);
    const { visitor, edit } = await pages(site);
    assert.doesNotMatch(visitor, /Draft title|Draft item/);
    assert.match(visitor, /Edit this page in place/);
    assert.match(edit, /Draft title/);
    assert.match(edit, /Draft item/);
    // Logged in but not editing: still the published page.
    const viewing = await (await fetch(`${site.url}/`, {
      headers: { Cookie: site.cookie },
    })).text();
    assert.doesNotMatch(viewing, /Draft title/);
    const config = edit.match(/id="cms-config"[^>]*>([^<]*)</)?.[1] ?? "";
    assert.match(config, /"publish":"\/api\/cms\/publish"/);
  });

  await t.step(
    "GET drafts: 200 list; 403 anonymous or cross-site",
    async () => {
      const res = await call(site, "/api/cms/drafts");
      assert.equal(res.status, 200);
      const drafts = (res.body as { drafts: Record<string, string>[] }).drafts;
      // Oldest first; two saves may share a millisecond (then by address).
      assert.deepEqual(drafts.map((d) => d.field).toSorted(), [
        "pages:home:features.1",
        "pages:home:title",
      ]);
      for (const d of drafts) {
        assert.equal(d.editor, "Editor");
        assert.equal(new Date(d.at).toISOString(), d.at);
      }
      assert.equal(
        (await call(site, "/api/cms/drafts", undefined, ANON)).status,
        403,
      );
      assert.equal(
        (await call(site, "/api/cms/drafts", undefined, CROSS)).status,
        403,
      );
      const wrong = await call(site, "/api/cms/drafts", {}, {}, "PUT");
      assert.equal(wrong.status, 405);
      assert.match(wrong.headers.get("Allow") ?? "", /GET/);
    },
  );

  await t.step("history marks drafts unpublished", async () => {
    const res = await call(site, "/api/cms/history?field=pages:home:title");
    const revs = (res.body as { revisions: { published?: string }[] })
      .revisions;
    assert.equal(revs[0].published, undefined);
    assert.ok(revs[1].published, "the seeded value was public");
  });

  await t.step("publish: 400, 403, 405 and 409 publish nothing", async () => {
    const before = (await pages(site)).visitor;
    for (
      const body of [
        "{",
        "[]",
        '"x"',
        { fields: "pages:home:title" },
        { fields: ["pages:home:secret"] },
        { fields: ["pages:home"] },
        { fields: [42] },
        { fields: ["pages:home:title"], versions: { "pages:home:title": 1 } },
        { fields: Array.from({ length: 1001 }, () => "pages:home:title") },
      ]
    ) {
      const res = await call(site, "/api/cms/publish", body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.match(res.type, /^text\/plain/);
      assert.ok(String(res.body).length > 0);
    }
    assert.equal((await call(site, "/api/cms/publish", {}, ANON)).status, 403);
    assert.equal((await call(site, "/api/cms/publish", {}, CROSS)).status, 403);
    assert.equal(
      (await call(site, "/api/cms/publish", undefined, {}, "GET")).status,
      405,
    );
    const conflict = await call(site, "/api/cms/publish", {
      fields: ["pages:home:title", "pages:home:features.1"],
      versions: { "pages:home:title": contentVersion("Something else") },
    });
    assert.equal(conflict.status, 409);
    assert.deepEqual(conflict.body, {
      error: "conflict",
      conflicts: [{
        field: "pages:home:title",
        value: "Draft title",
        version: contentVersion("Draft title"),
      }],
    });
    assert.equal((await pages(site)).visitor, before);
  });

  await t.step(
    "publish this page's fields: 200, visitors see them",
    async () => {
      const res = await call(site, "/api/cms/publish", {
        fields: ["pages:home:title"],
        versions: { "pages:home:title": contentVersion("Draft title") },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { published: ["pages:home:title"] });
      const { visitor } = await pages(site);
      assert.match(visitor, /Draft title/);
      assert.doesNotMatch(visitor, /Draft item/);
      const rev = await call(site, "/api/cms/history?field=pages:home:title");
      const [newest] = (rev.body as { revisions: { published?: string }[] })
        .revisions;
      assert.ok(newest.published);
    },
  );

  await t.step("discard: 204, the published value stays", async () => {
    for (const body of ["{", {}, { field: "pages:home:nope" }, { field: 1 }]) {
      assert.equal((await call(site, "/api/cms/discard", body)).status, 400);
    }
    assert.equal(
      (await call(
        site,
        "/api/cms/discard",
        { field: "pages:home:title" },
        ANON,
      ))
        .status,
      403,
    );
    const res = await call(site, "/api/cms/discard", {
      field: "pages:home:features.1",
    });
    assert.equal(res.status, 204);
    const { visitor, edit } = await pages(site);
    assert.doesNotMatch(edit, /Draft item/);
    assert.match(visitor, /Rich text is sanitized on the server/);
    // Nothing to drop is still 204.
    assert.equal(
      (await call(site, "/api/cms/discard", { field: "pages:home:features.1" }))
        .status,
      204,
    );
    assert.equal(
      (await call(site, "/api/cms/discard", undefined, {}, "GET")).status,
      405,
    );
  });

  await t.step("publish all: every draft at once", async () => {
    await save(site, "title", "All one");
    await save(site, "summary", "<p>All two</p>");
    const res = await call(site, "/api/cms/publish", {});
    assert.equal(res.status, 200);
    assert.deepEqual(
      (res.body as { published: string[] }).published.sort(),
      ["pages:home:summary", "pages:home:title"],
    );
    const none = await call(site, "/api/cms/publish", "");
    assert.deepEqual(none.body, { published: [] });
    const { visitor } = await pages(site);
    assert.match(visitor, /All one/);
    assert.match(visitor, /All two/);
  });

  await t.step(
    "restore in draft mode makes a draft, never publishes",
    async () => {
      const list = await call(site, "/api/cms/history?field=pages:home:title");
      const revs = (list.body as { revisions: { id: string }[] }).revisions;
      const old = revs[revs.length - 1]; // the seeded value
      const res = await call(site, "/api/cms/history", {
        field: "pages:home:title",
        revision: old.id,
      });
      assert.equal(res.status, 204, String(res.body));
      const { visitor, edit } = await pages(site);
      assert.match(visitor, /All one/);
      assert.match(edit, /Edit this page in place/);
      const drafts = await call(site, "/api/cms/drafts");
      assert.deepEqual(
        (drafts.body as { drafts: { field: string }[] }).drafts.map((d) =>
          d.field
        ),
        ["pages:home:title"],
      );
    },
  );

  await t.step("preview link: drafts read-only; tampered → 403", async () => {
    const res = await call(site, "/api/cms/preview", { path: "/" });
    assert.equal(res.status, 200);
    const { url, expires } = res.body as { url: string; expires: string };
    assert.ok(Date.parse(expires) > Date.now());
    assert.ok(url.startsWith(`${site.url}/?preview=`));
    // No cookie: anyone holding the link.
    const page = await fetch(url);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(html, /Edit this page in place/); // the restored draft
    assert.match(html, /data-preview/);
    assert.doesNotMatch(html, /data-cms-field|cms-config/);
    assert.match(page.headers.get("Cache-Control") ?? "", /no-store/);
    const token = new URL(url).searchParams.get("preview")!;
    const [exp, sig] = token.split(".");
    for (
      const bad of [
        `${Number(exp) + 1}.${sig}`,
        `${exp}.${sig.slice(0, -2)}AA`,
        `${Math.floor(Date.now() / 1000) - 10}.${sig}`,
        `0${exp}.${sig}`, // non-canonical spellings of a valid token
        `00${exp}.${sig}`,
        "",
        "garbage",
      ]
    ) {
      const r = await fetch(`${site.url}/?preview=${encodeURIComponent(bad)}`);
      const body = await r.text();
      assert.equal(r.status, 403, bad);
      assert.doesNotMatch(body, /All one|Edit this page in place/);
    }
    for (const body of [{ path: "//evil.example/" }, { path: "/other" }, "{"]) {
      assert.equal((await call(site, "/api/cms/preview", body)).status, 400);
    }
    assert.equal(
      (await call(site, "/api/cms/preview", { path: "/" }, ANON)).status,
      403,
    );
    assert.equal(
      (await call(site, "/api/cms/preview", { path: "/" }, CROSS)).status,
      403,
    );
  });
}

/** Direct mode: saves go live and the draft endpoints are not there. */
async function directSuite(t: Deno.TestContext, site: Site) {
  await t.step(
    "direct: a save is live at once; no draft endpoints",
    async () => {
      assert.equal((await save(site, "title", "Live now")).status, 204);
      assert.match((await pages(site)).visitor, /Live now/);
      // Not mounted: the demo's read-only routes answer.
      assert.equal((await call(site, "/api/cms/drafts")).status, 404);
      assert.equal((await call(site, "/api/cms/publish", {})).status, 405);
      const edit = (await pages(site)).edit;
      assert.doesNotMatch(edit, /"publish"/);
      const res = await call(site, "/api/cms/history?field=pages:home:title");
      const [newest] = (res.body as { revisions: { published?: string }[] })
        .revisions;
      assert.ok(newest.published);
    },
  );
}

async function withDemo(
  mode: PublishMode,
  databaseUrl: string | undefined,
  run: (site: Site) => Promise<void>,
) {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-publish-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-publish-client-" });
  try {
    const { demo, site } = await startSignedIn({
      dataDir,
      clientDir,
      publishMode: mode,
      databaseUrl,
    });
    try {
      await run(site);
    } finally {
      await demo.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(clientDir, { recursive: true });
  }
}

Deno.test("drafts over HTTP: demo on Deno KV", async (t) => {
  await withDemo("draft", undefined, (site) => draftSuite(t, site));
  await withDemo("direct", undefined, (site) => directSuite(t, site));
});

Deno.test(
  "drafts over HTTP: demo on PostgreSQL",
  { ignore: !HAS_POSTGRES },
  async (t) => {
    await using pg = await startPostgres();
    await withDemo("draft", await pg.database(), (site) => draftSuite(t, site));
    await withDemo(
      "direct",
      await pg.database(),
      (site) => directSuite(t, site),
    );
  },
);
