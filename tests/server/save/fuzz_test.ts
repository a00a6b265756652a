/**
 * Seeded fuzz of the save endpoint: 1,000 malformed or hostile requests
 * against a real in-memory store. No answer may be a 5xx, and no rejected
 * request may change the store.
 */
import assert from "node:assert/strict";
import { createSaveHandler } from "../../../server/save/handler.ts";
import { KvContentStore } from "../../../server/store/kv/mod.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import type {
  ContentRecord,
  ContentStore,
} from "../../../server/store/types.ts";
import { contentVersion } from "../../../core/version.ts";

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 20261122;
const CASES = 1000;
const MAX_BODY = 4096;
const URL_ = "https://site.example/api/cms/save";
const allowlist = {
  pages: { title: "plain", body: "rich", features: "list" },
} as const;

const SEED_RECORD: ContentRecord = {
  title: "Hello",
  body: "<p>Hi</p>",
  features: ["a", "b", "c"],
};

/** Wraps a store and counts the writes that actually happened. */
class CountingStore implements ContentStore {
  writes = 0;
  constructor(readonly inner: ContentStore) {}
  get(collection: string, key: string) {
    return this.inner.get(collection, key);
  }
  async update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
  ) {
    const written = await this.inner.update(collection, key, mutate);
    if (written) this.writes++;
    return written;
  }
}

function generate(rand: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const int = (n: number) => Math.floor(rand() * n);
  const junkString = () =>
    pick([
      "",
      " ",
      "\u0000",
      "\ud800",
      "\udfff\ud800",
      "😀".repeat(int(5)),
      "x".repeat(int(3000)),
      "<script>alert(1)</script>",
      "../../etc/passwd",
      "%00",
      "title\u0000",
      "\u202etitle",
    ]);
  const junkValue = (depth = 0): unknown => {
    const kind = int(depth > 3 ? 7 : 9);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return rand() < 0.5;
      case 2:
        return pick([0, -1, 1e308, -1e308, 2 ** 53 + 1, 1e-320, 123456789.123]);
      case 3:
        return junkString();
      case 4:
        return pick([
          "title",
          "body",
          "features",
          "features.0",
          "home",
          "pages",
        ]);
      case 5:
        return pick([{}, [], [[]], { "": "" }]);
      case 6:
        return pick([
          "__proto__",
          "constructor",
          "hasOwnProperty",
          "prototype",
        ]);
      case 7:
        return Array.from({ length: int(4) }, () => junkValue(depth + 1));
      default:
        return Object.fromEntries(
          Array.from(
            { length: int(4) },
            () => [junkString(), junkValue(depth + 1)],
          ),
        );
    }
  };
  const field = () =>
    pick([
      "title",
      "body",
      "features.1",
      "features",
      "features.",
      "features.01",
      "features.-1",
      "features.1.0",
      "features.1e2",
      "features. 1",
      "features.3",
      "features.99999999999999999999",
      "title.0",
      "body.0",
      "__proto__",
      "constructor",
      "hasOwnProperty",
      "toString",
      "__proto__.polluted",
      "constructor.prototype.polluted",
      "features.__proto__",
      "features.length",
      "Title",
      "",
    ]);
  const base = (): Record<string, unknown> => ({
    collection: pick([
      "pages",
      "pages",
      "posts",
      "__proto__",
      "constructor",
      "",
    ]),
    key: pick(["home", "home", "other", "", "k".repeat(600)]),
    field: field(),
    value: rand() < 0.6 ? junkValue() : "fine",
  });

  let body: BodyInit | null;
  switch (int(10)) {
    case 0: { // truncated JSON
      const text = JSON.stringify({ ...base(), field: "title", value: "ok" });
      body = text.slice(0, int(text.length));
      break;
    }
    case 1: // raw literals and huge numbers
      body = pick([
        "1e999",
        "-1e999",
        '{"collection":"pages","key":"home","field":"title","value":1e999}',
        '{"collection":"pages","key":"home","field":"title","value":123456789012345678901234567890}',
        '{"collection":"pages","key":"home","field":"title","value":-0}',
        "null",
        "true",
        '"pages"',
        "[]",
        "{}",
        "",
        "   ",
        "\ufeff{}",
      ]);
      break;
    case 2: { // deep nesting
      const depth = 1 + int(20000);
      body = rand() < 0.5
        ? "[".repeat(depth) + "]".repeat(depth)
        : '{"a":'.repeat(depth) +
          "1" + "}".repeat(depth);
      break;
    }
    case 3: { // invalid UTF-8 and odd encodings
      const good = new TextEncoder().encode(
        JSON.stringify({ ...base(), value: "é" }),
      );
      const bytes = good.slice();
      for (let i = 0; i < 1 + int(4); i++) {
        bytes[int(bytes.length)] = pick([0xff, 0xc0, 0x80, 0xed]);
      }
      body = bytes;
      break;
    }
    case 4: // prototype keys in the body itself
      body = pick([
        '{"__proto__":{"collection":"pages","key":"home","field":"title","value":"x"}}',
        '{"collection":"pages","key":"home","field":"title","__proto__":{"value":"x"}}',
        '{"constructor":{"prototype":{"polluted":1}},"collection":"pages","key":"home","field":"__proto__","value":"x"}',
        '{"collection":"pages","key":"home","field":"title","value":{"__proto__":{"polluted":1}}}',
      ]);
      break;
    case 5: { // wrong types everywhere
      const b = base();
      for (const k of ["collection", "key", "field", "version"]) {
        if (rand() < 0.4) b[k] = junkValue();
      }
      body = JSON.stringify(b);
      break;
    }
    case 6: { // oversized
      body = JSON.stringify({
        ...base(),
        value: "x".repeat(MAX_BODY + int(10000)),
      });
      break;
    }
    case 7: { // stale or junk versions
      const b = base();
      b.version = pick([
        contentVersion("nope"),
        "",
        0,
        null,
        [],
        "x".repeat(100),
      ]);
      body = JSON.stringify(b);
      break;
    }
    default:
      body = JSON.stringify(base());
  }

  const method = rand() < 0.85
    ? pick(["PATCH", "POST"])
    : pick(["GET", "PUT", "DELETE", "OPTIONS", "PROPFIND", "patch"]);
  const headers = new Headers();
  if (rand() < 0.9) headers.set("Cookie", "session=ok");
  if (rand() < 0.2) {
    headers.set(
      "Content-Type",
      pick([
        "text/html",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "\u00ff",
      ]),
    );
  }
  if (rand() < 0.15) {
    headers.set(
      "Origin",
      pick(["https://evil.example", "null", "https://site.example"]),
    );
  }
  if (rand() < 0.15) {
    headers.set(
      "Sec-Fetch-Site",
      pick(["cross-site", "same-site", "same-origin", "none", "?"]),
    );
  }
  if (rand() < 0.05) {
    headers.set(
      "Content-Length",
      pick(["abc", "-1", "0", "1", "99999999999999999999"]),
    );
  } else if (rand() < 0.4 && body !== null) {
    // The honest length, as Deno.serve requests carry it (the fast path).
    const length = typeof body === "string"
      ? new TextEncoder().encode(body).length
      : (body as Uint8Array).length;
    headers.set("Content-Length", String(length));
  }
  const canHaveBody = method !== "GET" && method !== "HEAD";
  return new Request(URL_, {
    method,
    headers,
    body: canHaveBody ? body : null,
  });
}

