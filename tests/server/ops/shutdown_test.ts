/**
 * Graceful shutdown of the demo as a process: saves and an upload in flight
 * while SIGTERM arrives twice. Every answer is a success or 503, the
 * process exits 0, and everything acknowledged is in the store after.
 */
import assert from "node:assert/strict";
import { buildClient } from "../../../tools/build_client.ts";
import { samplePng } from "../../../demo/sample_image.ts";
import { KvContentStore } from "../../../server/store/kv/mod.ts";
import { type DemoProcess, login, spawnDemo } from "../../helpers/demo.ts";

const PASSWORD = "shutdown-test-password";
const enc = new TextEncoder();

/** Runs the demo as a process that drains on SIGTERM. */
function startDemo(clientDir: string, dataDir: string): Promise<DemoProcess> {
  return spawnDemo({
    CMS_DATA_DIR: dataDir,
    CMS_CLIENT_DIR: clientDir,
    CMS_EDITOR_PASSWORD: PASSWORD,
    CMS_SHUTDOWN_DEADLINE_MS: "8000",
  });
}

/** A request over its own TCP connection, its body sent in two parts. */
async function slowRequest(
  port: number,
  path: string,
  cookie: string,
  type: string,
  body: Uint8Array,
) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Cookie: ${cookie}\r\nContent-Type: ${type}\r\n` +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  const half = Math.floor(body.length / 2);
  await conn.write(enc.encode(head));
  await conn.write(body.subarray(0, half));
  return {
    /** Sends the rest and reads the whole answer. */
    async finish(): Promise<{ status: number; body: string }> {
      try {
        let sent = half;
        while (sent < body.length) {
          sent += await conn.write(body.subarray(sent));
        }
        let raw = "";
        const buf = new Uint8Array(16 * 1024);
        for (let i = 0; i < 1000; i++) {
          const n = await conn.read(buf);
          if (n === null) break;
          raw += new TextDecoder().decode(buf.subarray(0, n));
        }
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
        return { status, body: raw.slice(raw.indexOf("\r\n\r\n") + 4) };
      } finally {
        conn.close();
      }
    },
  };
}

function saveBody(field: string, value: string): Uint8Array {
  return enc.encode(
    JSON.stringify({ collection: "pages", key: "home", field, value }),
  );
}

async function oneRun(clientDir: string, png: Uint8Array): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-shutdown-" });
  const demo = await startDemo(clientDir, dataDir);
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const cookie = await login(demo.url, PASSWORD);
    const base = demo.url;
    const acknowledged: string[] = [];
    const statuses: number[] = [];
    const unanswered: string[] = [];
    let signalled = false;

    // Slow requests: half their body is sent before the signal.
    const slowSaves = await Promise.all(
      [0, 1, 2].map((i) =>
        slowRequest(
          demo.port,
          "/api/cms/save",
          cookie,
          "application/json",
          saveBody("title", `slow ${i} ${crypto.randomUUID()}`),
        )
      ),
    );
    const slowValues = slowSaves.map((_, i) => i);
    const upload = await slowRequest(
      demo.port,
      "/api/cms/media",
      cookie,
      "image/png",
      png,
    );

    // Fast saves keep coming while the signals arrive.
    let stop = false;
    const fast = async (lane: number) => {
      for (let i = 0; i < 200 && !stop; i++) {
        const value = `fast ${lane}.${i} ${crypto.randomUUID()}`;
        try {
          const res = await fetch(`${base}/api/cms/save`, {
            client,
            method: "PATCH",
            headers: { Cookie: cookie, "Content-Type": "application/json" },
            body: JSON.stringify({
              collection: "pages",
              key: "home",
              field: "title",
              value,
            }),
          });
          await res.body?.cancel();
          statuses.push(res.status);
          if (res.status === 204) acknowledged.push(value);
          if (res.status === 503) {
            assert.ok(res.headers.get("Retry-After"), "503 has Retry-After");
          }
        } catch (err) {
          // Only once draining: a connection the listener never read (refused,
          // or cut by the kernel or the server as the listener closes).
          assert.ok(signalled, `network error before the signal: ${err}`);
          assert.ok(
            err instanceof TypeError &&
              /refused|reset|closed before message completed/i.test(
                String(err.cause),
              ),
            `unexpected network error: ${err} (${(err as Error).cause})`,
          );
          unanswered.push(value);
          return;
        }
      }
    };
    const lanes = [fast(0), fast(1)];
    await new Promise((r) => setTimeout(r, 150));
    signalled = true;
    demo.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 150));
    demo.child.kill("SIGTERM"); // a second signal is harmless
    await new Promise((r) => setTimeout(r, 150));

    // While draining, a new request is answered 503 + Connection: close.
    const late = await fetch(`${base}/api/cms/save`, {
      client,
      method: "PATCH",
      headers: { Cookie: cookie, "Content-Type": "application/json" },
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value: "late",
      }),
    });
    await late.body?.cancel();
    assert.equal(late.status, 503);
    assert.equal(late.headers.get("Connection"), "close");
    assert.ok(late.headers.get("Retry-After"));
    const ready = await fetch(`${base}/readyz`, { client });
    await ready.body?.cancel();
    assert.equal(ready.status, 503);

    // The requests in flight complete.
    const saves = await Promise.all(slowSaves.map((s) => s.finish()));
    for (const s of saves) assert.equal(s.status, 204, s.body);
    const up = await upload.finish();
    assert.equal(up.status, 200, up.body);
    const { key } = JSON.parse(up.body) as { key: string };
    stop = true;
    await Promise.all(lanes);

    const { code } = await demo.child.status;
    assert.equal(code, 0, await demo.output);
    for (const s of statuses) assert.ok(s === 204 || s === 503, `status ${s}`);

    // Nothing acknowledged is lost.
    const kv = await Deno.openKv(`${dataDir}/content.kv`);
    try {
      const store = new KvContentStore(kv);
      const stored = new Set(
        (await store.revisions("pages", "home", "title", 10_000))
          .map((r) => r.value),
      );
      for (const v of acknowledged) assert.ok(stored.has(v), `lost: ${v}`);
      // A save without an answer was never read, so never stored.
      for (const v of unanswered) {
        assert.ok(!stored.has(v), `stored without an answer: ${v}`);
      }
      for (const i of slowValues) {
        assert.ok([...stored].some((v) => String(v).startsWith(`slow ${i} `)));
      }
    } finally {
      kv.close();
    }
    const media = await Deno.stat(`${dataDir}/media/${key}`);
    assert.ok(media.isFile, "the acknowledged upload is stored");
    assert.ok(acknowledged.length > 0, "some fast saves were acknowledged");
  } finally {
    client.close();
    try {
      demo.child.kill("SIGKILL");
    } catch { /* already exited */ }
    await demo.child.status;
    await demo.output.catch(() => "");
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test({
  name:
    "shutdown: SIGTERM twice with saves and an upload in flight, 3 runs: every answer 2xx or 503, nothing unanswered stored, nothing acknowledged lost",
  sanitizeResources: false,
  async fn() {
    const clientDir = await Deno.makeTempDir({ prefix: "cms-client-" });
    try {
      await buildClient(clientDir);
      const png = await samplePng(64, 48);
      for (let run = 0; run < 3; run++) await oneRun(clientDir, png);
    } finally {
      await Deno.remove(clientDir, { recursive: true });
    }
  },
});
