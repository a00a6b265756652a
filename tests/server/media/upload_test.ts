import assert from "node:assert/strict";
import sharp from "sharp";
import {
  createMediaHandler,
  type MediaObject,
} from "../../../server/media/upload.ts";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";
import type { Editor } from "../../../server/http/auth.ts";
import type { MediaStorage } from "../../../server/media/types.ts";
import {
  avif,
  type Bytes,
  gif,
  html,
  jpeg,
  png,
  pngHeader,
  randomBytes,
  solid,
  svg,
} from "../../fixtures/images.ts";
import { serve } from "../../helpers/serve.ts";

const URL_ = "https://site.example/api/cms/media";
const PUBLIC = "https://cdn.example/bucket";
const ada: Editor = { name: "Ada" };

function setup(
  options: Partial<Parameters<typeof createMediaHandler>[0]> = {},
) {
  const storage = new MemoryMediaStorage({ publicUrl: PUBLIC });
  const puts: string[] = [];
  const counting: MediaStorage = {
    put: (key, bytes, type) => (puts.push(key), storage.put(key, bytes, type)),
    url: (key) => storage.url(key),
    delete: (key) => storage.delete(key),
  };
  const handler = createMediaHandler({
    authorize: () => ada,
    storage: counting,
    ...options,
  });
  return { handler, storage, puts };
}

function upload(
  body: BodyInit | null,
  headers: Record<string, string> = {},
): Request {
  return new Request(URL_, { method: "POST", body, headers });
}

/** A body stream that records what was read and whether it was cancelled. */
function watchedBody(chunk: Uint8Array, count: number) {
  const seen = { bytes: 0, cancelled: false };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i++ >= count) return controller.close();
      seen.bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

function streamed(
  stream: ReadableStream,
  headers: Record<string, string> = {},
) {
  return new Request(
    URL_,
    { method: "POST", body: stream, headers, duplex: "half" } as RequestInit,
  );
}

async function expectText(res: Response, status: number): Promise<string> {
  assert.equal(res.status, status);
  assert.equal(res.headers.get("Content-Type"), "text/plain; charset=utf-8");
  return await res.text();
}

Deno.test("media: POST only; other methods get 405 with Allow", async () => {
  const { handler, puts } = setup();
  for (const method of ["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
    const res = await handler(new Request(URL_, { method }));
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("Allow"), "POST");
    await res.body?.cancel();
  }
  assert.equal(puts.length, 0);
});

Deno.test("media: not authorized gets 403 before the body is read", async () => {
  const { handler, puts } = setup({ authorize: () => null });
  const { stream, seen } = watchedBody(gif(), 1);
  await expectText(await handler(streamed(stream)), 403);
  assert.equal(seen.bytes, 0);
  assert.equal(puts.length, 0);
});

Deno.test("media: authorizeMedia gates uploads and defaults to authorize", async () => {
  const editorOnly = setup({
    authorize: () => ada,
    authorizeMedia: () => null,
  });
  await expectText(await editorOnly.handler(upload(gif())), 403);
  const admin = setup({
    authorize: () => null,
    authorizeMedia: (req) =>
      req.headers.get("Cookie") === "role=admin" ? ada : null,
  });
  await expectText(await admin.handler(upload(gif())), 403);
  assert.equal(
    (await admin.handler(upload(gif(), { Cookie: "role=admin" }))).status,
    200,
  );
  const fallback = setup({ authorize: () => Promise.resolve(null) });
  await expectText(await fallback.handler(upload(gif())), 403);
  assert.equal(editorOnly.puts.length + fallback.puts.length, 0);
});

Deno.test("media: cross-site uploads get 403", async () => {
  const { handler, puts } = setup({
    allowedOrigins: ["https://admin.example"],
  });
  await expectText(
    await handler(upload(gif(), { Origin: "https://evil.example" })),
    403,
  );
  await expectText(
    await handler(upload(gif(), { "Sec-Fetch-Site": "cross-site" })),
    403,
  );
  assert.equal(puts.length, 0);
  const proxied = await handler(
    upload(gif(), { Origin: "https://admin.example" }),
  );
  assert.equal(proxied.status, 200);
  const same = await handler(
    upload(gif(), { "Sec-Fetch-Site": "same-origin" }),
  );
  assert.equal(same.status, 200);
});

Deno.test("media: Content-Length over the cap gets 413 without reading the body", async () => {
  const { handler, puts } = setup({ maxBytes: 1000 });
  const { stream, seen } = watchedBody(new Uint8Array(2000), 1);
  const res = await handler(streamed(stream, { "Content-Length": "2000" }));
  assert.match(await expectText(res, 413), /too large/i);
  assert.equal(seen.bytes, 0);
  assert.equal(puts.length, 0);
});

