/**
 * The history endpoint over HTTP against the demo, on Deno KV and on
 * PostgreSQL: every listed status, restore through the save path, and
 * history that survives a restart.
 */
import assert from "node:assert/strict";
import { startDemo } from "../../../demo/main.ts";
import {
  DEMO_PASSWORD as PASSWORD,
  login,
  type Site,
  startSignedIn,
} from "../../helpers/demo.ts";
import { HAS_POSTGRES, startPostgres } from "../../helpers/postgres.ts";

const TITLE = "pages:home:title";

/** Starts the demo on `dataDir` (and `databaseUrl`), logs in. */
function start(dataDir: string, clientDir: string, databaseUrl?: string) {
  return startSignedIn({ dataDir, clientDir, databaseUrl });
}

function headers(site: Site, extra: HeadersInit = {}): HeadersInit {
  return {
    Cookie: site.cookie,
    "Sec-Fetch-Site": "same-origin",
    Origin: site.url,
    ...extra,
  };
}

async function get(site: Site, query: Record<string, string>, cookie = true) {
  const res = await fetch(
    `${site.url}/api/cms/history?${new URLSearchParams(query)}`,
    { headers: cookie ? headers(site) : {} },
  );
  const type = res.headers.get("Content-Type") ?? "";
  const body = type.startsWith("application/json")
    ? await res.json()
    : await res.text();
  return { status: res.status, body, type };
}