async function fuzz(inner: ContentStore): Promise<Record<number, number>> {
  await inner.update("pages", "home", () => SEED_RECORD);
  const store = new CountingStore(inner);
  const handler = createSaveHandler({
    authorize: (req) =>
      req.headers.get("Cookie") === "session=ok" ? { name: "Fuzz" } : null,
    allowlist,
    store,
    maxBodyBytes: MAX_BODY,
  });
  const rand = mulberry32(SEED);
  const counts: Record<number, number> = {};
  for (let i = 0; i < CASES; i++) {
    const req = generate(rand);
    const before = {
      writes: store.writes,
      home: await store.get("pages", "home"),
    };
    const res = await handler(req);
    counts[res.status] = (counts[res.status] ?? 0) + 1;
    const reason = await res.text();
    assert.ok(res.status < 500, `case ${i}: ${res.status} ${reason}`);
    if (res.status === 204) continue;
    assert.ok(reason.length > 0, `case ${i}: empty ${res.status}`);
    assert.equal(
      store.writes,
      before.writes,
      `case ${i} (${res.status}) wrote`,
    );
    assert.deepEqual(
      await store.get("pages", "home"),
      before.home,
      `case ${i}`,
    );
    const type = res.headers.get("Content-Type");
    assert.equal(
      type,
      res.status === 409 ? "application/json" : "text/plain; charset=utf-8",
      `case ${i}`,
    );
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  assert.equal(total, CASES);
  // The generator must reach every kind of rejection, or it proves little.
  for (const status of [400, 403, 405, 413]) {
    assert.ok(counts[status] > 0, `no ${status}`);
  }
  return counts;
}

Deno.test(`save fuzz: ${CASES} seeded malformed requests, memory store: no 5xx, rejected ones write nothing`, async () => {
  console.log("status counts:", await fuzz(new MemoryContentStore()));
});

Deno.test(`save fuzz: ${CASES} seeded malformed requests, Deno KV store: no 5xx, rejected ones write nothing`, async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    console.log("status counts:", await fuzz(new KvContentStore(kv)));
  } finally {
    kv.close();
  }
});
