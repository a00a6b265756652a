/**
 * Bench: how late a schedule fires on an idle instance. 20 schedules, one
 * after another, each 300 ms ahead, made through the publish endpoint
 * (which wakes the scheduler) on Deno KV in a file and on the memory
 * store; the lateness is the time from `at` to the end of the publish
 * (`onFire`). Baseline in the same run: a bare `setTimeout` of the same
 * delay. Goal: the median lateness ≤ 1 s (default poll of 5 s, so the
 * precise timer is what makes it).
 *
 * Run: `deno run -A bench/schedule.ts`
 *
 * @module
 */
import { createPublishHandler, Scheduler } from "../server/drafts/mod.ts";
import {
  KvContentStore,
  MemoryContentStore,
  type ScheduleFiring,
  type ScheduleStore,
} from "../server/store/mod.ts";
import { setLogger } from "../server/ops/mod.ts";

const ROUNDS = 20;
const AHEAD_MS = 300;
const ORIGIN = "http://127.0.0.1";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? s[s.length >> 1]
    : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Median lateness of ROUNDS schedules on `store`, in ms. */
async function lateness(store: ScheduleStore): Promise<number> {
  let resolve: (f: ScheduleFiring) => void = () => {};
  const scheduler = new Scheduler({ store, onFire: (f) => resolve(f) });
  const publish = createPublishHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { title: "plain" } },
    store,
    scheduler,
  });
  await scheduler.start();
  const late: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      await store.updateDraft(
        "pages",
        "home",
        (r) => ({ ...r, title: `t${i}` }),
        {
          field: "title",
          editor: "Ada",
        },
      );
      const fired = new Promise<ScheduleFiring>((r) => resolve = r);
      const at = Date.now() + AHEAD_MS;
      const res = await publish(
        new Request(`${ORIGIN}/api/cms/publish`, {
          method: "POST",
          headers: { Origin: ORIGIN, "Content-Type": "application/json" },
          body: JSON.stringify({ at: new Date(at).toISOString() }),
        }),
      );
      if (res.status !== 202) throw new Error(`publish: ${res.status}`);
      await res.body?.cancel();
      const firing = await fired;
      if (firing.failed) throw new Error(firing.failed.reason);
      late.push(Date.now() - at);
    }
  } finally {
    await scheduler.stop();
  }
  return median(late);
}

/** Median lateness of a bare timer of the same delay, in ms. */
async function timerBaseline(): Promise<number> {
  const late: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const at = Date.now() + AHEAD_MS;
    await new Promise((r) => setTimeout(r, AHEAD_MS));
    late.push(Date.now() - at);
  }
  return median(late);
}

/** Runs the bench; resolves to the medians in ms. */
export async function run(): Promise<
  { baselineMs: number; memoryMs: number; kvMs: number }
> {
  setLogger(() => {});
  const baselineMs = await timerBaseline();
  const memoryMs = await lateness(new MemoryContentStore());
  const dir = await Deno.makeTempDir({ prefix: "cms-bench-sched-" });
  try {
    using kv = await Deno.openKv(`${dir}/c.kv`);
    const kvMs = await lateness(new KvContentStore(kv));
    return { baselineMs, memoryMs, kvMs };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  const goal = (ms: number) => ms <= 1000 ? "ok" : "MISSED";
  console.log(`schedule lateness, median of ${ROUNDS} (goal ≤ 1000 ms):`);
  console.log(`  bare setTimeout baseline: ${r.baselineMs.toFixed(1)} ms`);
  console.log(
    `  memory store: ${r.memoryMs.toFixed(1)} ms ${goal(r.memoryMs)}`,
  );
  console.log(`  Deno KV (file): ${r.kvMs.toFixed(1)} ms ${goal(r.kvMs)}`);
}
