import assert from "node:assert/strict";
import {
  createSaveHandler,
  type SaveEvent,
} from "../../../server/save/handler.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import type {
  ContentRecord,
  ContentStore,
} from "../../../server/store/types.ts";
import type { Editor } from "../../../server/http/auth.ts";
import { contentVersion } from "../../../core/version.ts";
import { REMOVED_HEADER } from "../../../core/protocol/mod.ts";
import { serve } from "../../helpers/serve.ts";

const URL_ = "https://site.example/api/cms/save";
const allowlist = {
  pages: { title: "plain", body: "rich", features: "list" },
} as const;
const seed = (): Record<string, ContentRecord> => ({
  "pages:home": {
    title: "Hello",
    body: "<p>Hi</p>",
    features: ["Fast", "Small", "Safe"],
  },
});

/** A MemoryContentStore that counts calls to `update`. */
class SpyStore implements ContentStore {
  inner = new MemoryContentStore(seed());
  updates = 0;
  get(collection: string, key: string) {
    return this.inner.get(collection, key);
  }
  update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
  ) {
    this.updates++;
    return this.inner.update(collection, key, mutate);
  }
}

const ada: Editor = { name: "Ada" };

function setup(options: Partial<Parameters<typeof createSaveHandler>[0]> = {}) {
  const store = new SpyStore();
  const events: SaveEvent[] = [];
  const handler = createSaveHandler({
    authorize: () => ada,
    allowlist,
    store,
    onSave: (e) => {
      events.push(e);
    },
    ...options,
  });
  return { store, handler, events, home: () => store.get("pages", "home") };
}

