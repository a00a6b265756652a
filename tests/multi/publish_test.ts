/**
 * Drafts across processes: three demo processes (`CMS_PUBLISH=draft`) on
 * one PostgreSQL with concurrent draft saves and publishes (nothing lost,
 * revision counts = accepted saves + published fields, a stale publish is
 * a 409 that publishes nothing), and publish-all under `SIGKILL` on KV and
 * on PostgreSQL (after a restart, all or none of the drafts are public).
 */
import assert from "node:assert/strict";
import { buildClient } from "../../tools/build_client.ts";
import { contentVersion } from "../../core/version.ts";
import {
  type DemoProcess,
  draftDemoEnv,
  editorHeaders,
  login,
  revisions,
  spawnDemo,
  stopDemo,
} from "../helpers/demo.ts";
import { HAS_POSTGRES, startPostgres } from "../helpers/postgres.ts";
import postgres from "postgres";
import { PostgresContentStore } from "../../postgres/store/mod.ts";

const FIELDS = [
  "title",
  "summary",
  "body",
  "features.0",
  "features.1",
  "features.2",
];
const RICH = new Set(["summary", "body"]);

const baseEnv = draftDemoEnv;

/** Starts a demo process with exactly `env`. */
function spawn(env: Record<string, string>): Promise<DemoProcess> {
  return spawnDemo(env, { clearEnv: true, stderr: "null" });
}

function valueOf(field: string, text: string): string {
  return RICH.has(field) ? `<p>${text}</p>` : text;
}

async function save(url: string, cookie: string, field: string, text: string) {
  const res = await fetch(`${url}/api/cms/save`, {
    method: "PATCH",
    headers: editorHeaders(url, cookie),
    body: JSON.stringify({
      collection: "pages",
      key: "home",
      field,
      value: valueOf(field, text),
    }),
  });
  await res.body?.cancel();
  return res.status;
}

async function publish(url: string, cookie: string, body: unknown = {}) {
  const res = await fetch(`${url}/api/cms/publish`, {
    method: "POST",
    headers: editorHeaders(url, cookie),
    body: JSON.stringify(body),
  });
  const data = await res.json();
  return { status: res.status, body: data };
}

async function drafts(url: string, cookie: string): Promise<string[]> {
  const res = await fetch(`${url}/api/cms/drafts`, {
    headers: editorHeaders(url, cookie),
  });
  assert.equal(res.status, 200);
  return (await res.json()).drafts.map((d: { field: string }) => d.field);
}

Deno.test(
  "drafts on 3 instances, one PostgreSQL: concurrent saves and publishes lose nothing; stale publish is 409",
  { ignore: !HAS_POSTGRES },
  async () => {
    await using pg = await startPostgres();
    const clientDir = await Deno.makeTempDir({
      prefix: "cms-pubmulti-client-",
    });
    const dirs: string[] = [];
    const instances: DemoProcess[] = [];
    try {
      await buildClient(clientDir);
      const databaseUrl = await pg.database();
      for (let i = 0; i < 3; i++) {
        const dir = await Deno.makeTempDir({ prefix: "cms-pubmulti-" });
        dirs.push(dir);
        instances.push(
          await spawn(baseEnv({
            CMS_DATABASE_URL: databaseUrl,
            CMS_DATA_DIR: dir,
            CMS_CLIENT_DIR: clientDir,
          })),
        );
      }
      const urls = instances.map((x) => x.url);
      const cookie = await login(urls[0]);

      const ROUNDS = 8;
      let accepted = 0;
      let publishedFields = 0;
      for (let round = 0; round < ROUNDS; round++) {
        // Every field saved on some instance while two instances publish all.
        const jobs: Promise<void>[] = FIELDS.map(async (field, i) => {
          const status = await save(
            urls[(round + i) % 3],
            cookie,
            field,
            `r${round} ${field}`,
          );
          assert.equal(status, 204, `${field} round ${round}`);
          accepted++;
        });
        for (const url of [urls[round % 3], urls[(round + 1) % 3]]) {
          jobs.push(
            publish(url, cookie).then((r) => {
              assert.equal(r.status, 200);
              publishedFields += r.body.published.length;
            }),
          );
        }
        await Promise.all(jobs);
      }
      const last = await publish(urls[2], cookie);
      publishedFields += last.body.published.length;
      assert.deepEqual(await drafts(urls[1], cookie), []);
      // Every instance's visitors see the last round of every field.
      for (const url of urls) {
        const page = await (await fetch(`${url}/`)).text();
        for (const field of FIELDS) {
          assert.ok(
            page.includes(`r${ROUNDS - 1} ${field}`),
            `${field} ${url}`,
          );
        }
      }
      // Revisions: one unpublished per accepted save, one published per field
      // in a publish answer (plus the seeded value, once per field). Read from
      // the store itself: the history listing shows a draft that went public
      // unchanged once, as its published revision.
      let drafted = 0, published = 0;
      const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
      const store = new PostgresContentStore(sql);
      for (const field of FIELDS) {
        const revs = await store.revisions("pages", "home", field, 1000);
        const listed = await revisions(urls[field.length % 3], cookie, field);
        assert.ok(listed.length <= revs.length, field);
        const byEditors = revs.filter((r) => r.editor !== null);
        drafted += byEditors.filter((r) => !r.published).length;
        published += byEditors.filter((r) => r.published).length;
        assert.equal(revs.length - byEditors.length, 1, field);
      }
      await sql.end();
      assert.equal(drafted, accepted);
      assert.equal(published, publishedFields);

      // A field another editor changed after the page was loaded: 409, and
      // nothing of the publish goes public.
      assert.equal(await save(urls[0], cookie, "title", "seen by A"), 204);
      assert.equal(await save(urls[0], cookie, "features.0", "A's item"), 204);
      const before = await (await fetch(`${urls[1]}/`)).text();
      assert.equal(await save(urls[1], cookie, "title", "B changed it"), 204);
      const stale = await publish(urls[2], cookie, {
        fields: ["pages:home:title", "pages:home:features.0"],
        versions: { "pages:home:title": contentVersion("seen by A") },
      });
      assert.equal(stale.status, 409);
      assert.deepEqual(
        stale.body.conflicts.map((c: { field: string }) => c.field),
        ["pages:home:title"],
      );
      assert.equal(await (await fetch(`${urls[1]}/`)).text(), before);
      console.log(
        `3 instances, ${ROUNDS} rounds: ${accepted} draft saves, ${publishedFields} fields published, 0 lost`,
      );
    } finally {
      await Promise.all(instances.map((x) => stopDemo(x)));
      for (const dir of [...dirs, clientDir]) {
        await Deno.remove(dir, { recursive: true });
      }
    }
  },
);

