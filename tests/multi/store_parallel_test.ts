/**
 * The store checks of `store_kv_test.ts` under `deno serve --parallel`
 * (`demo/serve.ts`, 3 workers on one KV file, started at the same moment on
 * a fresh data folder): a session made on one worker is good on all;
 * concurrent draft saves from separate connections (the kernel spreads
 * them over the workers) are all kept; drafts are listed and published
 * across workers; five schedules fire exactly once each, with a scheduler
 * running in every worker (counted from the `schedule` events one editor's
 * stream receives: every worker's firing reaches it over the KV bus); and
 * SIGTERM stops the workers, schedulers and all.
 */
import assert from "node:assert/strict";
import { editorHeaders, login, revisions } from "../helpers/demo.ts";
import { openEvents } from "../helpers/sse.ts";
import { serveParallel } from "./_kv_events.ts";

const FIELDS = ["title", "features.0", "features.1", "features.2"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client with its own connections, so its requests reach any worker. */
function client() {
  const http = Deno.createHttpClient({});
  return {
    fetch: (url: string, init: RequestInit = {}) =>
      fetch(url, { ...init, client: http }),
    [Symbol.dispose]: () => http.close(),
  };
}

Deno.test("store under deno serve --parallel (3 workers on one KV file): sessions, saves kept, drafts, 5 schedules once each", async () => {
  await using site = await serveParallel(3, {
    CMS_PUBLISH: "draft",
    CMS_PREVIEW_SECRET: "p".repeat(40),
    CMS_SCHEDULE_POLL_MS: "50",
    CMS_EVENTS_HEARTBEAT_MS: "2000",
  }, { fresh: true });
  const [url] = site.urls;
  const cookie = await login(url);
  const headers = editorHeaders(url, cookie);
  const clients = Array.from({ length: 6 }, client);
  try {
    // The session is good wherever a connection lands.
    for (const c of clients) {
      const res = await c.fetch(`${url}/api/cms/drafts`, { headers });
      assert.equal(res.status, 200, "session refused on some worker");
      await res.body?.cancel();
    }
    // Concurrent draft saves from six connections, 4 rounds.
    const acknowledged = new Map<string, number>();
    for (let round = 0; round < 4; round++) {
      await Promise.all(clients.flatMap((c, i) =>
        FIELDS.map(async (field) => {
          const res = await c.fetch(`${url}/api/cms/save`, {
            method: "PATCH",
            headers,
            body: JSON.stringify({
              collection: "pages",
              key: "home",
              field,
              value: `r${round} c${i}`,
            }),
          });
          await res.body?.cancel();
          assert.equal(res.status, 204, `${field} from client ${i}`);
          acknowledged.set(field, (acknowledged.get(field) ?? 0) + 1);
        })
      ));
    }
    for (const field of FIELDS) {
      const revs = await revisions(url, cookie, field);
      assert.equal(
        revs.filter((r) => r.editor !== null).length,
        acknowledged.get(field),
        field,
      );
    }
    // Every connection sees all the drafts; one publishes them.
    for (const c of clients) {
      const res = await c.fetch(`${url}/api/cms/drafts`, { headers });
      const listed = (await res.json()).drafts.map((d: { field: string }) =>
        d.field
      );
      assert.deepEqual(
        listed.sort(),
        FIELDS.map((f) => `pages:home:${f}`).sort(),
      );
    }
    const published = await clients[2].fetch(`${url}/api/cms/publish`, {
      method: "POST",
      headers,
      body: "{}",
    });
    assert.equal(published.status, 200);
    assert.equal((await published.json()).published.length, FIELDS.length);

    // Five schedules, made over different connections, due together.
    const stream = await openEvents(`${url}/api/cms/events?page=/`, headers);
    await stream.next((e) => e.event === "hello");
    const at = new Date(Date.now() + 1500).toISOString();
    const ids: string[] = [];
    for (const [i, field] of FIELDS.concat("summary").entries()) {
      const c = clients[i % clients.length];
      const value = field === "summary" ? `<p>s${i}</p>` : `s${i}`;
      const saved = await c.fetch(`${url}/api/cms/save`, {
        method: "PATCH",
        headers,
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field,
          value,
        }),
      });
      assert.equal(saved.status, 204, await saved.text());
      const made = await c.fetch(`${url}/api/cms/publish`, {
        method: "POST",
        headers,
        body: JSON.stringify({ at, fields: [`pages:home:${field}`] }),
      });
      const body = await made.json();
      assert.equal(made.status, 202, JSON.stringify(body));
      ids.push(body.id);
    }
    try {
      for (const id of ids) {
        await stream.next(
          (e) => e.event === "schedule" && JSON.parse(e.data).id === id,
          20_000,
        );
      }
      // Time for a second firing by another worker to arrive, were there one.
      await sleep(2000);
      const fired = stream.events.filter((e) => e.event === "schedule")
        .map((e) => JSON.parse(e.data) as { id: string; failed: boolean });
      for (const id of ids) {
        const mine = fired.filter((f) => f.id === id);
        assert.equal(mine.length, 1, `schedule ${id} fired ${mine.length}×`);
        assert.equal(mine[0].failed, false);
      }
    } finally {
      stream.close();
    }
    const page = await (await fetch(`${url}/`)).text();
    for (const text of ["s0", "s1", "s2", "s3", "s4"]) {
      assert.ok(page.includes(text), `${text} published`);
    }
  } finally {
    for (const c of clients) c[Symbol.dispose]();
  }
  // SIGTERM stops every worker: schedulers and the bus stop with the server.
  site.child.kill("SIGTERM");
  const timer = setTimeout(() => site.child.kill("SIGKILL"), 15_000);
  const status = await site.child.status;
  clearTimeout(timer);
  assert.equal(status.signal, null, "deno serve stopped only by SIGKILL");
});
