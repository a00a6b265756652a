/**
 * Editor events at scale: three demo instances on one PostgreSQL, 200
 * editors (each its own session) with an open event stream, spread evenly.
 *
 * (a) save → `saved` event at every other editor: from just before the save
 *     request goes out to the event's arrival, over every (save, listener)
 *     pair. Goals: p50 ≤ 50 ms, p95 ≤ 200 ms. Saves rotate over the
 *     instances and wait for the previous one to reach everybody.
 * (b) save latency (request → 204) with the 200 listeners, against the same
 *     saves with nobody listening, in alternating blocks of the same run
 *     (medians). Goal ≤ 1.2×.
 * (c) memory per idle stream: the instances' resident memory (VmRSS of the
 *     processes) grown by 180 streams opened after 20 warm-up streams,
 *     divided by 180 (context: it counts garbage not yet collected); and
 *     retained memory after a full GC in this process, 480 idle streams
 *     against a bare streaming response. Goal ≤ 64 KiB.
 *
 * The listeners' parsing runs in this process and the saves in a Worker
 * (`events_saver.ts`), on the same cores as the instances and PostgreSQL:
 * the latencies include that contention.
 *
 * Run: `deno run -A bench/events.ts`; `run()` returns the numbers.
 *
 * @module
 */
import { editorHeaders, login } from "../tests/helpers/demo.ts";
import { spawnInstances } from "../tests/helpers/instances.ts";
import { startPostgres } from "../tests/helpers/postgres.ts";
import { openEvents, type SseStream } from "../tests/helpers/sse.ts";
import { collectGarbage } from "./upload_memory.ts";
import { EditorEvents } from "../server/events/mod.ts";
import { MemoryContentStore } from "../server/store/mod.ts";

const EDITORS = 200;
const INSTANCES = 3;
const SAVES = 12;
const BLOCKS = 3;
const WARM = 20;

/** What `run()` measured. */
export interface EventsBenchResult {
  /** Editors with a stream. */
  editors: number;
  /** Save → event at every other editor, median (ms). */
  eventP50: number;
  /** … 95th percentile (ms). */
  eventP95: number;
  /** Deliveries measured. */
  deliveries: number;
  /** Median save latency with the listeners (ms). */
  saveWith: number;
  /** Median save latency without listeners (ms), before and after. */
  saveWithout: number;
  /** Resident memory per idle stream of the instances, no GC (bytes). */
  bytesPerStream: number;
  /** Retained memory per idle stream, in process after GC. */
  idle: IdleMemory;
  /** The same for a bare streaming response (the baseline). */
  bare: IdleMemory;
}

/** A warm-up round of both, then the measured round of both. */
async function idleRounds(): Promise<{ idle: IdleMemory; bare: IdleMemory }> {
  await idleMemory(500, true);
  await idleMemory(500, false);
  const bare = await idleMemory(500, true);
  return { bare, idle: await idleMemory(500, false) };
}

/** The `p` quantile of `values` (sorted in place). */
function quantile(values: number[], p: number): number {
  values.sort((a, b) => a - b);
  return values[Math.min(values.length - 1, Math.floor(p * values.length))];
}

