/**
 * Scheduled publishing across processes: three demo processes
 * (`CMS_PUBLISH=draft`) on one PostgreSQL, every one polling often, fire
 * each schedule exactly once (counted in the published revisions); a
 * schedule made before every instance stopped, due while they were down,
 * fires at the next start.
 */
import assert from "node:assert/strict";
import { buildClient } from "../../tools/build_client.ts";
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
import type { ScheduleListing } from "../../core/protocol/mod.ts";

const FIELDS = ["title", "features.0", "features.1"];

/** Every instance looks often, so all three race for each schedule. */
const env = (extra: Record<string, string>) =>
  draftDemoEnv({ CMS_SCHEDULE_POLL_MS: "50", ...extra });

async function save(url: string, cookie: string, field: string, text: string) {
  const res = await fetch(`${url}/api/cms/save`, {
    method: "PATCH",
    headers: editorHeaders(url, cookie),
    body: JSON.stringify({
      collection: "pages",
      key: "home",
      field,
      value: text,
    }),
  });
  assert.equal(res.status, 204, await res.text());
}

async function schedule(url: string, cookie: string, body: unknown) {
  const res = await fetch(`${url}/api/cms/publish`, {
    method: "POST",
    headers: editorHeaders(url, cookie),
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()).id as string;
}

async function listing(url: string, cookie: string): Promise<ScheduleListing> {
  const res = await fetch(`${url}/api/cms/schedule`, {
    headers: editorHeaders(url, cookie),
  });
  assert.equal(res.status, 200);
  return await res.json();
}

/** Waits (at most 20 s) until no schedule is pending. */
async function drained(url: string, cookie: string) {
  for (let i = 0; i < 200; i++) {
    const { schedules } = await listing(url, cookie);
    if (!schedules.some((s) => s.state === "pending")) return schedules;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("schedules still pending after 20 s");
}

async function publishedBy(url: string, cookie: string, field: string) {
  return (await revisions(url, cookie, field))
    .filter((r) => r.published !== undefined && r.editor !== null).length;
}

Deno.test(
  "schedules on 3 instances, one PostgreSQL: each fires once; a missed one fires at the next start",
  { ignore: !HAS_POSTGRES },
  async () => {
    await using pg = await startPostgres();
    const clientDir = await Deno.makeTempDir({ prefix: "cms-sched-client-" });
    const dirs: string[] = [];
    let instances: DemoProcess[] = [];
    const everyInstance: DemoProcess[] = [];
    try {
      await buildClient(clientDir);
      const databaseUrl = await pg.database();
      const start = async () => {
        const dir = await Deno.makeTempDir({ prefix: "cms-sched-multi-" });
        dirs.push(dir);
        const demo = await spawnDemo(
          env({
            CMS_DATABASE_URL: databaseUrl,
            CMS_DATA_DIR: dir,
            CMS_CLIENT_DIR: clientDir,
          }),
          { clearEnv: true, stderr: "null" },
        );
        everyInstance.push(demo);
        return demo;
      };
      for (let i = 0; i < 3; i++) instances.push(await start());
      const urls = instances.map((x) => x.url);
      const cookie = await login(urls[0]);

      // Three rounds; each round's schedules are made on different instances.
      const ROUNDS = 3;
      for (let round = 0; round < ROUNDS; round++) {
        for (const field of FIELDS) {
          await save(urls[round % 3], cookie, field, `${field} r${round}`);
        }
        const at = new Date(Date.now() + 300).toISOString();
        await schedule(urls[round % 3], cookie, {
          at,
          fields: ["pages:home:title"],
        });
        await schedule(urls[(round + 1) % 3], cookie, {
          at,
          fields: ["pages:home:features.0", "pages:home:features.1"],
        });
        const left = await drained(urls[(round + 2) % 3], cookie);
        assert.deepEqual(left, [], JSON.stringify(left));
      }
      for (const field of FIELDS) {
        assert.equal(await publishedBy(urls[0], cookie, field), ROUNDS, field);
      }
      const page = await (await fetch(`${urls[1]}/`)).text();
      assert.match(page, new RegExp(`title r${ROUNDS - 1}`));

      // A schedule made, then every instance stops before its time.
      await save(urls[0], cookie, "title", "title missed");
      const at = Date.now() + 1500;
      await schedule(urls[0], cookie, { at: new Date(at).toISOString() });
      await Promise.all(instances.map((x) => stopDemo(x, "SIGKILL")));
      instances = [];
      for (let i = 0; i < 100 && Date.now() <= at; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(Date.now() > at);
      instances.push(await start());
      const url = instances[0].url;
      const after = await login(url);
      assert.deepEqual(await drained(url, after), []);
      assert.equal(await publishedBy(url, after, "title"), ROUNDS + 1);
      assert.match(await (await fetch(`${url}/`)).text(), /title missed/);
      // Every firing logs one line: each schedule fired exactly once, on
      // one instance, and none fired a second time (it would find no
      // drafts left and log a failure).
      await Promise.all(instances.map((x) => stopDemo(x)));
      const logs = (await Promise.all(everyInstance.map((x) => x.output)))
        .join("\n");
      const count = (msg: string) =>
        logs.split("\n").filter((l) => l.includes(`"msg":"${msg}"`)).length;
      assert.equal(count("schedule published"), ROUNDS * 2 + 1);
      assert.equal(count("schedule failed"), 0);
    } finally {
      await Promise.all(instances.map((x) => stopDemo(x, "SIGKILL")));
      for (const dir of [clientDir, ...dirs]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
);
