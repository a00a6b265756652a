/**
 * The same event checks as `events_kv_test.ts` against the demo under
 * `deno serve --parallel` (`demo/serve.ts`, 3 workers on one KV file):
 * streams land on whichever worker the kernel picks, and all of them see
 * each other's presence and saves, and resume with `Last-Event-ID`. With
 * six streams over three workers, a bus that stopped at the worker's edge
 * would show some stream fewer than six editors. Then SIGTERM: open
 * streams end with a `retry:` hint and the workers stop at once (deno
 * serve waits for open requests, and an event stream never ends alone).
 */
import assert from "node:assert/strict";
import { editorHeaders, login } from "../helpers/demo.ts";
import { openEvents } from "../helpers/sse.ts";
import { checkEvents, percentile, serveParallel } from "./_kv_events.ts";

Deno.test("events under deno serve --parallel (3 workers): presence, saves, Last-Event-ID resume; SIGTERM ends streams", async () => {
  await using site = await serveParallel(3, {
    CMS_EVENTS_HEARTBEAT_MS: "2000",
  });
  const { latencies } = await checkEvents(site, { streams: 6, saves: 6 });
  console.log(
    `save → event on any worker: p95 ${
      Math.round(percentile(latencies, 95))
    } ms (n=${latencies.length})`,
  );
  const [url] = site.urls;
  const cookie = await login(url);
  const streams = await Promise.all(
    [1, 2, 3, 4].map(() =>
      openEvents(`${url}/api/cms/events?page=/`, editorHeaders(url, cookie))
    ),
  );
  for (const s of streams) await s.next((e) => e.event === "presence");
  const start = performance.now();
  site.child.kill("SIGTERM");
  const timer = setTimeout(() => site.child.kill("SIGKILL"), 10_000);
  const status = await site.child.status;
  clearTimeout(timer);
  const ms = performance.now() - start;
  assert.equal(status.signal, null, `stopped only by SIGKILL after ${ms} ms`);
  for (const s of streams) {
    await s.ended;
    assert.ok(s.events.some((e) => e.event === "retry"), "retry hint sent");
  }
  console.log(`deno serve stopped ${Math.round(ms)} ms after SIGTERM`);
});