/** Resident memory of a process, in bytes (Linux). */
async function rss(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Retained memory of idle streams, measured in this process. */
export interface IdleMemory {
  /** Streams opened. */
  streams: number;
  /** JS heap + external memory per stream, after a full GC (bytes). */
  heapPerStream: number;
  /** Resident memory per stream, after a full GC (bytes; both ends). */
  rssPerStream: number;
}

/**
 * Opens `count` idle streams on an in-process hub (memory store) from raw
 * TCP connections that read only the first answer bytes, and measures
 * what stays after a full GC: the server's stream state, its HTTP
 * connection and the small client socket. With `baseline`, the same for a
 * bare streaming response (Deno's own cost of an idle stream).
 */
export async function idleMemory(
  count = 500,
  baseline = false,
): Promise<IdleMemory> {
  const gc = collectGarbage();
  const authorize = () => ({ name: "Ada" });
  const events = new EditorEvents({
    authorize,
    allowlist: { pages: { title: "plain" } },
    store: new MemoryContentStore(),
    maxStreamsPerSession: count + 10,
    maxStreams: count + 10,
  });
  // The baseline: a bare stream that sends one event and stays open.
  const bare = () =>
    new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode("event: hello\ndata: {}\n\n"));
        },
      }),
      { headers: { "Content-Type": "text/event-stream" } },
    );
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => baseline ? bare() : events.handler(req),
  );
  const conns: Deno.TcpConn[] = [];
  const request = new TextEncoder().encode(
    `GET /api/cms/events?page=/ HTTP/1.1\r\nHost: 127.0.0.1:${server.addr.port}\r\n\r\n`,
  );
  const open = async () => {
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.addr.port,
    });
    conns.push(conn);
    await conn.write(request);
    // Read until the first event arrived, then leave the stream idle.
    const buf = new Uint8Array(4096);
    let text = "";
    for (let i = 0; i < 20 && !text.includes("event: hello"); i++) {
      const n = await conn.read(buf);
      if (n === null) throw new Error("stream closed");
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  };
  const measure = () => {
    gc();
    const m = Deno.memoryUsage();
    return { heap: m.heapUsed + m.external, rss: m.rss };
  };
  try {
    for (let i = 0; i < 20; i++) await open();
    // Presence settles (one editor name, one page).
    await new Promise((r) => setTimeout(r, 200));
    const before = measure();
    for (let i = 20; i < count; i++) await open();
    await new Promise((r) => setTimeout(r, 200));
    const after = measure();
    const n = count - 20;
    if (!baseline && events.stats().streams !== count) {
      throw new Error("streams missing");
    }
    return {
      streams: n,
      heapPerStream: (after.heap - before.heap) / n,
      rssPerStream: (after.rss - before.rss) / n,
    };
  } finally {
    for (const c of conns) c.close();
    await events.close();
    await server.shutdown();
  }
}

/** Runs the bench and returns its numbers. */
export async function run(): Promise<EventsBenchResult> {
  await using pg = await startPostgres();
  const { sites, close } = await spawnInstances(
    INSTANCES,
    await pg.database(),
  );
  const streams: SseStream[] = [];
  const workers: Worker[] = [];
  try {
    const cookies: string[] = [];
    for (let i = 0; i < EDITORS; i++) {
      cookies.push(await login(sites[i % INSTANCES].url));
    }
    // Saves run in a Worker (their own thread): see events_saver.ts.
    const saver = new Worker(new URL("./events_saver.ts", import.meta.url), {
      type: "module",
    });
    workers.push(saver);
    let round = 0;
    const save = (i: number) => {
      const site = sites[i % INSTANCES];
      const value = `Round ${++round}`;
      return new Promise<{ started: number; ms: number; value: string }>(
        (resolve, reject) => {
          saver.onmessage = (e) => {
            if (e.data.status !== 204) {
              reject(new Error(`save: ${e.data.status}`));
            }
            // In this thread's clock, like the listeners' arrival times.
            resolve({
              started: e.data.started - performance.timeOrigin,
              ms: e.data.ms,
              value,
            });
          };
          saver.postMessage({ url: site.url, cookie: cookies[i], value });
        },
      );
    };
    // The same pause before every timed save, with and without listeners:
    // the previous save's deliveries are over on every instance.
    const settle = () => new Promise((r) => setTimeout(r, 20));
    const saveTimes = async (count: number) => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        await settle();
        times.push((await save(i)).ms);
      }
      return times;
    };
    // Streams: 20 to warm up, then the rest, with memory measured around.
    const open = async (i: number) => {
      const site = sites[i % INSTANCES];
      const s = await openEvents(
        `${site.url}/api/cms/events?page=/`,
        editorHeaders(site.url, cookies[i]),
      );
      if (s.res.status !== 200) throw new Error(`events: ${s.res.status}`);
      await s.next((e) => e.event === "hello");
      streams.push(s);
    };
    /** Resolves once every stream saw `count` editors on the page. */
    const present = (count: number) =>
      Promise.all(
        streams.map((s) =>
          s.next((e) =>
            e.event === "presence" &&
            JSON.parse(e.data).editors.length === count, 60_000)
        ),
      );
    const pids = sites.map((s) => s.child.pid);
    const resident = async () =>
      (await Promise.all(pids.map(rss))).reduce((a, b) => a + b);

    // Blocks: saves with nobody listening, then with 200 listeners, three
    // times over, so both sides see the same machine.
    await saveTimes(SAVES);
    const without: number[] = [];
    const withListeners: number[] = [];
    const latencies: number[] = [];
    let bytesPerStream = 0;
    for (let block = 0; block < BLOCKS; block++) {
      without.push(...await saveTimes(SAVES));
      for (let i = 0; i < WARM; i++) await open(i);
      await present(WARM);
      const before = await resident();
      for (let i = WARM; i < EDITORS; i++) await open(i);
      await present(EDITORS);
      if (block === 0) {
        bytesPerStream = (await resident() - before) / (EDITORS - WARM);
      }
      // Save → event at every other editor.
      for (let i = 0; i < SAVES; i++) {
        const editor = (block * SAVES + i) * 7 % EDITORS;
        await settle();
        const marks = streams.map((s) => s.events.length);
        const { started, ms, value } = await save(editor);
        withListeners.push(ms);
        const arrivals = await Promise.all(
          streams.map((s, j) =>
            j === editor ? null : s.next(
              (e) => e.event === "saved" && e.data.includes(`"${value}"`),
              30_000,
              marks[j],
            )
          ),
        );
        for (const e of arrivals) if (e) latencies.push(e.at - started);
      }
      const closing = streams.splice(0);
      for (const s of closing) s.close();
      await Promise.all(closing.map((s) => s.ended));
      // The servers saw every stream go (their session limits are free).
      await new Promise((r) => setTimeout(r, 500));
    }
    return {
      editors: EDITORS,
      eventP50: quantile([...latencies], 0.5),
      eventP95: quantile([...latencies], 0.95),
      deliveries: latencies.length,
      saveWith: quantile(withListeners, 0.5),
      saveWithout: quantile(without, 0.5),
      bytesPerStream,
      ...await idleRounds(),
    };
  } finally {
    for (const w of workers) w.terminate();
    for (const s of streams) s.close();
    await close();
  }
}

