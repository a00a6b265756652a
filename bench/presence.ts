/**
 * Presence at scale: 1,000 event streams on one page of one in-process hub
 * (memory store and bus), each its own editor and session, over raw TCP.
 *
 * (a) memory per stream: JS heap + external memory and resident memory
 *     after a full GC, grown by the streams opened after 20 warm-up ones,
 *     divided by their number; once with clients that read everything
 *     (EventSource does), once with clients that read only the first
 *     event and then nothing (idle, or stuck).
 * (b) one change, everywhere: one editor (with 32 unsaved fields) moves
 *     its focus; the time from the report until all other 999 streams got
 *     it (median of the rounds), and how long a bare request (a 404) waits
 *     meanwhile (the process stalls for everybody, visitors too, while a
 *     fan-out holds it).
 *
 * Measured on the shared 2-core machine: before presence went out as
 * changes, 500 streams took 1,134 ms for one change (250: 299 ms) and 1,000
 * did not finish opening within 400 s; after, 1,000 streams take about
 * 150 ms (500: 133 ms), about 10 KiB of heap and external memory per stream
 * that stopped reading, about 15 KiB per reading one (with this process's
 * own client side of it).
 *
 * Run: `deno run -A bench/presence.ts` (`PRESENCE_STREAMS=500` for fewer);
 * `run()` returns the numbers.
 *
 * @module
 */
import { collectGarbage } from "./upload_memory.ts";
import { EditorEvents } from "../server/events/mod.ts";
import { MemoryContentStore } from "../server/store/mod.ts";

const STREAMS = Number(Deno.env.get("PRESENCE_STREAMS") ?? 1000);
const WARM = 20;
const ROUNDS = 5;
const FIELDS = Array.from({ length: 34 }, (_, i) => `f${i}`);

/** What `run()` measured. */
export interface PresenceBenchResult {
  /** Streams on the page. */
  streams: number;
  /** Heap + external bytes per stream after GC, clients reading. */
  heapPerStream: number;
  /** Resident bytes per stream after GC, clients reading. */
  rssPerStream: number;
  /** Heap + external bytes per stream after GC, clients not reading. */
  idleHeapPerStream: number;
  /** Resident bytes per stream after GC, clients not reading. */
  idleRssPerStream: number;
  /** Report → every other stream got the change, median (ms). */
  changeMs: number;
  /** A bare request during that fan-out, median (ms). */
  stallMs: number;
}

