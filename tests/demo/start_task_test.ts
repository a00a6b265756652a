/**
 * `deno task start`, the production start (no file watcher): one SIGTERM
 * drains the demo and the whole task exits, with code 0, within the drain
 * deadline (`deno task dev` keeps its watcher waiting for a change).
 */
import assert from "node:assert/strict";

const ROOT = new URL("../..", import.meta.url).pathname;
const DEADLINE_MS = 3000;

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Reads `stdout` until the demo prints its URL, then keeps draining it. */
async function waitForUrl(stdout: ReadableStream<Uint8Array>) {
  const reader = stdout.pipeThrough(
    new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
  ).getReader();
  const timer = setTimeout(() => reader.cancel("timeout"), 60_000);
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`no URL printed:\n${text}`);
      text += value;
      const m = text.match(/(http:\/\/127\.0\.0\.1:\d+)\//);
      if (m) {
        (async () => {
          try {
            while (!(await reader.read()).done);
          } catch { /* closed */ }
        })();
        return m[1];
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

Deno.test({
  name: "deno task start exits within the drain deadline on SIGTERM",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "cms-start-" });
    const port = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "start"],
      cwd: ROOT,
      env: {
        PORT: String(port),
        CMS_DATA_DIR: dataDir,
        CMS_EDITOR_PASSWORD: "start-task-password",
        CMS_PUBLISH: "draft",
        CMS_SHUTDOWN_DEADLINE_MS: String(DEADLINE_MS),
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    try {
      const url = await waitForUrl(child.stdout);
      assert.equal(url, `http://127.0.0.1:${port}`);
      const res = await fetch(`${url}/healthz`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const t0 = performance.now();
      child.kill("SIGTERM");
      const status = await Promise.race([
        child.status,
        new Promise<null>((r) => setTimeout(() => r(null), 3 * DEADLINE_MS)),
      ]);
      const ms = performance.now() - t0;
      assert.ok(status, `still running ${Math.round(ms)} ms after SIGTERM`);
      assert.equal(status.code, 0);
      assert.ok(ms < DEADLINE_MS, `exited after ${Math.round(ms)} ms`);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
      await child.status;
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
