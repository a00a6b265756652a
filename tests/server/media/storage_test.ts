import assert from "node:assert/strict";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";
import {
  LocalMediaStorage,
  serveLocalMedia,
} from "../../../server/media/local.ts";
import { serve } from "../../helpers/serve.ts";
import { UNSAFE_LOCAL_KEYS } from "./_keys.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1]);

async function tempStorage(publicUrl?: string) {
  const dir = await Deno.makeTempDir({ prefix: "media-" });
  return {
    dir,
    storage: new LocalMediaStorage({ dir: `${dir}/media`, publicUrl }),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Sends a raw request line, so no client normalizes the path first. */
async function rawGet(base: string, path: string): Promise<string> {
  const { hostname, port } = new URL(base);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    await conn.write(new TextEncoder().encode(
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`,
    ));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(4096);
    for (let i = 0; i < 64; i++) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    return new TextDecoder().decode(
      new Uint8Array(chunks.flatMap((c) => [...c])),
    );
  } finally {
    conn.close();
  }
}

// Put, url, delete, list and copying at put: storage_contract_test.ts.
Deno.test("MemoryMediaStorage: get copies, the default public base", async () => {
  const media = new MemoryMediaStorage();
  await media.put("img/a.png", PNG, "image/png");
  const got = media.get("img/a.png");
  assert.deepEqual(got, { bytes: PNG, contentType: "image/png" });
  got!.bytes[1] = 0;
  assert.deepEqual(media.get("img/a.png")?.bytes, PNG);
  assert.equal(media.get("img/none.png"), null);
  assert.equal(media.url("img/a.png"), "/media/img/a.png");
});

Deno.test("LocalMediaStorage: writes bytes and a type sidecar, no temp files", async () => {
  await using t = await tempStorage();
  await t.storage.put("media/2024/a.png", PNG, "image/png");
  assert.deepEqual(await Deno.readFile(`${t.dir}/media/media/2024/a.png`), PNG);
  const names = [...Deno.readDirSync(`${t.dir}/media/media/2024`)]
    .map((e) => e.name).sort();
  assert.deepEqual(names, [".a.png.type", "a.png"]);
  await t.storage.put("media/2024/a.png", new Uint8Array([9]), "image/webp");
  const opened = await t.storage.open("media/2024/a.png");
  assert.ok(opened);
  opened.file.close();
  assert.equal(opened.contentType, "image/webp");
  assert.equal(opened.size, 1);
  assert.equal(t.storage.url("media/2024/a.png"), "/media/media/2024/a.png");
});

// Each unsafe key rejects with a TypeError: storage_contract_test.ts.
Deno.test("LocalMediaStorage: refused keys and types write nothing, not even the folder", async () => {
  await using t = await tempStorage();
  for (const key of UNSAFE_LOCAL_KEYS) {
    await assert.rejects(
      t.storage.put(key, PNG, "image/png"),
      TypeError,
      JSON.stringify(key),
    );
    assert.equal(await t.storage.open(key), null);
  }
  await assert.rejects(
    t.storage.put("ok.png", PNG, "image/png\r\nX-Evil: 1"),
    TypeError,
  );
  await assert.rejects(Deno.stat(`${t.dir}/media`), Deno.errors.NotFound);
});

Deno.test("serveLocalMedia: GET and HEAD with stored type and safe headers", async () => {
  await using t = await tempStorage();
  await t.storage.put("media/a.png", PNG, "image/gif"); // type is what was stored
  await t.storage.put("media/b c.webp", new Uint8Array([5]), "image/webp");
  const handler = serveLocalMedia(t.storage);
  const server = serve(handler);
  try {
    const res = await fetch(`${server.url}/media/media/a.png`);
    assert.equal(res.status, 200);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), PNG);
    assert.equal(res.headers.get("content-type"), "image/gif");
    assert.equal(res.headers.get("content-length"), String(PNG.length));
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.match(
      res.headers.get("content-security-policy")!,
      /^default-src 'none';.*sandbox/,
    );
    assert.equal(
      res.headers.get("cache-control"),
      "public, max-age=31536000, immutable",
    );

    const head = await fetch(`${server.url}/media/media/a.png`, {
      method: "HEAD",
    });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "image/gif");
    assert.equal(head.headers.get("content-length"), String(PNG.length));
    assert.equal(await head.text(), "");

    const spaced = await fetch(
      `${server.url}${t.storage.url("media/b c.webp")}`,
    );
    assert.equal(spaced.status, 200);
    assert.equal(spaced.headers.get("content-type"), "image/webp");
    assert.deepEqual(
      new Uint8Array(await spaced.arrayBuffer()),
      new Uint8Array([5]),
    );
  } finally {
    await server.close();
  }
});

Deno.test("serveLocalMedia: 404 for unknown keys, 405 for other methods", async () => {
  await using t = await tempStorage();
  await t.storage.put("a.png", PNG, "image/png");
  const handler = serveLocalMedia(t.storage);
  const get = (path: string, method = "GET") =>
    handler(new Request(`http://h${path}`, { method }));
  for (
    const path of [
      "/media/none.png",
      "/media/",
      "/other/a.png",
      "/media/.a.png.type",
      "/media/a.png/x",
      "/media/%E0%A4%A",
    ]
  ) {
    const res = await get(path);
    assert.equal(res.status, 404, path);
    assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
    await res.body?.cancel();
  }
  for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
    const res = await get("/media/a.png", method);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, HEAD");
    await res.body?.cancel();
  }
  const custom = serveLocalMedia(t.storage, { prefix: "/files/" });
  const res = await custom(new Request("http://h/files/a.png"));
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("serveLocalMedia: path traversal gets 404 over raw HTTP", async () => {
  await using t = await tempStorage();
  await Deno.writeTextFile(`${t.dir}/secret.txt`, "TOPSECRET");
  await t.storage.put("a.png", PNG, "image/png");
  await Deno.writeTextFile(`${t.dir}/.secret.txt.type`, "text/plain");
  const server = serve(serveLocalMedia(t.storage));
  try {
    const ok = await rawGet(server.url, "/media/a.png");
    assert.match(ok, /^HTTP\/1\.1 200/);
    for (
      const path of [
        "/media/../secret.txt",
        "/media/%2e%2e/secret.txt",
        "/media/%2E%2E%2Fsecret.txt",
        "/media/..%2fsecret.txt",
        "/media/..%5csecret.txt",
        "/media/%2e%2e%5csecret.txt",
        "/media//etc/passwd",
        "/media/%2fetc%2fpasswd",
        "/media/a.png%00",
      ]
    ) {
      const res = await rawGet(server.url, path);
      assert.doesNotMatch(res, /TOPSECRET/, path);
      assert.match(res, /^HTTP\/1\.1 (404|400)/, path);
    }
  } finally {
    await server.close();
  }
});

Deno.test("serveLocalMedia: streams a large file intact", async () => {
  await using t = await tempStorage();
  const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i * 7);
  await t.storage.put("big.avif", big, "image/avif");
  const server = serve(serveLocalMedia(t.storage));
  try {
    const res = await fetch(`${server.url}/media/big.avif`);
    assert.equal(res.headers.get("content-length"), String(big.length));
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), big);
  } finally {
    await server.close();
  }
});