if (import.meta.main && Deno.args[0] === "memory") {
  for (const baseline of [true, false, true, false]) {
    const m = await idleMemory(500, baseline);
    console.log(
      `${
        baseline ? "bare stream" : "event stream"
      }: ${m.streams} idle: heap+external ${
        (m.heapPerStream / 1024).toFixed(1)
      } KiB, RSS ${(m.rssPerStream / 1024).toFixed(1)} KiB per stream`,
    );
  }
} else if (import.meta.main) {
  const r = await run();
  const KiB = 1024;
  console.table([
    {
      what:
        `save -> event at every other editor (${r.editors} editors, 3 instances), p50`,
      measured: `${r.eventP50.toFixed(1)} ms`,
      goal: "<= 50 ms",
      met: r.eventP50 <= 50 ? "yes" : "NO",
    },
    {
      what: `… p95 (${r.deliveries} deliveries)`,
      measured: `${r.eventP95.toFixed(1)} ms`,
      goal: "<= 200 ms",
      met: r.eventP95 <= 200 ? "yes" : "NO",
    },
    {
      what: "save latency with 200 listeners / without (medians)",
      measured: `${r.saveWith.toFixed(2)} / ${r.saveWithout.toFixed(2)} ms = ${
        (r.saveWith / r.saveWithout).toFixed(2)
      }x`,
      goal: "<= 1.2x",
      met: r.saveWith / r.saveWithout <= 1.2 ? "yes" : "NO",
    },
    {
      what:
        `memory per idle stream after GC, heap+external (${r.idle.streams} streams)`,
      measured: `${(r.idle.heapPerStream / KiB).toFixed(1)} KiB`,
      goal: "<= 64 KiB",
      met: r.idle.heapPerStream <= 64 * KiB ? "yes" : "NO",
    },
    {
      what:
        "… resident memory per idle stream after GC (server + client socket)",
      measured: `${(r.idle.rssPerStream / KiB).toFixed(1)} KiB`,
      goal: "<= 64 KiB",
      met: r.idle.rssPerStream <= 64 * KiB ? "yes" : "NO",
    },
    {
      what: "… baseline: a bare streaming response, heap+external / RSS",
      measured: `${(r.bare.heapPerStream / KiB).toFixed(1)} / ${
        (r.bare.rssPerStream / KiB).toFixed(1)
      } KiB`,
      goal: "(context)",
      met: "",
    },
    {
      what: "resident memory growth per stream of the 3 instances (no GC)",
      measured: `${(r.bytesPerStream / KiB).toFixed(1)} KiB`,
      goal: "(context: includes garbage not yet collected)",
      met: "",
    },
  ]);
}
