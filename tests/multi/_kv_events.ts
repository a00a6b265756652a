/**
 * Editor events across processes that share one Deno KV file: starting them
 * (separate demo processes, or the workers of `deno serve --parallel`) and
 * the event checks both kinds run: presence everywhere, saves arriving on
 * every stream (with their latency), `Last-Event-ID` resumed on another
 * process, a foreign id answered with `resync`.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  DEMO_PASSWORD,
  type DemoProcess,
  editorHeaders,
  login,
  spawnDemo,
  stopDemo,
} from "../helpers/demo.ts";
import {
  openEvents,
  presenceSeen,
  type SseEvent,
  type SseStream,
} from "../helpers/sse.ts";
import { buildClient } from "../../tools/build_client.ts";

const ROOT = new URL("../../", import.meta.url);

/** Processes sharing one KV file; `urls[i]` is where request `i` goes. */
export interface KvSite extends AsyncDisposable {
  /** Base URLs, one per process (one for all workers of `deno serve`). */
  urls: string[];
  /** Stops one process (by index) with `signal`. */
  stop(index: number, signal?: Deno.Signal): Promise<void>;
}

/** The environment every process gets (plus `extra`). */
function baseEnv(dir: string, extra: Record<string, string>) {
  return {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
    CMS_EDITOR_PASSWORD: DEMO_PASSWORD,
    CMS_DATA_DIR: `${dir}/data`,
    CMS_CLIENT_DIR: `${dir}/client`,
    ...extra,
  };
}

/** A new folder with the client built once (every process shares it). */
async function prepare(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "cms-kv-multi-" });
  await buildClient(`${dir}/client`);
  return dir;
}

/**
 * `count` demo processes (`demo/main.ts`) on one KV file, started one after
 * another.
 */