function save(body: unknown, init: RequestInit = {}): Request {
  return new Request(URL_, {
    method: "PATCH",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

/** A body stream that records whether it was read and cancelled. */
function watchedBody(chunks: Uint8Array[]) {
  const seen = { pulls: 0, bytes: 0, cancelled: false };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.pulls++;
      if (i >= chunks.length) return controller.close();
      seen.bytes += chunks[i].byteLength;
      controller.enqueue(chunks[i++]);
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

async function expectText(res: Response, status: number): Promise<string> {
  assert.equal(res.status, status);
  assert.equal(res.headers.get("Content-Type"), "text/plain; charset=utf-8");
  const reason = await res.text();
  assert.ok(reason.length > 0 && reason.length < 100, reason);
  return reason;
}

Deno.test("save: PATCH and POST are accepted; other methods get 405 with Allow", async () => {
  const { handler, home } = setup();
  for (const [method, title] of [["PATCH", "One"], ["POST", "Two"]]) {
    const res = await handler(
      save({ collection: "pages", key: "home", field: "title", value: title }, {
        method,
      }),
    );
    assert.equal(res.status, 204, method);
    assert.equal((await home())?.title, title);
  }
  for (const method of ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]) {
    const res = await handler(new Request(URL_, { method }));
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("Allow"), "PATCH, POST");
    await res.body?.cancel();
  }
});

Deno.test("save: no authorized editor gets 403 before the body is read", async () => {
  for (
    const authorize of [
      () => null,
      () => undefined,
      () => Promise.resolve(null),
    ]
  ) {
    const { handler, store } = setup({ authorize });
    const { stream, seen } = watchedBody([
      new TextEncoder().encode(
        '{"collection":"pages","key":"home","field":"title","value":"x"}',
      ),
    ]);
    const res = await handler(
      new Request(
        URL_,
        { method: "PATCH", body: stream, duplex: "half" } as RequestInit,
      ),
    );
    await expectText(res, 403);
    assert.equal(seen.pulls, 0);
    assert.equal(store.updates, 0);
  }
});

Deno.test("save: authorize sees the request (session from the cookie)", async () => {
  const { handler, home } = setup({
    authorize: (req) => req.headers.get("Cookie") === "session=ok" ? ada : null,
  });
  const body = { collection: "pages", key: "home", field: "title", value: "x" };
  await expectText(await handler(save(body)), 403);
  const res = await handler(save(body, { headers: { Cookie: "session=ok" } }));
  assert.equal(res.status, 204);
  assert.equal((await home())?.title, "x");
});

Deno.test("save: cross-site requests get 403 and write nothing", async () => {
  let asked = 0;
  const { handler, store, home } = setup({
    authorize: () => (asked++, ada),
    allowedOrigins: ["https://cdn.example"],
  });
  const body = {
    collection: "pages",
    key: "home",
    field: "title",
    value: "evil",
  };
  for (
    const headers of <Record<string, string>[]> [
      { Origin: "https://evil.example" },
      { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site", Origin: "https://other.site.example" },
    ]
  ) {
    await expectText(await handler(save(body, { headers })), 403);
  }
  assert.equal(asked, 0);
  assert.equal(store.updates, 0);
  assert.equal((await home())?.title, "Hello");
  for (
    const headers of <Record<string, string>[]> [
      { "Sec-Fetch-Site": "same-origin" },
      { Origin: "https://site.example" },
      { "Sec-Fetch-Site": "cross-site", Origin: "https://cdn.example" },
    ]
  ) {
    assert.equal((await handler(save(body, { headers }))).status, 204);
  }
});

Deno.test("save: malformed bodies get 400 and never reach the store", async () => {
  const { handler, store, home } = setup();
  const bad: unknown[] = [
    "",
    "{",
    '{"collection":"pages",',
    "not json",
    "[]",
    "null",
    "42",
    '"string"',
    [],
    { key: "home", field: "title", value: "x" },
    { collection: "pages", field: "title", value: "x" },
    { collection: "pages", key: "home", value: "x" },
    { collection: 1, key: "home", field: "title", value: "x" },
    { collection: "pages", key: ["home"], field: "title", value: "x" },
    { collection: "pages", key: "home", field: null, value: "x" },
    { collection: "pages", key: "", field: "title", value: "x" },
    { collection: "pages", key: "k".repeat(513), field: "title", value: "x" },
    { collection: "pages", key: "home", field: "title" }, // no value
    {
      collection: "pages",
      key: "home",
      field: "title",
      value: "x",
      version: 5,
    },
    { collection: "pages", key: "\ud800", field: "title", value: "x" },
  ];
  for (const body of bad) {
    await expectText(await handler(save(body)), 400);
  }
  const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
  await expectText(await handler(save("", { body: invalidUtf8 })), 400);
  assert.equal(store.updates, 0);
  assert.deepEqual(await home(), seed()["pages:home"]);
});

Deno.test("save: a Content-Length over the limit gets 413 without reading the body", async () => {
  const { handler, store } = setup({ maxBodyBytes: 1024 });
  const { stream, seen } = watchedBody([new Uint8Array(2048)]);
  const res = await handler(
    new Request(URL_, {
      method: "PATCH",
      body: stream,
      headers: { "Content-Length": "2048" },
      duplex: "half",
    } as RequestInit),
  );
  await expectText(res, 413);
  assert.equal(seen.bytes, 0);
  assert.equal(store.updates, 0);
});

Deno.test("save: a declared length smaller than the body cannot pass the limit", async () => {
  const { handler, store } = setup({ maxBodyBytes: 1024 });
  const body = JSON.stringify({
    collection: "pages",
    key: "home",
    field: "title",
    value: "x".repeat(2000),
  });
  const res = await handler(
    save(body, { headers: { "Content-Length": "10" } }),
  );
  await expectText(res, 413);
  assert.equal(store.updates, 0);
});

Deno.test("save: a small declared length over a long stream is never read whole", async () => {
  // Deno.serve enforces Content-Length, but a Request built in process (a
  // proxy, an adapter) may carry any header with any stream.
  const { handler, store } = setup({ maxBodyBytes: 1024 });
  const chunk = new Uint8Array(16 * 1024).fill(0x20);
  const { stream, seen } = watchedBody(
    Array.from({ length: 200 }, () => chunk),
  );
  const res = await handler(
    new Request(URL_, {
      method: "PATCH",
      body: stream,
      headers: { "Content-Length": "10" },
      duplex: "half",
    } as RequestInit),
  );
  await expectText(res, 413);
  assert.ok(seen.bytes <= 2 * chunk.length, `read ${seen.bytes}`);
  assert.equal(seen.cancelled, true);
  assert.equal(store.updates, 0);
});

Deno.test("save: a chunked body is counted, cancelled and 413 past the limit", async () => {
  const { handler, store } = setup(); // default 1 MiB
  const chunk = new Uint8Array(16 * 1024).fill(0x20);
  const { stream, seen } = watchedBody(
    Array.from({ length: 200 }, () => chunk),
  );
  const res = await handler(
    new Request(
      URL_,
      { method: "PATCH", body: stream, duplex: "half" } as RequestInit,
    ),
  );
  await expectText(res, 413);
  assert.ok(seen.bytes <= 1024 * 1024 + chunk.length, `read ${seen.bytes}`);
  assert.ok(seen.pulls < 200);
  assert.equal(seen.cancelled, true);
  assert.equal(store.updates, 0);
});

Deno.test("save: a body at exactly the limit is accepted", async () => {
  const { handler, home } = setup({ maxBodyBytes: 200 });
  const base = JSON.stringify({
    collection: "pages",
    key: "home",
    field: "title",
    value: "",
  });
  const value = "x".repeat(200 - base.length);
  const body = JSON.stringify({
    collection: "pages",
    key: "home",
    field: "title",
    value,
  });
  assert.equal(body.length, 200);
  assert.equal((await handler(save(body))).status, 204);
  assert.equal((await home())?.title, value);
  await expectText(await handler(save(body.replace("}", " }"))), 413);
});

Deno.test("save: fields outside the allowlist get 400 and never reach the store", async () => {
  const { handler, store, home } = setup();
  const cases: [string, string][] = [
    ["posts", "title"],
    ["__proto__", "title"],
    ["constructor", "title"],
    ["toString", "title"],
    ["pages", "subtitle"],
    ["pages", "__proto__"],
    ["pages", "constructor"],
    ["pages", "hasOwnProperty"],
    ["pages", "toString"],
    ["pages", "valueOf"],
    ["pages", "__proto__.polluted"],
    ["pages", "title.0"], // dotted path on a non-list
    ["pages", "body.1"],
    ["pages", "features"], // bare list name
    ["pages", "features."],
    ["pages", "features.01"],
    ["pages", "features.-1"],
    ["pages", "features.1.0"],
    ["pages", "features.1e2"],
    ["pages", "features. 1"],
    ["pages", "features.1 "],
    ["pages", "features.+1"],
    ["pages", "features.0x1"],
    ["pages", "features.99999999999999999999"],
    ["pages", "features.length"],
    ["pages", "features.__proto__"],
    ["pages", ".features.0"],
    ["pages", "Title"],
  ];
  for (const [collection, field] of cases) {
    const res = await handler(
      save({ collection, key: "home", field, value: "x" }),
    );
    await expectText(res, 400);
  }
  assert.equal(store.updates, 0);
  assert.deepEqual(await home(), seed()["pages:home"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("save: a list index that is not an existing item gets 400, record unchanged", async () => {
  const { handler, home, store } = setup();
  for (
    const [key, field] of [["home", "features.3"], ["home", "features.999"], [
      "new",
      "features.0",
    ]]
  ) {
    const res = await handler(
      save({ collection: "pages", key, field, value: "x" }),
    );
    await expectText(res, 400);
  }
  assert.deepEqual(await home(), seed()["pages:home"]);
  assert.equal(await store.get("pages", "new"), null);
});

Deno.test("save: a list item is replaced at its index, the rest kept", async () => {
  const { handler, home } = setup();
  const res = await handler(
    save({
      collection: "pages",
      key: "home",
      field: "features.1",
      value: "Tiny",
    }),
  );
  assert.equal(res.status, 204);
  assert.deepEqual((await home())?.features, ["Fast", "Tiny", "Safe"]);
  assert.equal((await home())?.title, "Hello");
});

Deno.test("save: plain values are coerced to strings; objects, arrays and null are 400", async () => {
  const { handler, home, store } = setup();
  const ok: [unknown, string][] = [[42, "42"], [1.5, "1.5"], [-0, "0"], [
    true,
    "true",
  ], [
    "é 😀",
    "é 😀",
  ], ["", ""]];
  for (const [value, stored] of ok) {
    const res = await handler(
      save({ collection: "pages", key: "home", field: "title", value }),
    );
    assert.equal(res.status, 204, String(value));
    assert.equal((await home())?.title, stored);
  }
  const updates = store.updates;
  for (const value of [null, {}, [], ["a"], { toString: "x" }]) {
    const res = await handler(
      save({ collection: "pages", key: "home", field: "title", value }),
    );
    await expectText(res, 400);
  }
  await expectText(
    await handler(
      save('{"collection":"pages","key":"home","field":"title","value":1e999}'),
    ),
    400,
  ); // Infinity
  await expectText(
    await handler(
      save(
        '{"collection":"pages","key":"home","field":"title","value":"\\udc00"}',
      ),
    ),
    400,
  ); // lone surrogate
  assert.equal(store.updates, updates);
  const list = await handler(
    save({ collection: "pages", key: "home", field: "features.0", value: 7 }),
  );
  assert.equal(list.status, 204);
  assert.deepEqual((await home())?.features, ["7", "Small", "Safe"]);
});

Deno.test("save: rich values are sanitized with the shared policy before storing", async () => {
  const { handler, home, events } = setup();
  const dirty =
    '<p onclick="steal()">Hi <script>alert(1)</script><b>there</b>' +
    '<img src="javascript:alert(1)" onerror="x()"><a href="javascript:alert(1)">x</a></p>';
  const res = await handler(
    save({ collection: "pages", key: "home", field: "body", value: dirty }),
  );
  assert.equal(res.status, 204);
  const stored = String((await home())?.body);
  assert.ok(stored.includes("<b>there</b>"), stored);
  for (const bad of ["script", "onclick", "onerror", "javascript:", "alert"]) {
    assert.ok(!stored.includes(bad), `${bad} in ${stored}`);
  }
  assert.equal(res.headers.get("CMS-Version"), contentVersion(stored));
  assert.equal(events[0].value, stored);
  for (const value of [42, true, null, ["<p>x</p>"]]) {
    await expectText(
      await handler(
        save({ collection: "pages", key: "home", field: "body", value }),
      ),
      400,
    );
  }
});

Deno.test("save: success is 204 with no body and CMS-Version of the stored value", async () => {
  const { handler } = setup();
  const res = await handler(
    save({ collection: "pages", key: "home", field: "title", value: 42 }),
  );
  assert.equal(res.status, 204);
  assert.equal(res.body, null);
  assert.equal(res.headers.get("CMS-Version"), contentVersion("42"));
  const item = await handler(
    save({
      collection: "pages",
      key: "home",
      field: "features.2",
      value: "Sound",
    }),
  );
  assert.equal(item.headers.get("CMS-Version"), contentVersion("Sound"));
});

Deno.test("save: a new record is created for plain and rich fields", async () => {
  const { handler, store } = setup();
  const res = await handler(
    save({ collection: "pages", key: "about", field: "title", value: "About" }),
  );
  assert.equal(res.status, 204);
  assert.deepEqual(await store.get("pages", "about"), { title: "About" });
});

Deno.test("save: a stale version gets 409 with the current value, and nothing is written", async () => {
  const { handler, home, events } = setup();
  const current = contentVersion("Hello");
  const ok = await handler(
    save({
      collection: "pages",
      key: "home",
      field: "title",
      value: "A",
      version: current,
    }),
  );
  assert.equal(ok.status, 204);
  const next = ok.headers.get("CMS-Version")!;
  assert.equal(next, contentVersion("A"));

  const stale = await handler(
    save({
      collection: "pages",
      key: "home",
      field: "title",
      value: "B",
      version: current,
    }),
  );
  assert.equal(stale.status, 409);
  assert.equal(stale.headers.get("Content-Type"), "application/json");
  assert.deepEqual(await stale.json(), {
    error: "conflict",
    value: "A",
    version: next,
  });
  assert.equal((await home())?.title, "A");

  const chained = await handler(
    save({
      collection: "pages",
      key: "home",
      field: "title",
      value: "C",
      version: next,
    }),
  );
  assert.equal(chained.status, 204);
  assert.equal((await home())?.title, "C");
  assert.equal(events.length, 2);
});

Deno.test("save: list items have their own version", async () => {
  const { handler, home } = setup();
  const other = await handler(
    save({
      collection: "pages",
      key: "home",
      field: "features.0",
      value: "Quick",
    }),
  );
  assert.equal(other.status, 204);
  // Item 1 did not change, so its version still matches.
  const ok = await handler(
    save({
      collection: "pages",
      key: "home",
      field: "features.1",
      value: "Lean",
      version: contentVersion("Small"),
    }),
  );
  assert.equal(ok.status, 204);
  const stale = await handler(
    save({
      collection: "pages",
      key: "home",
      field: "features.0",
      value: "Rapid",
      version: contentVersion("Fast"),
    }),
  );
  assert.equal(stale.status, 409);
  assert.deepEqual(await stale.json(), {
    error: "conflict",
    value: "Quick",
    version: contentVersion("Quick"),
  });
  assert.deepEqual((await home())?.features, ["Quick", "Lean", "Safe"]);
});

Deno.test("save: onSave gets the stored value and editor; its failure does not fail the save", async () => {
  const { handler, events } = setup();
  await handler(
    save({ collection: "pages", key: "home", field: "features.0", value: 1 }),
  );
  assert.deepEqual(events, [{
    collection: "pages",
    key: "home",
    field: "features.0",
    value: "1",
    editor: ada,
  }]);
  const errors: unknown[] = [];
  const log = console.error;
  console.error = (...args) => errors.push(args);
  try {
    const failing = setup({
      onSave: () => {
        throw new Error("purge failed");
      },
    });
    const res = await failing.handler(
      save({ collection: "pages", key: "home", field: "title", value: "x" }),
    );
    assert.equal(res.status, 204);
    assert.equal((await failing.home())?.title, "x");
    assert.equal(errors.length, 1);
  } finally {
    console.error = log;
  }
});

Deno.test("save: store faults are 500; store errors with a 4xx status keep it", async () => {
  const errors: unknown[] = [];
  const log = console.error;
  console.error = (...args) => errors.push(args);
  try {
    const broken: ContentStore = {
      get: () => Promise.resolve(null),
      update: () => Promise.reject(new Error("disk on fire")),
    };
    const tooLarge: ContentStore = {
      get: () => Promise.resolve(null),
      update: () =>
        Promise.reject(
          Object.assign(new Error("record too large"), { status: 413 }),
        ),
    };
    const body = {
      collection: "pages",
      key: "home",
      field: "title",
      value: "x",
    };
    const { handler: a } = setup({ store: broken });
    await expectText(await a(save(body)), 500);
    const { handler: b } = setup({ store: tooLarge });
    assert.equal(
      await expectText(await b(save(body)), 413),
      "record too large",
    );
    assert.equal(errors.length, 1);
  } finally {
    console.error = log;
  }
});

Deno.test("save: over real HTTP (Deno.serve + fetch)", async () => {
  const { handler, home } = setup({ maxBodyBytes: 4096 });
  const server = serve(handler);
  try {
    const url = `${server.url}/api/cms/save`;
    const body = JSON.stringify({
      collection: "pages",
      key: "home",
      field: "title",
      value: "Net",
    });
    const ok = await fetch(url, { method: "PATCH", body });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get("CMS-Version"), contentVersion("Net"));
    await ok.body?.cancel();
    const cross = await fetch(url, {
      method: "PATCH",
      body,
      headers: { Origin: "https://evil.example" },
    });
    assert.equal(cross.status, 403);
    await cross.body?.cancel();
    const big = await fetch(url, { method: "PATCH", body: "x".repeat(5000) });
    assert.equal(big.status, 413);
    await big.body?.cancel();
    const chunks = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(1024));
        c.close();
      },
    });
    const chunked = await fetch(url, {
      method: "PATCH",
      body: chunks,
      duplex: "half",
    } as RequestInit);
    assert.equal(chunked.status, 413);
    await chunked.body?.cancel();
    assert.equal((await home())?.title, "Net");
  } finally {
    await server.close();
  }
});

Deno.test("save: canEdit runs once the field is known, with the address, editor and context", async () => {
  const seen: unknown[] = [];
  const { handler, store, home } = setup({
    authorize: (_req, context) => ({ name: "Ada", context }),
    canEdit: (_req, field, editor, context) => {
      seen.push([field, editor.name, context]);
      return field.key !== "home" || field.field !== "title";
    },
  });
  const body = (field: string) => ({
    collection: "pages",
    key: "home",
    field,
    value: "x",
  });
  const denied = await handler(save(body("title")), { context: "ctx" });
  assert.equal(await expectText(denied, 403), "Not allowed to edit this field");
  assert.equal(store.updates, 0);
  assert.equal((await home())?.title, "Hello");
  assert.equal((await handler(save(body("features.1")))).status, 204);
  assert.deepEqual(seen, [
    [{ collection: "pages", key: "home", field: "title" }, "Ada", "ctx"],
    [
      { collection: "pages", key: "home", field: "features", index: 1 },
      "Ada",
      undefined,
    ],
  ]);
  // Not reached for fields outside the allowlist or bad addresses.
  await expectText(await handler(save(body("subtitle"))), 400);
  await expectText(await handler(save({ ...body("title"), key: "a b" })), 400);
  assert.equal(seen.length, 2);
});

Deno.test("save: allowedHosts refuses other Host headers with 421 (DNS rebinding)", async () => {
  let asked = 0;
  const { handler, store } = setup({
    authorize: () => (asked++, ada),
    allowedHosts: ["site.example", "localhost:8000"],
  });
  const body = { collection: "pages", key: "home", field: "title", value: "x" };
  for (const host of ["evil.example", "evil.example:8000", "localhost:8001"]) {
    const res = await handler(
      save(body, {
        headers: {
          Host: host,
          Origin: `http://${host}`,
          "Sec-Fetch-Site": "same-origin",
        },
      }),
    );
    assert.equal(await expectText(res, 421), "Unknown host");
  }
  assert.equal(asked, 0);
  assert.equal(store.updates, 0);
  for (const host of ["site.example", "LOCALHOST:8000"]) {
    const res = await handler(save(body, { headers: { Host: host } }));
    assert.equal(res.status, 204, host);
  }
  // Without a Host header, the URL's host counts.
  assert.equal((await handler(save(body))).status, 204);
});

Deno.test("save: with publicOrigin, a same-origin request from another origin is 403", async () => {
  const { handler, store } = setup({ publicOrigin: "https://www.example.com" });
  const body = { collection: "pages", key: "home", field: "title", value: "x" };
  // DNS rebinding: the browser thinks evil.example:8000 is same-origin.
  const rebound = {
    Origin: "http://evil.example:8000",
    "Sec-Fetch-Site": "same-origin",
  };
  await expectText(await handler(save(body, { headers: rebound })), 403);
  await expectText(
    await handler(save(body, { headers: { "Sec-Fetch-Site": "cross-site" } })),
    403,
  );
  // req.url is an internal address behind the proxy: its origin is not ours.
  await expectText(
    await handler(save(body, { headers: { Origin: "https://site.example" } })),
    403,
  );
  assert.equal(store.updates, 0);
  const ok = {
    Origin: "https://www.example.com",
    "Sec-Fetch-Site": "same-origin",
  };
  assert.equal((await handler(save(body, { headers: ok }))).status, 204);
  assert.equal(
    (await handler(save(body, { headers: { "Sec-Fetch-Site": "none" } })))
      .status,
    204,
  );
  // Per call, a wrapper's origin (e.g. Fresh's ctx.url) overrides the option.
  const call = { publicOrigin: "https://proxy.example" };
  await expectText(await handler(save(body, { headers: ok }), call), 403);
  const viaProxy = { Origin: "https://proxy.example" };
  assert.equal(
    (await handler(save(body, { headers: viaProxy }), call)).status,
    204,
  );
});

Deno.test("save: a store fault answers 500 with an error id that is also logged", async () => {
  const logged: string[] = [];
  const log = console.error;
  console.error = (...args) => logged.push(args.map(String).join(" "));
  try {
    const { handler } = setup({
      store: {
        get: () => Promise.resolve(null),
        update: () => Promise.reject(new TypeError("pool exhausted")),
      },
    });
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const reason = await expectText(
        await handler(
          save({
            collection: "pages",
            key: "home",
            field: "title",
            value: "x",
          }),
        ),
        500,
      );
      const id = /^Internal error \(id ([0-9a-f]{16})\)$/.exec(reason)?.[1];
      assert.ok(id, reason);
      assert.ok(logged[i].includes(id) && logged[i].includes("pool exhausted"));
      assert.ok(!reason.includes("pool"), "no internals in the answer");
      ids.add(id);
    }
    assert.equal(ids.size, 3);
  } finally {
    console.error = log;
  }
});

Deno.test("save: CMS-Removed counts what the sanitizer removed from a rich value, absent otherwise", async () => {
  const { handler, home } = setup();
  const cases: [string, unknown, string | null][] = [
    // one attribute, one <script> element
    ["body", '<p onclick="x()">Hi<script>x()</script></p>', "2"],
    ["body", "<div>Name</div><div>Role</div>", "2"], // two unwrapped
    ["body", "<p>Already clean</p>", null],
    ["title", "<b>plain fields are stored as sent</b>", null],
  ];
  for (const [field, value, removed] of cases) {
    const res = await handler(
      save({ collection: "pages", key: "home", field, value }),
    );
    assert.equal(res.status, 204, String(value));
    assert.equal(res.headers.get(REMOVED_HEADER), removed, String(value));
  }
  assert.equal((await home())?.body, "<p>Already clean</p>");
});

Deno.test("save: srcset under the mediaBase option survives a save; elsewhere it goes", async () => {
  const img =
    '<img src="/media/a.jpg" width="2" height="1" srcset="/media/a-640.webp 640w, /media/a.webp 1280w" sizes="50vw">';
  const plain = '<img src="/media/a.jpg" width="2" height="1">';
  for (
    const [mediaBase, stored, removed] of [
      ["/media/", img, null],
      ["https://cdn.example/media/", plain, "2"],
      [undefined, plain, "2"],
    ] as const
  ) {
    const { handler, home } = setup({ mediaBase });
    const res = await handler(
      save({ collection: "pages", key: "home", field: "body", value: img }),
    );
    assert.equal(res.status, 204);
    assert.equal((await home())?.body, stored, String(mediaBase));
    assert.equal(res.headers.get(REMOVED_HEADER), removed, String(mediaBase));
  }
});

Deno.test("save: the sanitize option sets the limits for rich fields; nothing is stored past them", async () => {
  for (const nodes of [5, 20, 50]) {
    const { handler, home } = setup({ sanitize: { limits: { nodes } } });
    const before = (await home())?.body;
    const over = "<p>x</p>".repeat(nodes);
    const res = await handler(
      save({ collection: "pages", key: "home", field: "body", value: over }),
    );
    assert.equal(res.status, 413, `nodes=${nodes}`);
    assert.match(await res.text(), /node/i);
    assert.equal((await home())?.body, before, "nothing stored");
    const under = "<p>x</p>".repeat(Math.floor(nodes / 4));
    const ok = await handler(
      save({ collection: "pages", key: "home", field: "body", value: under }),
    );
    assert.equal(ok.status, 204, `nodes=${nodes} under`);
  }
});
