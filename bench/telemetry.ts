/**
 * Save handler throughput with telemetry on vs off, in the same run.
 *
 * Deno reads `OTEL_DENO` at start, so each side runs in its own child
 * process of this script: "on" with `OTEL_DENO=true` exporting OTLP/HTTP
 * JSON to a receiver in this process (spans, metrics and the JSON log lines
 * all go out), "off" without. The two alternate for several rounds; each
 * round times the same saves (memory store, a plain and a rich field,
 * handler called directly). Both sides write the same JSON log lines to
 * stdout; "on" also exports them as OTel logs. Goal: on ≥ 90% of off's throughput, i.e. time
 * per save on / off ≤ 1.11.
 *
 * Run: `deno run -A bench/telemetry.ts`; `run()` returns the numbers for
 * bench/run.ts.
 *
 * @module
 */
import { createSaveHandler } from "../server/save.ts";
import { MemoryContentStore } from "../server/store/memory.ts";
import { defineContent } from "../core/content.ts";

/** What `run()` measured. */
export interface TelemetryBenchResult {
  /** Median time per save with telemetry on, in ms. */
  onMs: number;
  /** Median time per save with telemetry off, in ms. */
  offMs: number;
  /** onMs / offMs (goal ≤ 1.11, i.e. ≥ 90% throughput). */
  ratio: number;
  /** Saves per round. */
  saves: number;
}

const SAVES = 2_000;
const ROUNDS = 5;

/** Child mode: time SAVES saves, print ms per save. */
async function child(): Promise<void> {
  const handler = createSaveHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: defineContent({ pages: { title: "plain", body: "rich" } }),
    store: new MemoryContentStore(),
  });
  const save = (i: number) =>
    handler(
      new Request("http://127.0.0.1/api/cms/save", {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          collection: "pages",
          key: `k${i % 50}`,
          field: i % 10 === 0 ? "body" : "title",
          value: i % 10 === 0 ? `<p>Rich <b>${i}</b></p>` : `Title ${i}`,
        }),
      }),
    );
  for (let i = 0; i < 300; i++) await save(i);
  const t0 = performance.now();
  for (let i = 0; i < SAVES; i++) {
    const res = await save(i);
    if (res.status !== 204) throw new Error(`save answered ${res.status}`);
  }
  console.log(JSON.stringify({ msPerSave: (performance.now() - t0) / SAVES }));
}

async function side(on: boolean, endpoint: string): Promise<number> {
  const env: Record<string, string> = { CMS_BENCH_CHILD: "1" };
  if (on) {
    Object.assign(env, {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_METRIC_EXPORT_INTERVAL: "1000",
    });
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname],
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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Runs both sides alternately, ROUNDS times each. */
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
    const on: number[] = [];
    const off: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      off.push(await side(false, endpoint));
      on.push(await side(true, endpoint));
    }
    if (received === 0) throw new Error("telemetry on exported nothing");
    const onMs = median(on);
    const offMs = median(off);
    return { onMs, offMs, ratio: onMs / offMs, saves: SAVES };
  } finally {
    await receiver.shutdown();
  }
}

if (import.meta.main) {
  if (Deno.env.get("CMS_BENCH_CHILD")) {
    await child();
  } else {
    const r = await run();
    console.log(
      `save handler, ${r.saves} saves: telemetry on ${
        r.onMs.toFixed(4)
      } ms/save, off ${r.offMs.toFixed(4)} ms/save, on/off ${
        r.ratio.toFixed(3)
      } (throughput ${(100 / r.ratio).toFixed(1)}% of off; goal >= 90%)`,
    );
  }
}
