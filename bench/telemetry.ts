/**
 * Save handler throughput with telemetry on vs off, in the same run.
 *
 * Deno reads `OTEL_DENO` at start, so each side runs in its own child
 * process of this script: "on" with `OTEL_DENO=true` exporting OTLP/HTTP
 * JSON to a receiver in this process (spans, metrics and logs all go out),
 * "off" without. Both sides run the same saves (a plain field, and every
 * tenth a rich one), as requests with a `Content-Length` like those that
 * come over HTTP, through the handler called directly, and write the same
 * JSON log lines.
 *
 * Two stores:
 * - `kv`: Deno KV in a file, as the demo and a one-instance host run it. The
 *   goal (on ≥ 90% of off's throughput) is judged here.
 * - `memory`: the handler alone, whose save costs a tenth of that; it shows
 *   telemetry's fixed cost per request at its largest share.
 *
 * The machine is noisy (a shared VM), so sides alternate in pairs whose
 * order flips each round; a pair's ratio compares neighbours in time, and
 * the median of the pairs' ratios is reported.
 *
 * Run: `deno run -A bench/telemetry.ts`; `run()` returns the numbers for
 * bench/run.ts.
 *
 * @module
 */
import { setLogger } from "../server/ops/mod.ts";
import { createSaveHandler } from "../server/save/mod.ts";
import {
  type ContentStore,
  KvContentStore,
  MemoryContentStore,
} from "../server/store/mod.ts";
import { defineContent } from "../core/content.ts";

/** One store's numbers. */
export interface TelemetryStoreResult {
  /** `kv` or `memory`. */
  store: string;
  /** Median time per save with telemetry on, in ms. */
  onMs: number;
  /** Median time per save with telemetry off, in ms. */
  offMs: number;
  /** Median of the pairs' on/off (goal ≤ 1.11, i.e. ≥ 90% throughput). */
  ratio: number;
}

/** What `run()` measured. */
export interface TelemetryBenchResult {
  /** Per store: `kv` first (the goal), then `memory`. */
  stores: TelemetryStoreResult[];
  /** Saves timed per child (after a warm-up). */
  saves: number;
}

const BLOCKS = 10;
const BLOCK = 300;
const WARMUP = 800;
const PAIRS = 7;

/** Child mode: time BLOCKS × BLOCK saves, print the median ms per save. */
async function child(storeName: string): Promise<void> {
  // Both sides write the JSON request log, as a production host would.
  setLogger("json");
  let kv: Deno.Kv | undefined;
  let path: string | undefined;
  let store: ContentStore;
  if (storeName === "kv") {
    path = await Deno.makeTempFile({ prefix: "cms-bench-otel-" });
    kv = await Deno.openKv(path);
    store = new KvContentStore(kv);
  } else {
    store = new MemoryContentStore();
  }
  const handler = createSaveHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: defineContent({ pages: { title: "plain", body: "rich" } }),
    store,
  });
  const save = (i: number) => {
    const body = JSON.stringify({
      collection: "pages",
      key: `k${i % 50}`,
      field: i % 10 === 0 ? "body" : "title",
      value: i % 10 === 0 ? `<p>Rich <b>${i}</b></p>` : `Title ${i}`,
    });
    return handler(
      new Request("http://127.0.0.1/api/cms/save", {
        method: "PATCH",
        headers: {
          "Content-Type": "application/json",
          "Content-Length": String(new TextEncoder().encode(body).length),
        },
        body,
      }),
    );
  };
  try {
    let i = 0;
    for (; i < WARMUP; i++) await save(i);
    const blocks: number[] = [];
    for (let b = 0; b < BLOCKS; b++) {
      const t0 = performance.now();
      for (let j = 0; j < BLOCK; j++, i++) {
        const res = await save(i);
        if (res.status !== 204) throw new Error(`save answered ${res.status}`);
      }
      blocks.push((performance.now() - t0) / BLOCK);
    }
    console.log(JSON.stringify({ msPerSave: median(blocks) }));
  } finally {
    kv?.close();
    if (path) await Deno.remove(path).catch(() => {});
  }
}

async function side(
  on: boolean,
  store: string,
  endpoint: string,
): Promise<number> {
  const env: Record<string, string> = { CMS_BENCH_CHILD: store };
  if (on) {
    Object.assign(env, {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_METRIC_EXPORT_INTERVAL: "1000",
    });
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", new URL(import.meta.url).pathname],
    env,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("bench child failed");
  const text = new TextDecoder().decode(out.stdout);
  const last = text.trim().split("\n").filter((l) => l.includes("msPerSave"))
    .pop();
  return JSON.parse(last!).msPerSave;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Runs both sides in PAIRS pairs per store. */
export async function run(): Promise<TelemetryBenchResult> {
  let received = 0;
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      received += (await req.arrayBuffer()).byteLength;
      return Response.json({});
    },
  );
  try {
    const endpoint = `http://127.0.0.1:${receiver.addr.port}`;
    const stores: TelemetryStoreResult[] = [];
    for (const store of ["kv", "memory"]) {
      const on: number[] = [];
      const off: number[] = [];
      const ratios: number[] = [];
      for (let r = 0; r < PAIRS; r++) {
        const first = r % 2 === 0;
        const a = await side(first, store, endpoint);
        const b = await side(!first, store, endpoint);
        const [onMs, offMs] = first ? [a, b] : [b, a];
        on.push(onMs);
        off.push(offMs);
        ratios.push(onMs / offMs);
      }
      stores.push({
        store,
        onMs: median(on),
        offMs: median(off),
        ratio: median(ratios),
      });
    }
    if (received === 0) throw new Error("telemetry on exported nothing");
    return { stores, saves: BLOCKS * BLOCK };
  } finally {
    await receiver.shutdown();
  }
}

if (import.meta.main) {
  const childStore = Deno.env.get("CMS_BENCH_CHILD");
  if (childStore) {
    await child(childStore);
  } else {
    const r = await run();
    for (const s of r.stores) {
      console.log(
        `save handler, ${s.store} store, ${r.saves} saves: telemetry on ${
          s.onMs.toFixed(4)
        } ms/save, off ${s.offMs.toFixed(4)} ms/save (+${
          ((s.onMs - s.offMs) * 1000).toFixed(0)
        } µs), on/off ${s.ratio.toFixed(3)} (throughput ${
          (100 / s.ratio).toFixed(1)
        }% of off${s.store === "kv" ? "; goal >= 90%" : ""})`,
      );
    }
  }
}