async function restore(site: Site, body: unknown, extra: HeadersInit = {}) {
  const res = await fetch(`${site.url}/api/cms/history`, {
    method: "POST",
    headers: headers(site, { "Content-Type": "application/json", ...extra }),
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, version: res.headers.get("CMS-Version") };
}

async function save(site: Site, field: string, value: string) {
  const res = await fetch(`${site.url}/api/cms/save`, {
    method: "PATCH",
    headers: headers(site, { "Content-Type": "application/json" }),
    body: JSON.stringify({ collection: "pages", key: "home", field, value }),
  });
  await res.body?.cancel();
  assert.equal(res.status, 204, `save ${field}`);
  return res.headers.get("CMS-Version")!;
}

interface Listing {
  field: string;
  revisions: { id: string; at: string; editor: string | null; bytes: number }[];
}

async function listing(site: Site, field = TITLE): Promise<Listing> {
  const res = await get(site, { field });
  assert.equal(res.status, 200, String(res.body));
  return res.body as Listing;
}

/** Every case, on one running demo. */
async function suite(t: Deno.TestContext, site: Site) {
  await t.step("403 without a session, 403 from another site", async () => {
    const anon = await get(site, { field: TITLE }, false);
    assert.equal(anon.status, 403);
    assert.match(anon.type, /^text\/plain/);
    const res = await fetch(`${site.url}/api/cms/history`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ field: TITLE, revision: "x" }),
    });
    await res.body?.cancel();
    assert.equal(res.status, 403);
    const cross = await restore(site, { field: TITLE, revision: "x" }, {
      Origin: "https://evil.example",
      "Sec-Fetch-Site": "cross-site",
    });
    assert.equal(cross.status, 403);
    const crossGet = await fetch(
      `${site.url}/api/cms/history?field=${TITLE}`,
      {
        headers: headers(site, {
          Origin: "https://evil.example",
          "Sec-Fetch-Site": "cross-site",
        }),
      },
    );
    await crossGet.body?.cancel();
    assert.equal(crossGet.status, 403);
  });

  await t.step(
    "every save is a revision; newest first; first is current",
    async () => {
      await save(site, "title", "First");
      await save(site, "title", "Second");
      await save(site, "title", "Thïrd");
      const { field, revisions } = await listing(site);
      assert.equal(field, TITLE);
      // Three saves, plus the seeded value kept from before history began.
      assert.equal(revisions.length, 4);
      assert.deepEqual(revisions.map((r) => r.editor), [
        "Editor",
        "Editor",
        "Editor",
        null,
      ]);
      assert.deepEqual(revisions.map((r) => r.bytes).slice(0, 3), [6, 6, 5]);
      for (const r of revisions) {
        assert.equal(
          new Date(r.at).toISOString(),
          r.at,
        );
      }
      const newest = await get(site, {
        field: TITLE,
        revision: revisions[0].id,
      });
      assert.equal(newest.status, 200);
      assert.deepEqual(newest.body, {
        id: revisions[0].id,
        at: revisions[0].at,
        editor: "Editor",
        value: "Thïrd",
      });
      const limited = await get(site, { field: TITLE, limit: "2" });
      assert.equal((limited.body as Listing).revisions.length, 2);
    },
  );

  await t.step(
    "400: malformed or non-allowlisted field, same answer whether it exists",
    async () => {
      for (
        const field of [
          "",
          "pages:home",
          "pages:home:title:x",
          "pages:home:features.01",
        ]
      ) {
        assert.equal((await get(site, { field })).status, 400, field);
      }
      assert.equal((await get(site, {})).status, 400);
      const existing = await get(site, { field: "pages:home:secret" });
      const missing = await get(site, { field: "pages:nope:secret" });
      assert.equal(existing.status, 400);
      assert.deepEqual(existing, missing);
      const otherCollection = await get(site, { field: "users:home:title" });
      assert.equal(otherCollection.status, 400);
      for (const limit of ["0", "-1", "abc", "1.5"]) {
        assert.equal(
          (await get(site, { field: TITLE, limit })).status,
          400,
          limit,
        );
      }
    },
  );

  await t.step(
    "404 unknown revision, 400 revision of another field",
    async () => {
      const unknown = crypto.randomUUID();
      assert.equal(
        (await get(site, { field: TITLE, revision: unknown })).status,
        404,
      );
      assert.equal(
        (await get(site, { field: TITLE, revision: "x".repeat(500) })).status,
        404,
      );
      assert.equal(
        (await restore(site, { field: TITLE, revision: unknown })).status,
        404,
      );
      await save(site, "summary", "<p>Sum</p>");
      const [summary] = (await listing(site, "pages:home:summary")).revisions;
      const other = await get(site, { field: TITLE, revision: summary.id });
      assert.equal(other.status, 400);
      const otherPost = await restore(site, {
        field: TITLE,
        revision: summary.id,
      });
      assert.equal(otherPost.status, 400);
      const otherKey = await get(site, {
        field: "pages:about:summary",
        revision: summary.id,
      });
      assert.equal(otherKey.status, 400);
    },
  );

  await t.step(
    "400 for malformed restore bodies, 405 for other methods",
    async () => {
      const [rev] = (await listing(site)).revisions;
      for (
        const body of [
          "{",
          "[]",
          "null",
          '"x"',
          "{}",
          JSON.stringify({ field: TITLE }),
        ]
      ) {
        const res = await restore(site, body);
        assert.equal(res.status, 400, body);
        assert.ok(res.text.length > 0);
      }
      const badVersion = await restore(site, {
        field: TITLE,
        revision: rev.id,
        version: 5,
      });
      assert.equal(badVersion.status, 400);
      const bad = await restore(site, new Uint8Array([0xff, 0xfe]).toString());
      assert.equal(bad.status, 400);
      const res = await fetch(`${site.url}/api/cms/history`, {
        method: "DELETE",
        headers: headers(site),
      });
      await res.body?.cancel();
      assert.equal(res.status, 405);
      assert.match(res.headers.get("Allow") ?? "", /POST/);
    },
  );

  await t.step(
    "restore: 204, the page shows the value, and it is the newest revision",
    async () => {
      const before = (await listing(site)).revisions;
      const second = before[1]; // "Second"
      const res = await restore(site, { field: TITLE, revision: second.id });
      assert.equal(res.status, 204, res.text);
      assert.ok(res.version);
      const page = await (await fetch(`${site.url}/`)).text();
      assert.match(page, /Second/);
      const after = (await listing(site)).revisions;
      assert.equal(after.length, before.length + 1);
      const newest = await get(site, { field: TITLE, revision: after[0].id });
      assert.equal((newest.body as { value: string }).value, "Second");
      assert.notEqual(after[0].id, second.id);
    },
  );

  await t.step(
    "restore checks the version: 409 when the field moved on",
    async () => {
      const revs = (await listing(site)).revisions;
      const stale = await save(site, "title", "Moved");
      const current = await save(site, "title", "Moved again");
      const conflict = await restore(site, {
        field: TITLE,
        revision: revs[1].id,
        version: stale,
      });
      assert.equal(conflict.status, 409);
      assert.equal(JSON.parse(conflict.text).value, "Moved again");
      const ok = await restore(site, {
        field: TITLE,
        revision: revs[1].id,
        version: current,
      });
      assert.equal(ok.status, 204);
    },
  );

  await t.step("list items have their own history and restore", async () => {
    await save(site, "features.1", "Item one, edited");
    const revs = (await listing(site, "pages:home:features.1")).revisions;
    assert.equal(revs.length, 2);
    const res = await restore(site, {
      field: "pages:home:features.1",
      revision: revs[1].id,
    });
    assert.equal(res.status, 204);
    const page = await (await fetch(`${site.url}/`)).text();
    assert.doesNotMatch(page, /Item one, edited/);
  });
}

Deno.test("history over HTTP: demo on Deno KV", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-history-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-history-client-" });
  try {
    let ids: string[];
    {
      const { demo, site } = await start(dataDir, clientDir);
      try {
        await suite(t, site);
        ids = (await listing(site)).revisions.map((r) => r.id);
      } finally {
        await demo.close();
      }
    }
    await t.step("revisions survive a restart", async () => {
      const { demo, site } = await start(dataDir, clientDir);
      try {
        assert.deepEqual((await listing(site)).revisions.map((r) => r.id), ids);
      } finally {
        await demo.close();
      }
    });
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(clientDir, { recursive: true });
  }
});

