/**
 * The same event checks as `events_kv_test.ts` against the demo under
 * `deno serve --parallel` (`demo/serve.ts`, 3 workers on one KV file):
 * streams land on whichever worker the kernel picks, and all of them see
 * each other's presence and saves, and resume with `Last-Event-ID`. With
 * six streams over three workers, a bus that stopped at the worker's edge
 * would show some stream fewer than six editors.
 */
import { checkEvents, percentile, serveParallel } from "./_kv_events.ts";

Deno.test("events under deno serve --parallel (3 workers): presence, saves, Last-Event-ID resume", async () => {
  await using site = await serveParallel(3, {
    CMS_EVENTS_HEARTBEAT_MS: "2000",
  });
  const { latencies } = await checkEvents(site, { streams: 6, saves: 6 });
  console.log(
    `save → event on any worker: p95 ${
      Math.round(percentile(latencies, 95))
    } ms (n=${latencies.length})`,
  );
});