Deno.test("media: a chunked body past the cap is cancelled with 413, never buffered whole", async () => {
  const cap = 10 * 1024 * 1024;
  const { handler, puts } = setup(); // default cap 10 MiB
  const chunk = new Uint8Array(64 * 1024);
  const { stream, seen } = watchedBody(chunk, 176); // 11 MiB
  await expectText(await handler(streamed(stream)), 413);
  assert.ok(seen.bytes <= cap + chunk.length, `read ${seen.bytes}`);
  assert.equal(seen.cancelled, true);
  assert.equal(puts.length, 0);
});

Deno.test("media: a body of exactly the cap is accepted (chunked and with length)", async () => {
  const cap = 4096;
  const { handler } = setup({ maxBytes: cap });
  const image = new Uint8Array(cap);
  image.set(await png(3, 3));
  assert.equal((await handler(upload(image))).status, 200);
  const { stream } = watchedBody(image, 1);
  assert.equal((await handler(streamed(stream))).status, 200);
  const over = new Uint8Array(cap + 1);
  over.set(image);
  await expectText(await handler(upload(over)), 413);
});

Deno.test("media: each raster format is stored with its sniffed type, whatever Content-Type says", async () => {
  const { handler, storage } = setup();
  const cases: [Bytes, string, string, number, number][] = [
    [await png(7, 5), "image/png", "png", 7, 5],
    [await solid(30, 20, "gif"), "image/gif", "gif", 30, 20],
    [await solid(64, 48, "jpeg"), "image/jpeg", "jpg", 64, 48],
    [await solid(80, 60, "webp"), "image/webp", "webp", 80, 60],
    [await solid(40, 30, "avif"), "image/avif", "avif", 40, 30],
  ];
  for (const [bytes, type, ext, width, height] of cases) {
    const res = await handler(
      upload(bytes, { "Content-Type": "image/svg+xml" }),
    );
    assert.equal(res.status, 200, type);
    assert.equal(res.headers.get("Content-Type"), "application/json");
    const body: MediaObject = await res.json();
    assert.match(body.key, new RegExp(`^[0-9a-f-]{36}\\.${ext}$`));
    assert.equal(body.url, `${PUBLIC}/${body.key}`);
    assert.deepEqual({ ...body, key: 0, url: 0 }, {
      key: 0,
      url: 0,
      width,
      height,
      type,
      variants: [],
      processed: true,
    });
    const stored = storage.get(body.key);
    assert.equal(stored?.contentType, type);
    // Re-encoded without metadata (tests/server/image/pipeline_test.ts), same size.
    const meta = await sharp(stored!.bytes).metadata();
    assert.deepEqual([meta.width, meta.height], [width, height]);
  }
});

Deno.test("media: non-images get 415 and nothing is stored", async () => {
  const { handler, puts } = setup();
  const full = await png(4, 4);
  const bad: [string, BodyInit | null][] = [
    ["svg", svg],
    ["html", html],
    ["empty", new Uint8Array(0)],
    ["no body", null],
    ["random", randomBytes(4096, 7)],
    ["truncated png", full.subarray(0, 20)],
    ["truncated jpeg", jpeg(10, 10).subarray(0, 30)],
    ["png with bad IHDR", pngHeader(0, 10)],
    ["zero gif", gif(0, 0)],
    ["text", "GIF89a is what this says"],
  ];
  for (const [name, body] of bad) {
    const res = await handler(upload(body, { "Content-Type": "image/png" }));
    assert.match(await expectText(res, 415), /not a supported image/i, name);
  }
  assert.equal(puts.length, 0);
});

Deno.test("media: absurd pixel counts get 422 with a clear reason", async () => {
  const { handler, puts } = setup();
  const bomb = await handler(upload(pngHeader(100_000, 100_000)));
  assert.match(
    await expectText(bomb, 422),
    /100000x100000 pixels \(limit 40000000\)/,
  );
  const tight = setup({ maxPixels: 100 });
  assert.equal((await tight.handler(upload(gif(10, 10)))).status, 200);
  await expectText(await tight.handler(upload(gif(10, 11))), 422);
  await expectText(
    await tight.handler(upload(avif(5, 5, "avif", [[1000, 1000]]))),
    422,
  );
  assert.equal(puts.length, 0);
});

Deno.test("media: a custom key scheme", async () => {
  const { handler, storage } = setup({
    key: (info) => `uploads/fixed-${info.width}.${info.ext}`,
  });
  const res = await handler(upload(gif(9, 9)));
  const body: MediaObject = await res.json();
  assert.equal(body.key, "uploads/fixed-9.gif");
  assert.equal(body.url, `${PUBLIC}/uploads/fixed-9.gif`);
  assert.equal(storage.get("uploads/fixed-9.gif")?.contentType, "image/gif");
});

Deno.test("media: a storage fault is a 500", async () => {
  const log = console.error;
  const errors: unknown[] = [];
  console.error = (...args) => errors.push(args);
  try {
    const handler = createMediaHandler({
      authorize: () => ada,
      storage: {
        put: () => Promise.reject(new Error("bucket gone")),
        url: (k) => k,
        delete: () => Promise.resolve(),
      },
    });
    await expectText(await handler(upload(gif())), 500);
    assert.equal(errors.length, 1);
  } finally {
    console.error = log;
  }
});

