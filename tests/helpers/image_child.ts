/**
 * A media endpoint in its own process, so a test can watch its memory and
 * CPU time from outside (`/proc/<pid>/…`) without the test runner's own
 * work in the numbers. Started by {@linkcode startImageChild}; it prints one
 * JSON line `{"port": …, "hwmKiB": …}` once sharp is loaded and warm.
 *
 * `POST /abort` aborts the signal of every upload in flight, as `Deno.serve`
 * does when it learns that a client left: Deno 2.9's HTTP/1.1 server only
 * notices while the body is still arriving, so a test of what the endpoint
 * does then has to pull the trigger itself.
 *
 * @module
 */
import { createMediaHandler } from "../../server/media/upload.ts";
import { MemoryMediaStorage } from "../../server/media/memory.ts";
import type { ImageOptions } from "../../server/image/pipeline.ts";
import { solid } from "../fixtures/images.ts";

/** A media endpoint running in a child process. */
export interface ImageChild {
  /** The upload URL. */
  url: string;
  /** The child's process id. */
  pid: number;
  /** Peak resident memory of the child so far, in KiB (`VmHWM`). */
  peakKiB(): Promise<number>;
  /** CPU time the child has used so far (user + system), in seconds. */
  cpuSeconds(): Promise<number>;
  /** Aborts the request signal of every upload in flight. */
  abortUploads(): Promise<void>;
  /** Stops the child. */
  close(): Promise<void>;
}

/** Starts a child process serving the media endpoint with `images`. */
export async function startImageChild(
  images: ImageOptions = {},
  maxBytes = 10 * 1024 * 1024,
): Promise<ImageChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-no-legacy-abort",
      new URL(import.meta.url).pathname,
      JSON.stringify({ images, maxBytes }),
    ],
    stdout: "piped",
    stderr: "null",
    stdin: "null",
    cwd: new URL("../..", import.meta.url).pathname,
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  // Log lines come first; the ready line is the one with the port.
  let text = "";
  const ready = () => /^\{"port".*$/m.exec(text)?.[0];
  for (let i = 0; i < 1000 && !ready(); i++) {
    const { value, done } = await lines.read();
    if (done) break;
    text += value;
  }
  const { port } = JSON.parse(ready() ?? "{}");
  // Keep draining stdout so the child never blocks on a full pipe.
  const drained = (async () => {
    while (!(await lines.read()).done) { /* drop */ }
  })();
  const status = (key: string) =>
    Deno.readTextFile(`/proc/${child.pid}/status`).then((s) =>
      Number(new RegExp(`${key}:\\s+(\\d+)`).exec(s)?.[1])
    );
  return {
    url: `http://127.0.0.1:${port}/api/cms/media`,
    pid: child.pid,
    peakKiB: () => status("VmHWM"),
    async abortUploads() {
      const res = await fetch(`http://127.0.0.1:${port}/abort`, {
        method: "POST",
      });
      await res.body?.cancel();
    },
    async cpuSeconds() {
      const stat = await Deno.readTextFile(`/proc/${child.pid}/stat`);
      // Fields after the command name (which may hold spaces): utime is
      // the 14th field, stime the 15th, in clock ticks (100 per second).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    async close() {
      child.kill("SIGKILL");
      await child.status;
      await drained.catch(() => {});
    },
  };
}

if (import.meta.main) {
  const { images, maxBytes } = JSON.parse(Deno.args[0]);
  const media = createMediaHandler({
    authorize: () => ({ name: "Ada" }),
    storage: new MemoryMediaStorage(),
    images,
    maxBytes,
  });
  const inFlight = new Set<AbortController>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      if (new URL(req.url).pathname === "/abort") {
        for (const c of inFlight) c.abort(new Error("client left"));
        return new Response(null, { status: 204 });
      }
      const controller = new AbortController();
      req.signal.addEventListener("abort", () => controller.abort());
      inFlight.add(controller);
      try {
        return await media(new Request(req, { signal: controller.signal }));
      } finally {
        inFlight.delete(controller);
      }
    },
  );
  // Warm up: sharp loaded and one small image through the pipeline.
  await media(
    new Request("http://127.0.0.1/api/cms/media", {
      method: "POST",
      body: await solid(64, 64, "avif"),
    }),
  );
  const status = await Deno.readTextFile("/proc/self/status");
  console.log(JSON.stringify({
    port: (server.addr as Deno.NetAddr).port,
    hwmKiB: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]),
  }));
}
