/**
 * Three demo processes (`CMS_PUBLISH=draft`) on one data folder, so one KV
 * file: concurrent draft saves across processes all kept (revisions =
 * acknowledged saves), drafts listed and published across processes, five
 * schedules fired exactly once each while one process is SIGKILLed, and a
 * process SIGKILLed in the middle of saves leaving a store every other
 * process (and a new one) reads.
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

const FIELDS = ["title", "features.0", "features.1", "features.2"];

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
  await res.body?.cancel();
  return res.status;
}

async function post(url: string, cookie: string, path: string, body: unknown) {
  const res = await fetch(`${url}/api/cms/${path}`, {
    method: "POST",
    headers: editorHeaders(url, cookie),
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function drafts(url: string, cookie: string): Promise<string[]> {
  const res = await fetch(`${url}/api/cms/drafts`, {
    headers: editorHeaders(url, cookie),
  });
  assert.equal(res.status, 200);
  return (await res.json()).drafts.map((d: { field: string }) => d.field)
    .sort();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("3 processes on one KV file: saves kept, drafts across processes, 5 schedules once each through a SIGKILL, a SIGKILL mid-save leaves a readable store", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-kvmulti-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-kvmulti-client-" });
  const every: DemoProcess[] = [];
  const start = async () => {
    const demo = await spawnDemo(
      draftDemoEnv({
        CMS_DATA_DIR: dir,
        CMS_CLIENT_DIR: clientDir,
        CMS_SCHEDULE_POLL_MS: "50",
      }),
      { clearEnv: true, stderr: "null" },
    );
    every.push(demo);
    return demo;
  };
  try {
    await buildClient(clientDir);
    const sites = await Promise.all([start(), start(), start()]);
    const urls = sites.map((s) => s.url);
    const cookie = await login(urls[0]);

    // Concurrent draft saves, every field from every process, 6 rounds.
    const ROUNDS = 6;
    const acknowledged = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(urls.flatMap((url, p) =>
        FIELDS.map(async (field) => {
          const status = await save(url, cookie, field, `r${round} p${p}`);
          assert.equal(status, 204, `${field} on ${p}`);
          acknowledged.set(field, (acknowledged.get(field) ?? 0) + 1);
        })
      ));
    }
    for (const field of FIELDS) {
      const revs = await revisions(
        urls[(FIELDS.indexOf(field)) % 3],
        cookie,
        field,
      );
      const bySaves = revs.filter((r) => r.editor !== null).length;
      assert.equal(bySaves, acknowledged.get(field), field);
    }
    // Drafts made everywhere are listed on each process; one publishes.
    for (const url of urls) {
      assert.deepEqual(
        await drafts(url, cookie),
        FIELDS.map((f) => `pages:home:${f}`).sort(),
      );
    }
    const published = await post(urls[1], cookie, "publish", {});
    assert.equal(published.status, 200);
    assert.equal(published.body.published.length, FIELDS.length);
    for (const url of urls) {
      assert.deepEqual(await drafts(url, cookie), []);
      assert.match(await (await fetch(`${url}/`)).text(), /r5 p\d/);
    }

    // Five schedules made on different processes, due in 1.5 s; process 2
    // is SIGKILLed just before they are due.
    const at = Date.now() + 1500;
    const scheduledFields = [
      "title",
      "features.0",
      "features.1",
      "features.2",
      "summary",
    ];
    for (const [i, field] of scheduledFields.entries()) {
      const text = field === "summary" ? "<p>s4</p>" : `s${i}`;
      assert.equal(await save(urls[i % 3], cookie, field, text), 204);
      const made = await post(urls[i % 3], cookie, "publish", {
        at: new Date(at).toISOString(),
        fields: [`pages:home:${field}`],
      });
      assert.equal(made.status, 202, JSON.stringify(made.body));
    }
    await sleep(Math.max(0, at - Date.now() - 100));
    await stopDemo(sites[2], "SIGKILL");
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${urls[0]}/api/cms/schedule`, {
        headers: editorHeaders(urls[0], cookie),
      });
      const { schedules } = await res.json();
      if (schedules.length === 0) break;
      await sleep(100);
    }
    const page = await (await fetch(`${urls[1]}/`)).text();
    for (const text of ["s0", "s1", "s2", "s3", "s4"]) {
      assert.ok(page.includes(text), `${text} published`);
    }

    // SIGKILL process 1 in the middle of a burst of saves.
    const saved = async (url: string) =>
      await Promise.all(
        FIELDS.map(async (f) =>
          (await revisions(url, cookie, f)).filter((r) => r.editor !== null)
            .length
        ),
      );
    const before = await saved(urls[0]);
    // Killed once the first save is acknowledged, the others in flight.
    let first!: () => void;
    const firstAcked = new Promise<void>((r) => first = r);
    const burst = Array.from(
      { length: 40 },
      (_, i) =>
        save(urls[1], cookie, FIELDS[i % 4], `kill ${i}`).then((s) => {
          if (s === 204) first();
          return s;
        }, () => 0),
    );
    await Promise.race([firstAcked, sleep(5000)]);
    await stopDemo(sites[1], "SIGKILL");
    const statuses = await Promise.all(burst);
    const acked = statuses.filter((s) => s === 204).length;
    console.log(`SIGKILL mid-burst: ${acked} of 40 saves acknowledged`);
    // The store reads on the survivor and on a process started after, and
    // every acknowledged save is in it (one cut short may be, too).
    const fresh = await start();
    for (const url of [urls[0], fresh.url]) {
      const res = await fetch(`${url}/?edit`, { headers: { Cookie: cookie } });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const after = await saved(url);
      FIELDS.forEach((field, f) => {
        const ok = statuses.filter((s, i) => s === 204 && i % 4 === f);
        const added = after[f] - before[f];
        assert.ok(added >= ok.length && added <= 10, `${field}: ${added}`);
      });
    }
    assert.ok(acked >= 1 && acked < 40, `${acked} acknowledged`);
    assert.equal(await save(fresh.url, cookie, "title", "after"), 204);

    // Each schedule fired exactly once: one log line each, none failed.
    await Promise.all(every.map((s) => stopDemo(s)));
    const logs = (await Promise.all(every.map((s) => s.output))).join("\n");
    const count = (msg: string) =>
      logs.split("\n").filter((l) => l.includes(`"msg":"${msg}"`)).length;
    assert.equal(count("schedule published"), 5);
    assert.equal(count("schedule failed"), 0);
  } finally {
    await Promise.all(every.map((s) => stopDemo(s, "SIGKILL")));
    for (const d of [dir, clientDir]) {
      await Deno.remove(d, { recursive: true }).catch(() => {});
    }
  }
});
