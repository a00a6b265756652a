/**
 * Editor events across processes on one Deno KV file (`KvEventBus`).
 *
 * (a) save → `saved` event on another process: three demo processes on one
 *     KV file, a stream on each; saves rotate over the processes (after a
 *     random pause up to 1 s, so they do not keep step with the polls) and
 *     each is timed from its 204 to the event's arrival on the streams of
 *     the two other processes. Goal: p95 ≤ 1 s.
 * (b) idle cost: KV reads per second of one subscribed bus with nothing
 *     happening, over 10 s. Goal ≤ 4.
 * (c) log size: entries left in the log after 5000 messages with the
 *     default `keep` (1000). Goal ≤ keep + one trim batch (64).
 *
 * Run: `deno run -A bench/kv_bus.ts`; `run()` returns the numbers.
 *
 * @module
 */
import { KvEventBus } from "../server/events/mod.ts";
import {
  checkEvents,
  percentile,
  spawnKvProcesses,
} from "../tests/multi/_kv_events.ts";

const SAVES = 30;
const IDLE_MS = 10_000;
const MESSAGES = 5000;

/** What `run()` measured. */
export interface KvBusBenchResult {
  /** Save → event on another process, median (ms). */
  eventP50: number;
  /** … 95th percentile (ms). */
  eventP95: number;
  /** Deliveries measured. */
  deliveries: number;
  /** KV reads per second of an idle subscribed bus. */
  idleReadsPerSecond: number;
  /** Log entries left after {@linkcode MESSAGES} messages. */
  logEntries: number;
  /** The most the log may hold (keep + one trim batch). */
  logGoal: number;
}

/** Runs the three measurements. */
export async function run(): Promise<KvBusBenchResult> {
  let latencies: number[];
  {
    await using site = await spawnKvProcesses(3);
    ({ latencies } = await checkEvents(site, {
      streams: 3,
      saves: SAVES,
      pauseMs: 1000,
    }));
  }
  const dir = await Deno.makeTempDir({ prefix: "cms-kvbus-bench-" });
  try {
    const kv = await Deno.openKv(`${dir}/events.kv`);
    try {
      const idle = new KvEventBus(kv);
      const stop = await idle.subscribe(() => {});
      const before = idle.reads;
      await new Promise((r) => setTimeout(r, IDLE_MS));
      const idleReadsPerSecond = (idle.reads - before) / (IDLE_MS / 1000);
      stop();
      const writer = new KvEventBus(kv);
      for (let i = 0; i < MESSAGES; i++) {
        await writer.publish({ type: "saved", field: `p:k:f${i}`, by: "A" });
      }
      // The last trim runs after its append resolved.
      await new Promise((r) => setTimeout(r, 500));
      let logEntries = 0;
      for await (const _ of kv.list({ prefix: ["cms_events", "log"] })) {
        logEntries++;
      }
      return {
        eventP50: percentile(latencies, 50),
        eventP95: percentile(latencies, 95),
        deliveries: latencies.length,
        idleReadsPerSecond,
        logEntries,
        logGoal: 1000 + 64,
      };
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  console.log(
    `save -> event on another process (3 processes, one KV file): p50 ${
      r.eventP50.toFixed(0)
    } ms, p95 ${
      r.eventP95.toFixed(0)
    } ms (n=${r.deliveries}; goal p95 <= 1000 ms)`,
  );
  console.log(
    `idle KV reads per second per process: ${r.idleReadsPerSecond} (goal <= 4)`,
  );
  console.log(
    `log entries after ${MESSAGES} messages: ${r.logEntries} (goal <= ${r.logGoal})`,
  );
}
