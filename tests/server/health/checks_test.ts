/** Health endpoints: liveness touches nothing, readiness checks stores. */
import assert from "node:assert/strict";
import {
  contentStoreCheck,
  createLivenessHandler,
  createReadinessHandler,
  mediaStorageCheck,
} from "../../../server/health/checks.ts";
import { LocalMediaStorage } from "../../../server/media/local.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { startDemo } from "../../../demo/main.ts";
import type { ContentStore } from "../../../server/store/types.ts";

const get = (path: string, method = "GET") =>
  new Request(`http://127.0.0.1${path}`, { method });

/** A store whose every call throws: liveness must not notice it. */
const broken: ContentStore = {
  get: () => Promise.reject(new Error("db down")),
  update: () => Promise.reject(new Error("db down")),
};

Deno.test("healthz: 200 without touching storage; 405 for other methods", async () => {
  const healthz = createLivenessHandler();
  const res = await healthz(get("/healthz"));
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "ok");
  assert.equal(res.headers.get("Cache-Control"), "no-store");
  const head = await healthz(get("/healthz", "HEAD"));
  assert.equal(head.status, 200);
  const post = await healthz(get("/healthz", "POST"));
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("Allow"), "GET, HEAD");
});

Deno.test("readyz: 200 when the stores answer; 503 naming the failing or slow one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const media = new LocalMediaStorage({ dir });
    const ok = createReadinessHandler({
      checks: {
        content: contentStoreCheck(new MemoryContentStore()),
        media: mediaStorageCheck(media),
      },
    });
    const res = await ok(get("/readyz"));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      status: "ready",
      checks: { content: "ok", media: "ok" },
    });

    let never: (() => void) | undefined;
    const slow: ContentStore = {
      get: () => new Promise((resolve) => never = () => resolve(null)),
      update: () => Promise.resolve(null),
    };
    const bad = createReadinessHandler({
      checks: {
        content: contentStoreCheck(broken),
        slow: contentStoreCheck(slow),
        media: mediaStorageCheck(new LocalMediaStorage({ dir: `${dir}/gone` })),
      },
      timeoutMs: 100,
    });
    const started = performance.now();
    const down = await bad(get("/readyz"));
    assert.ok(performance.now() - started < 1_000, "within the timeout");
    assert.equal(down.status, 503);
    assert.ok(down.headers.get("Retry-After"));
    const body = await down.json();
    assert.deepEqual(body, {
      status: "unavailable",
      checks: { content: "error", slow: "timeout", media: "error" },
    });
    assert.ok(!JSON.stringify(body).includes("db down"), "no error text");
    never?.();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readyz: 503 while draining, without running checks", async () => {
  const draining = new AbortController();
  let ran = 0;
  const readyz = createReadinessHandler({
    checks: { content: () => Promise.resolve(ran++) },
    draining: draining.signal,
  });
  assert.equal((await readyz(get("/readyz"))).status, 200);
  draining.abort();
  const res = await readyz(get("/readyz"));
  assert.equal(res.status, 503);
  assert.equal((await res.json()).status, "shutting down");
  assert.equal(ran, 1);
});

Deno.test("demo mounts /healthz and /readyz (KV content, local media)", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-health-" });
  const demo = await startDemo({ port: 0, dataDir, password: "pw-health" });
  try {
    const live = await fetch(`${demo.url}/healthz`);
    assert.equal(live.status, 200);
    await live.body?.cancel();
    const ready = await fetch(`${demo.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual((await ready.json()).checks, {
      content: "ok",
      media: "ok",
    });
  } finally {
    await demo.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