/** Drafts every field, kills the process during publish-all, restarts. */
async function crashRounds(
  env: Record<string, string>,
  delays: number[],
): Promise<string[]> {
  const outcomes: string[] = [];
  for (const [round, delay] of delays.entries()) {
    let instance = await spawn(env);
    try {
      const cookie = await login(instance.url);
      for (const field of FIELDS) {
        assert.equal(
          await save(instance.url, cookie, field, `crash${round} ${field}`),
          204,
        );
      }
      const pending = fetch(`${instance.url}/api/cms/publish`, {
        method: "POST",
        headers: editorHeaders(instance.url, cookie),
        body: "{}",
      }).then((r) => r.body?.cancel(), () => {});
      await new Promise((r) => setTimeout(r, delay));
      await stopDemo(instance, "SIGKILL");
      await pending;
      instance = await spawn(env);
      const after = await login(instance.url);
      const page = await (await fetch(`${instance.url}/`)).text();
      const live = FIELDS.filter((f) => page.includes(`crash${round} ${f}`));
      const left = await drafts(instance.url, after);
      if (live.length === FIELDS.length) {
        assert.deepEqual(left, []);
        outcomes.push("all");
      } else {
        assert.deepEqual(live, [], `partly published: ${live}`);
        assert.equal(left.length, FIELDS.length);
        // Finish it, so the next round starts clean.
        assert.equal((await publish(instance.url, after)).status, 200);
        outcomes.push("none");
      }
    } finally {
      await stopDemo(instance, "SIGKILL");
    }
  }
  return outcomes;
}

const DELAYS = [0, 3, 8, 20];

Deno.test("publish-all under SIGKILL on Deno KV: all or nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-crash-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-crash-client-" });
  try {
    await buildClient(clientDir);
    const outcomes = await crashRounds(
      baseEnv({ CMS_DATA_DIR: dir, CMS_CLIENT_DIR: clientDir }),
      DELAYS,
    );
    console.log(`KV kill outcomes by delay ${DELAYS}: ${outcomes}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(clientDir, { recursive: true });
  }
});

Deno.test("publish-all under SIGKILL on PostgreSQL: all or nothing", {
  ignore: !HAS_POSTGRES,
}, async () => {
  await using pg = await startPostgres();
  const dir = await Deno.makeTempDir({ prefix: "cms-crash-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-crash-client-" });
  try {
    await buildClient(clientDir);
    const outcomes = await crashRounds(
      baseEnv({
        CMS_DATA_DIR: dir,
        CMS_CLIENT_DIR: clientDir,
        CMS_DATABASE_URL: await pg.database(),
      }),
      DELAYS,
    );
    console.log(`PostgreSQL kill outcomes by delay ${DELAYS}: ${outcomes}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(clientDir, { recursive: true });
  }
});
