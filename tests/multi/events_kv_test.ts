/**
 * Editor events across 3 demo processes on one Deno KV file (the default
 * store, with `KvEventBus`): presence on every process, a save on one
 * reaching the streams on the others (latency printed; the goal, p95 ≤ 1 s,
 * is asserted by `bench/kv_bus.ts`), `Last-Event-ID` resumed on another
 * process, a foreign id answered with `resync`.
 */
import { checkEvents, percentile, spawnKvProcesses } from "./_kv_events.ts";

Deno.test("events across 3 processes on one KV file: presence, saves, Last-Event-ID resume", async () => {
  await using site = await spawnKvProcesses(3, {
    CMS_EVENTS_HEARTBEAT_MS: "2000",
  });
  const { latencies } = await checkEvents(site, { streams: 3, saves: 9 });
  console.log(
    `save → event on another process: p50 ${
      Math.round(percentile(latencies, 50))
    } ms, p95 ${
      Math.round(percentile(latencies, 95))
    } ms (n=${latencies.length})`,
  );
});