/** A raw connection reading an event stream. */
interface Conn {
  conn: Deno.TcpConn;
  /** The text read so far (only until `hello` when not reading). */
  head: string;
  /** Set when `marker` was read since the last reset. */
  seen: boolean;
}

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One measured setup: `STREAMS` streams, reading or not. */
async function measure(reading: boolean) {
  const gc = collectGarbage();
  const allowlist = {
    pages: Object.fromEntries(FIELDS.map((f) => [f, "plain" as const])),
  };
  const events = new EditorEvents({
    authorize: (req) => {
      const sid = /sid=(\d+)/.exec(req.headers.get("Cookie") ?? "")?.[1];
      return sid ? { id: `e${sid}`, name: `Editor ${sid}` } : null;
    },
    allowlist,
    store: new MemoryContentStore(),
    maxStreams: STREAMS + 10,
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) =>
      new URL(req.url).pathname === "/api/cms/events"
        ? events.handler(req)
        : new Response("Not found", { status: 404 }),
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  let marker = "\0";
  const conns: Conn[] = [];
  const open = async (i: number) => {
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.addr.port,
    });
    const c: Conn = { conn, head: "", seen: false };
    conns.push(c);
    await conn.write(encoder.encode(
      `GET /api/cms/events?page=/ HTTP/1.1\r\nHost: 127.0.0.1:${server.addr.port}\r\nCookie: sid=${i}\r\nSec-Fetch-Site: same-origin\r\n\r\n`,
    ));
    const buf = new Uint8Array(2048);
    const decoder = new TextDecoder();
    while (!c.head.includes("event: hello")) {
      const n = await conn.read(buf);
      if (n === null) throw new Error("stream closed");
      c.head += decoder.decode(buf.subarray(0, n));
    }
    if (!reading) return;
    // Reads on, keeping only a tail to find the marker across chunks.
    (async () => {
      let tail = "";
      for (;;) {
        const n = await conn.read(buf).catch(() => null);
        if (n === null) return;
        tail = tail.slice(-64) + decoder.decode(buf.subarray(0, n));
        if (!c.seen && tail.includes(marker)) c.seen = true;
      }
    })();
  };
  const usage = () => {
    gc();
    const m = Deno.memoryUsage();
    return { heap: m.heapUsed + m.external, rss: m.rss };
  };
  try {
    for (let i = 0; i < WARM; i++) await open(i);
    await sleep(300);
    const before = usage();
    for (let i = WARM; i < STREAMS; i++) await open(i);
    await sleep(1000);
    const after = usage();
    if (events.stats().streams !== STREAMS) {
      throw new Error(`streams: ${events.stats().streams}`);
    }
    const n = STREAMS - WARM;
    const memory = {
      heap: (after.heap - before.heap) / n,
      rss: (after.rss - before.rss) / n,
    };
    if (!reading) return { memory, changeMs: NaN, stallMs: NaN };
    const id = /"stream":"(\w+)"/.exec(conns[0].head)![1];
    const dirty = FIELDS.slice(0, 32).map((f) => `pages:home:${f}`);
    const change: number[] = [], stall: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      marker = `pages:home:${FIELDS[32 + round % 2]}`;
      for (const c of conns) c.seen = false;
      const started = performance.now();
      const res = await fetch(`${base}/api/cms/events`, {
        method: "POST",
        headers: {
          Cookie: "sid=0",
          "Sec-Fetch-Site": "same-origin",
          "Content-Type": "application/json",
        },
        body: JSON.stringify({ stream: id, focus: marker, dirty }),
      });
      await res.body?.cancel();
      if (res.status !== 204) throw new Error(`report: ${res.status}`);
      // A visitor's request while the change goes out.
      const bare = performance.now();
      await (await fetch(`${base}/nothing`)).body?.cancel();
      stall.push(performance.now() - bare);
      while (conns.slice(1).some((c) => !c.seen)) await sleep(1);
      change.push(performance.now() - started);
      await sleep(200);
    }
    return { memory, changeMs: median(change), stallMs: median(stall) };
  } finally {
    for (const c of conns) c.conn.close();
    await events.close();
    await server.shutdown();
  }
}

/** The median of `values`. */
function median(values: number[]): number {
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)];
}

/** Runs the bench and returns its numbers. */
export async function run(): Promise<PresenceBenchResult> {
  const idle = await measure(false);
  const live = await measure(true);
  return {
    streams: STREAMS,
    heapPerStream: live.memory.heap,
    rssPerStream: live.memory.rss,
    idleHeapPerStream: idle.memory.heap,
    idleRssPerStream: idle.memory.rss,
    changeMs: live.changeMs,
    stallMs: live.stallMs,
  };
}

if (import.meta.main) {
  const r = await run();
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`presence: ${r.streams} streams on one page`);
  console.log(
    `  memory per stream, reading: heap+external ${kib(r.heapPerStream)}, rss ${
      kib(r.rssPerStream)
    }`,
  );
  console.log(
    `  memory per stream, not reading: heap+external ${
      kib(r.idleHeapPerStream)
    }, rss ${kib(r.idleRssPerStream)}`,
  );
  console.log(
    `  one change to all: ${
      r.changeMs.toFixed(1)
    } ms (a bare request meanwhile: ${r.stallMs.toFixed(1)} ms)`,
  );
  Deno.exit(0);
}
