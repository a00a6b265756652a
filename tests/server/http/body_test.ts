/**
 * Uploads under pressure: idle-read timeout, total deadline scaled to the
 * size, and the memory budget for bodies in flight.
 */
import assert from "node:assert/strict";
import {
  bodyBytesInFlight,
  type BodyTimeouts,
  readBody,
  setBodyBudget,
} from "../../../server/http/body.ts";
import { endpoint } from "../../../server/http/pipeline.ts";
import { setLogger } from "../../../server/ops/log.ts";
import { createMediaHandler } from "../../../server/media/upload.ts";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";

const enc = new TextEncoder();

/** Serves `handler` on a free 127.0.0.1 port. */
function serve(handler: (req: Request) => Promise<Response>) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  return { port: server.addr.port, close: () => server.shutdown() };
}

/** An endpoint that reads the body with `timeouts` and answers its size. */
function reader(
  maxBytes: number,
  timeouts?: BodyTimeouts,
  hold?: Promise<void>,
) {
  return endpoint("test", async (req) => {
    const body = await readBody(req, maxBytes, timeouts);
    await hold;
    return new Response(String(body.byteLength));
  });
}

/**
 * Sends a request head over raw TCP, then `bytes` bytes one at a time every
 * `everyMs` (at most `bytes` writes), stopping once an answer arrives.
 */
async function trickle(
  port: number,
  path: string,
  declared: number,
  bytes: number,
  everyMs: number,
): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Content-Length: ${declared}\r\n\r\n`,
    ));
    let answered = false;
    const reply = (async () => {
      let raw = "";
      const buf = new Uint8Array(4096);
      for (let i = 0; i < 100; i++) {
        const n = await conn.read(buf).catch(() => null);
        if (n === null) break;
        raw += new TextDecoder().decode(buf.subarray(0, n));
        if (/\r\n\r\n[\s\S]*$/.test(raw) && /content-length: \d+/i.test(raw)) {
          const len = Number(/content-length: (\d+)/i.exec(raw)![1]);
          if (raw.length - raw.indexOf("\r\n\r\n") - 4 >= len) break;
        }
      }
      answered = true;
      return raw;
    })();
    for (let i = 0; i < bytes && !answered; i++) {
      await new Promise((r) => setTimeout(r, everyMs));
      if (!answered) await conn.write(enc.encode("x")).catch(() => 0);
    }
    const raw = await reply;
    return {
      status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0),
      body: raw.slice(raw.indexOf("\r\n\r\n") + 4),
      ms: performance.now() - started,
    };
  } finally {
    conn.close();
  }
}

const quiet = () => setLogger(() => {});

Deno.test("body: a body that stalls gets 408 after the idle timeout", async () => {
  const restore = quiet();
  const server = serve(reader(1024, { idleMs: 300 }));
  try {
    // 3 bytes then silence.
    const res = await trickle(server.port, "/", 100, 3, 50);
    assert.equal(res.status, 408);
    assert.match(res.body, /stalled/);
    assert.ok(res.ms < 3_000, `answered after ${res.ms} ms`);
  } finally {
    await server.close();
    setLogger(restore);
  }
});

Deno.test("body: a trickling body gets 408 at its total deadline, scaled to the size", async () => {
  const restore = quiet();
  // 1,000 B/s wanted: 400 bytes get 200 + 400 ms; 4,000 bytes get 4.2 s.
  const timeouts = { idleMs: 1_000, baseMs: 200, minBytesPerSecond: 1_000 };
  const server = serve(reader(10_000, timeouts));
  try {
    const small = await trickle(server.port, "/", 400, 400, 100);
    assert.equal(small.status, 408);
    assert.match(small.body, /not complete within/);
    assert.ok(small.ms >= 550 && small.ms < 2_500, `${small.ms} ms`);
    // The same trickle under a larger declared size is given longer.
    const big = await trickle(server.port, "/", 4_000, 14, 100);
    assert.ok(big.ms > small.ms, "a larger body gets a later deadline");
  } finally {
    await server.close();
    setLogger(restore);
  }
});

Deno.test("body: a 1-byte-a-second upload to the media endpoint ends in 408 with the defaults, nothing stored", async () => {
  const restore = quiet();
  const storage = new MemoryMediaStorage();
  const server = serve(
    createMediaHandler({ authorize: () => ({ name: "Ada" }), storage }),
  );
  try {
    // Default: 10 s + size / 64 KiB/s; 2,000 bytes at 1 B/s would take 33 min.
    const res = await trickle(server.port, "/", 2_000, 15, 1_000);
    assert.equal(res.status, 408, res.body);
    assert.ok(res.ms >= 10_000 && res.ms < 14_000, `${res.ms} ms`);
    assert.deepEqual(storage.keys(), []);
  } finally {
    await server.close();
    setLogger(restore);
  }
});

Deno.test("body: over the memory budget is 503 with Retry-After before any buffer; the budget comes back", async () => {
  const restore = quiet();
  const MiB = 1024 * 1024;
  const previous = setBodyBudget(3 * MiB);
  const release = Promise.withResolvers<void>();
  const server = serve(reader(2 * MiB, undefined, release.promise));
  try {
    const body = new Uint8Array(MiB);
    // Three bodies of 1 MiB are read and held; the next ones do not fit.
    const held = [0, 1, 2].map(() =>
      fetch(`http://127.0.0.1:${server.port}/`, { method: "POST", body })
    );
    for (let i = 0; i < 50 && bodyBytesInFlight() < 3 * MiB; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(bodyBytesInFlight(), 3 * MiB);
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`http://127.0.0.1:${server.port}/`, {
        method: "POST",
        body,
      });
      assert.equal(res.status, 503, await res.text());
      assert.ok(Number(res.headers.get("Retry-After")) > 0);
    }
    // A body without a length is refused as it grows past the budget.
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(300 * 1024));
        c.close();
      },
    });
    const chunked = await fetch(`http://127.0.0.1:${server.port}/`, {
      method: "POST",
      body: stream,
    });
    assert.equal(chunked.status, 503);
    await chunked.body?.cancel();
    release.resolve();
    for (const res of await Promise.all(held)) {
      assert.equal(res.status, 200);
      assert.equal(await res.text(), String(MiB));
    }
    assert.equal(bodyBytesInFlight(), 0);
    const after = await fetch(`http://127.0.0.1:${server.port}/`, {
      method: "POST",
      body,
    });
    assert.equal(after.status, 200);
    await after.body?.cancel();
    assert.equal(bodyBytesInFlight(), 0);
  } finally {
    release.resolve();
    setBodyBudget(previous);
    await server.close();
    setLogger(restore);
  }
});