Deno.test("media: over real HTTP (Deno.serve + fetch)", async () => {
  const { handler, storage } = setup({ maxBytes: 64 * 1024 });
  const server = serve(handler);
  try {
    const url = `${server.url}/api/cms/media`;
    const image = await png(16, 16);
    const ok = await fetch(url, { method: "POST", body: image });
    assert.equal(ok.status, 200);
    const body: MediaObject = await ok.json();
    const meta = await sharp(storage.get(body.key)!.bytes).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["png", 16, 16]);
    const big = await fetch(url, {
      method: "POST",
      body: new Uint8Array(100 * 1024),
    });
    assert.equal(big.status, 413);
    await big.body?.cancel();
    const svgRes = await fetch(url, {
      method: "POST",
      body: svg,
      headers: { "Content-Type": "image/png" },
    });
    assert.equal(svgRes.status, 415);
    await svgRes.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("media: a lying Content-Length never buffers past the cap nor pads the bytes", async () => {
  // Claims small, streams more: counted against the cap, then cancelled.
  // Without the decoder the bytes are stored as they came, so padding shows.
  const { handler, puts, storage } = setup({
    maxBytes: 4096,
    images: { sharp: () => Promise.reject(new Error("no sharp in this test")) },
  });
  const chunk = new Uint8Array(1024);
  const { stream, seen } = watchedBody(chunk, 1000);
  await expectText(
    await handler(streamed(stream, { "Content-Length": "10" })),
    413,
  );
  assert.ok(seen.bytes <= 4096 + chunk.length, `read ${seen.bytes}`);
  assert.equal(seen.cancelled, true);
  assert.equal(puts.length, 0);

  // Claims big, sends less: exactly the bytes that came are stored.
  const image = await png(4, 4);
  const short = watchedBody(image, 1);
  const res = await handler(
    streamed(short.stream, { "Content-Length": "4000" }),
  );
  assert.equal(res.status, 200);
  const { key }: MediaObject = await res.json();
  assert.deepEqual(storage.get(key)?.bytes, image);
});

Deno.test("media: a body cut short over real HTTP is refused, nothing stored", async () => {
  const { handler, puts } = setup();
  const server = serve(handler);
  try {
    const image = await png(16, 16);
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: Number(new URL(server.url).port),
    });
    const head = "POST /api/cms/media HTTP/1.1\r\nHost: x\r\n" +
      `Content-Length: ${image.length + 1000}\r\n\r\n`;
    await conn.write(new TextEncoder().encode(head));
    await conn.write(image);
    await conn.closeWrite(); // the client goes away mid-body
    const reply = new Uint8Array(4096);
    let got = "";
    for (let i = 0; i < 10; i++) {
      const n = await conn.read(reply);
      if (n === null) break;
      got += new TextDecoder().decode(reply.subarray(0, n));
    }
    conn.close();
    assert.doesNotMatch(got, /^HTTP\/1\.1 [25]/, got);
    assert.equal(puts.length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("media: a storage fault answers like save's: 500 with an error id that is also logged", async () => {
  const logged: string[] = [];
  const log = console.error;
  console.error = (...args) => logged.push(args.map(String).join(" "));
  try {
    const handler = createMediaHandler({
      authorize: () => ada,
      storage: {
        put: () => Promise.reject(new Error("bucket gone")),
        url: (k) => k,
        delete: () => Promise.resolve(),
      },
    });
    const reason = await expectText(await handler(upload(gif())), 500);
    const id = /^Internal error \(id ([0-9a-f]{16})\)$/.exec(reason)?.[1];
    assert.ok(id, reason);
    assert.ok(logged.some((l) => l.includes(id) && l.includes("bucket gone")));
  } finally {
    console.error = log;
  }
});

Deno.test("media: allowedHosts (421) and publicOrigin (403) gate uploads before anything is read", async () => {
  const { handler, puts } = setup({
    allowedHosts: ["site.example"],
    publicOrigin: "https://www.example.com",
  });
  const rebound = {
    Host: "evil.example",
    Origin: "http://evil.example",
    "Sec-Fetch-Site": "same-origin",
  };
  assert.equal(
    await expectText(await handler(upload(gif(), rebound)), 421),
    "Unknown host",
  );
  const wrongOrigin = { ...rebound, Host: "site.example" };
  await expectText(await handler(upload(gif(), wrongOrigin)), 403);
  assert.equal(puts.length, 0);
  const ok = { Host: "site.example", Origin: "https://www.example.com" };
  assert.equal((await handler(upload(gif(), ok))).status, 200);
  const call = { publicOrigin: "https://other.example" };
  await expectText(await handler(upload(gif(), ok), call), 403);
});