Deno.test(
  "history over HTTP: demo on PostgreSQL",
  { ignore: !HAS_POSTGRES },
  async (t) => {
    await using pg = await startPostgres();
    const databaseUrl = await pg.database();
    const dataDir = await Deno.makeTempDir({ prefix: "cms-history-" });
    const clientDir = await Deno.makeTempDir({ prefix: "cms-history-client-" });
    try {
      let ids: string[];
      let cookie: string;
      {
        const { demo, site } = await start(dataDir, clientDir, databaseUrl);
        try {
          await suite(t, site);
          ids = (await listing(site)).revisions.map((r) => r.id);
          cookie = site.cookie;
        } finally {
          await demo.close();
        }
      }
      await t.step("revisions and sessions survive a restart", async () => {
        const { demo, site } = await start(dataDir, clientDir, databaseUrl);
        try {
          // The first run's session cookie still works: sessions are in
          // PostgreSQL too.
          const old = { url: site.url, cookie };
          assert.deepEqual(
            (await listing(old)).revisions.map((r) => r.id),
            ids,
          );
        } finally {
          await demo.close();
        }
      });
    } finally {
      await Deno.remove(dataDir, { recursive: true });
      await Deno.remove(clientDir, { recursive: true });
    }
  },
);

Deno.test("history panel in Chromium: list, keyboard restore, page updates without reload", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-history-ui-" });
  const demo = await startDemo({ port: 0, dataDir, password: PASSWORD });
  try {
    const { withBrowser } = await import("../../helpers/browser.ts");
    const site = { url: demo.url, cookie: await login(demo.url) };
    await save(site, "title", "Old title");
    await save(site, "title", "New title");
    await withBrowser("chromium", async (browser) => {
      const page = await browser.newPage();
      await page.goto(`${demo.url}/login`);
      await page.evaluate((password) => {
        const form = document.querySelector("form")!;
        (form.querySelector("[name=password]") as HTMLInputElement).value =
          password;
        form.submit();
      }, PASSWORD);
      await page.waitFor(() => location.pathname === "/");
      await page.goto(`${demo.url}/?edit`);
      const title = `[data-cms-field="${TITLE}"]`;
      await page.waitFor("cms-edit-bar");
      await page.click(title);
      await page.evaluate(() => {
        const root = document.querySelector("cms-edit-bar")!.shadowRoot!;
        [...root.querySelectorAll("button")]
          .find((b) => b.textContent?.trim() === "History")!.click();
      });
      // The list: newest first, with who and a preview of what each
      // revision changed against the one before it (removed words struck
      // through, new ones underlined); focus on the first older revision's
      // Restore.
      await page.waitFor(() =>
        document.querySelector("cms-history")?.shadowRoot
          ?.querySelectorAll("li").length === 3
      );
      const rows = await page.evaluate(() =>
        [...document.querySelector("cms-history")!.shadowRoot!
          .querySelectorAll("li")].map((li) => ({
            text: li.textContent,
            del: [...li.querySelectorAll("p del")].map((e) => e.textContent)
              .join(" "),
            ins: [...li.querySelectorAll("p ins")].map((e) => e.textContent)
              .join(" "),
          }))
      );
      assert.match(rows[0].text!, /Editor.*New title/);
      assert.deepEqual([rows[0].del, rows[0].ins], ["Old", "New"]);
      assert.match(rows[1].text!, /Editor/);
      assert.deepEqual(
        [rows[1].del, rows[1].ins],
        ["Edit this page in place", "Old title"],
      );
      assert.match(rows[2].text!, /before history.*Edit this page in place/);
      assert.equal(rows[2].ins + rows[2].del, "");
      const focused = await page.evaluate(() =>
        document.querySelector("cms-history")!.shadowRoot!.activeElement
          ?.textContent
      );
      assert.equal(focused, "Restore");
      await page.press("Enter");
      // Restore first shows what it changes: the words, then a confirm.
      await page.waitFor(() =>
        document.querySelector("cms-history")?.shadowRoot?.querySelector(
          ".df ins",
        )
      );
      const diff = await page.evaluate(() => {
        const root = document.querySelector("cms-history")!.shadowRoot!;
        const q = (s: string) =>
          [...root.querySelectorAll(s)].map((e) => e.textContent);
        return {
          del: q(".df del"),
          ins: q(".df ins"),
          focused: root.activeElement?.textContent,
          title: root.querySelector("h2")?.textContent,
        };
      });
      assert.deepEqual(diff, {
        del: ["New"],
        ins: ["Old"],
        focused: "Restore this version",
        title: "History: Title",
      });
      await page.press("Enter");
      await page.waitFor(
        (sel: string) =>
          document.querySelector(sel)?.textContent === "Old title" &&
          !document.querySelector("cms-history"),
        {},
        title,
      );
      await page.close();
    });
    const revs = (await listing(site)).revisions;
    const newest = await get(site, { field: TITLE, revision: revs[0].id });
    assert.equal((newest.body as { value: string }).value, "Old title");
  } finally {
    await demo.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