export async function spawnKvProcesses(
  count: number,
  extra: Record<string, string> = {},
): Promise<KvSite> {
  const dir = await prepare();
  const sites: DemoProcess[] = [];
  const close = async () => {
    for (const site of sites) await stopDemo(site);
    await Deno.remove(dir, { recursive: true });
  };
  try {
    for (let i = 0; i < count; i++) {
      sites.push(
        await spawnDemo(baseEnv(dir, extra), { stderr: "null" }),
      );
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    urls: sites.map((s) => s.url),
    stop: (i, signal) => stopDemo(sites[i], signal),
    [Symbol.asyncDispose]: close,
  };
}

/** A free TCP port on 127.0.0.1 (free when asked). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * The demo under `deno serve --parallel` (`demo/serve.ts`) with `workers`
 * workers (`DENO_JOBS`) on one KV file. The data folder is made first by
 * one demo process, so every worker starts on a set-up store; `fresh`:
 * the workers start together on an empty one.
 */
export async function serveParallel(
  workers: number,
  extra: Record<string, string> = {},
  { fresh = false } = {},
): Promise<KvSite & { child: Deno.ChildProcess }> {
  const dir = await prepare();
  const env = baseEnv(dir, extra);
  // Unless `fresh`, one demo process sets the data folder up first; fresh,
  // the workers start together on an empty one and must agree.
  try {
    if (!fresh) await stopDemo(await spawnDemo(env, { stderr: "null" }));
  } catch (err) {
    await Deno.remove(dir, { recursive: true });
    throw err;
  }
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "serve",
      "--parallel",
      "-A",
      "--port",
      String(port),
      "demo/serve.ts",
    ],
    cwd: ROOT,
    env: { ...env, PORT: String(port), DENO_JOBS: String(workers) },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  // Bounded: a worker that never exits is killed (and its test fails on
  // its own assertions, not by hanging).
  const close = async () => {
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 15_000);
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
    clearTimeout(timer);
    await Deno.remove(dir, { recursive: true });
  };
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${url}/healthz`).then(async (res) => {
        await res.body?.cancel();
        return res.ok;
      }, () => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error("deno serve did not start");
      await new Promise((r) => setTimeout(r, 200));
    }
    // Workers start about together; give the slowest a moment.
    await new Promise((r) => setTimeout(r, 1500));
  } catch (err) {
    await close();
    throw err;
  }
  return {
    urls: [url],
    child,
    stop: async (_i, signal = "SIGTERM") => {
      child.kill(signal);
      await child.status;
    },
    [Symbol.asyncDispose]: close,
  };
}

const data = (e: SseEvent) => JSON.parse(e.data);

/** What {@linkcode checkEvents} measured. */
export interface EventChecks {
  /** Save → `saved` on a stream, in ms, one per (save, stream) pair. */
  latencies: number[];
}

/** The nearest-rank percentile `p` (0–100) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * p / 100) - 1)];
}

/**
 * The event checks on `site`: `streams` editor streams spread over its
 * URLs all see each other; a presence report reaches the others; `saves`
 * saves spread over the URLs reach every stream with value and version; a
 * stream reconnecting elsewhere with its `Last-Event-ID` gets the save it
 * missed (no `resync`); a foreign id gets `resync`; a closed stream leaves
 * the others' presence. `pauseMs`: a random pause up to that before each
 * save (so saves do not keep step with the processes' polls).
 */
export async function checkEvents(
  site: KvSite,
  options: { streams: number; saves: number; pauseMs?: number },
): Promise<EventChecks> {
  const { urls } = site;
  const at = (i: number) => urls[i % urls.length];
  const cookie = await login(at(0));
  const open: SseStream[] = [];
  const openOn = async (url: string, lastId?: string) => {
    const headers = new Headers(editorHeaders(url, cookie));
    if (lastId) headers.set("Last-Event-ID", lastId);
    const s = await openEvents(`${url}/api/cms/events?page=/`, headers);
    assert.equal(s.res.status, 200);
    open.push(s);
    return s;
  };
  const save = async (url: string, value: string) => {
    const res = await fetch(`${url}/api/cms/save`, {
      method: "PATCH",
      headers: editorHeaders(url, cookie),
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value,
      }),
    });
    await res.body?.cancel();
    assert.equal(res.status, 204);
    return { at: performance.now(), version: res.headers.get("CMS-Version") };
  };
  const editors = (s: SseStream) => (e: SseEvent) =>
    e.event === "presence" ? presenceSeen(s, e).length : -1;
  try {
    const streams: SseStream[] = [];
    for (let i = 0; i < options.streams; i++) streams.push(await openOn(at(i)));
    // Everybody sees everybody, whichever process serves them.
    for (const s of streams) {
      await s.next((e) => editors(s)(e) === options.streams, 10_000);
    }
    // A stream's unsaved change shows on every other, whichever process
    // the report reaches: stream 1's goes to its own process (204 when the
    // processes have URLs of their own), stream 2's to the next one (sent
    // on: 202). Under `deno serve`, the kernel picks: either.
    for (const [i, to] of [[1, 1], [2, 3]]) {
      const hello = data(streams[i].events.find((e) => e.event === "hello")!);
      const field = `pages:home:${i === 1 ? "title" : "body"}`;
      const report = await fetch(`${at(to)}/api/cms/events`, {
        method: "POST",
        headers: editorHeaders(at(to), cookie),
        body: JSON.stringify({
          stream: hello.stream,
          focus: field,
          dirty: [field],
        }),
      });
      await report.body?.cancel();
      const expected = urls.length === 1
        ? [202, 204]
        : [at(i) === at(to) ? 204 : 202];
      assert.ok(expected.includes(report.status), `report: ${report.status}`);
      for (const s of streams.filter((_, j) => j !== i)) {
        await s.next((e) =>
          e.event === "presence" &&
          presenceSeen(s, e).some((x) =>
            x.stream === hello.stream && x.dirty[0] === field
          ), 5000);
      }
    }
    // Saves made on each process in turn reach every stream.
    const latencies: number[] = [];
    for (let i = 0; i < options.saves; i++) {
      const pause = Math.random() * (options.pauseMs ?? 0);
      await new Promise((r) => setTimeout(r, pause));
      const value = `Saved ${i} ${crypto.randomUUID()}`;
      const from = streams.map((s) => s.events.length);
      const done = await save(at(i), value);
      for (const [j, s] of streams.entries()) {
        const e = await s.next(
          (e) => e.event === "saved" && data(e).value === value,
          5000,
          from[j],
        );
        assert.equal(data(e).version, done.version);
        assert.ok(e.id, "a saved event has an id");
        // Separate processes: only streams on another process count.
        if (urls.length === 1 || j % urls.length !== i % urls.length) {
          latencies.push(Math.max(0, e.at - done.at));
        }
      }
    }
    // A stream that drops reconnects elsewhere with its Last-Event-ID and
    // gets what was saved meanwhile, with no resync.
    const dropped = streams[0];
    const droppedId = data(dropped.events.find((e) => e.event === "hello")!);
    const lastId = dropped.events.findLast((e) => e.event === "saved")!.id!;
    const last = streams[streams.length - 1];
    const before = last.events.length;
    dropped.close();
    const missed = `Missed ${crypto.randomUUID()}`;
    await save(at(2), missed);
    const resumed = await openOn(at(1), lastId);
    const got = await resumed.next(
      (e) => e.event === "saved" || e.event === "resync",
      5000,
    );
    assert.equal(got.event, "saved", "resumed, not resync");
    assert.equal(data(got).value, missed);
    // An id that no process gave: resync.
    const foreign = await openOn(at(2), "0badc0de-5");
    await foreign.next((e) => e.event === "resync", 5000);
    // The dropped stream leaves the others' presence.
    await last.next(
      (e) =>
        e.event === "presence" &&
        !presenceSeen(last, e).some((x) => x.stream === droppedId.stream),
      5000,
      before,
    );
    return { latencies };
  } finally {
    for (const s of open) s.close();
  }
}
