import assert from "node:assert/strict";
import { MemoryContentStore } from "../server/store/memory.ts";
import {
  KeyTooLargeError,
  KvContentStore,
  RecordTooLargeError,
} from "../server/store/kv.ts";
import type { ContentRecord, ContentStore } from "../server/types.ts";

const WRITERS = 200;

/** Runs the same conformance checks against any ContentStore. */
function conformance(name: string, open: () => Promise<Store>) {
  Deno.test(`${name}: get of a missing record is null`, async () => {
    await using s = await open();
    assert.equal(await s.store.get("pages", "nope"), null);
  });

  Deno.test(`${name}: update writes and returns the record`, async () => {
    await using s = await open();
    const written = await s.store.update("pages", "home", (r) => {
      assert.equal(r, null);
      return { title: "Hello", features: ["a", "b"] };
    });
    assert.deepEqual(written, { title: "Hello", features: ["a", "b"] });
    assert.deepEqual(await s.store.get("pages", "home"), written);
    const next = await s.store.update("pages", "home", (r) => ({
      ...r,
      title: "Hi",
    }));
    assert.deepEqual(next, { title: "Hi", features: ["a", "b"] });
    assert.equal(await s.store.get("pages", "other"), null);
    assert.equal(await s.store.get("posts", "home"), null);
  });

  Deno.test(`${name}: mutate returning null writes nothing`, async () => {
    await using s = await open();
    assert.equal(await s.store.update("pages", "x", () => null), null);
    assert.equal(await s.store.get("pages", "x"), null);
    await s.store.update("pages", "x", () => ({ title: "kept" }));
    assert.equal(await s.store.update("pages", "x", () => null), null);
    assert.deepEqual(await s.store.get("pages", "x"), { title: "kept" });
  });

  Deno.test(`${name}: a throwing mutate writes nothing`, async () => {
    await using s = await open();
    await assert.rejects(
      s.store.update("pages", "x", () => {
        throw new Error("boom");
      }),
      /boom/,
    );
    assert.equal(await s.store.get("pages", "x"), null);
    await s.store.update("pages", "x", () => ({ after: "ok" }));
    assert.deepEqual(await s.store.get("pages", "x"), { after: "ok" });
  });

  Deno.test(`${name}: callers cannot mutate stored state`, async () => {
    await using s = await open();
    const input: ContentRecord = { title: "A", features: ["x"] };
    const written = await s.store.update("pages", "k", () => input);
    input.title = "changed";
    (input.features as string[]).push("y");
    (written!.features as string[]).push("z");
    const got = await s.store.get("pages", "k");
    got!.title = "also changed";
    await s.store.update("pages", "k", (current) => {
      (current!.features as string[]).push("in mutate");
      current!.title = "in mutate";
      return null;
    });
    assert.deepEqual(await s.store.get("pages", "k"), {
      title: "A",
      features: ["x"],
    });
  });

  Deno.test(`${name}: keys with colons and odd characters stay apart`, async () => {
    await using s = await open();
    await s.store.update("a:b", "c", () => ({ v: "1" }));
    await s.store.update("a", "b:c", () => ({ v: "2" }));
    await s.store.update("a", "__proto__", () => ({ v: "3" }));
    assert.deepEqual(await s.store.get("a:b", "c"), { v: "1" });
    assert.deepEqual(await s.store.get("a", "b:c"), { v: "2" });
    assert.deepEqual(await s.store.get("a", "__proto__"), { v: "3" });
  });

  Deno.test(
    `${name}: ${WRITERS} concurrent writers to distinct fields lose nothing`,
    async () => {
      await using s = await open();
      let runs = 0;
      const write = (i: number) =>
        s.store.update("pages", "home", (r) => {
          runs++;
          return { ...r, [`f${i}`]: `v${i}` };
        });
      await Promise.all(Array.from({ length: WRITERS }, (_, i) => write(i)));
      const record = await s.store.get("pages", "home");
      assert.ok(record);
      const lost = Array.from({ length: WRITERS }, (_, i) => i)
        .filter((i) => record[`f${i}`] !== `v${i}`);
      assert.deepEqual(lost, [], `lost updates: ${lost.length}`);
      assert.equal(Object.keys(record).length, WRITERS);
      console.log(
        `${name}: ${WRITERS} writers, 0 lost, ${runs - WRITERS} retries`,
      );
    },
  );

  Deno.test(
    `${name}: ${WRITERS} concurrent writers to distinct list items lose nothing`,
    async () => {
      await using s = await open();
      const empty = Array.from({ length: WRITERS }, () => "");
      await s.store.update("pages", "home", () => ({ features: empty }));
      await Promise.all(
        Array.from(
          { length: WRITERS },
          (_, i) =>
            s.store.update("pages", "home", (r) => {
              const features = [...(r!.features as string[])];
              features[i] = `item ${i}`;
              return { ...r, features };
            }),
        ),
      );
      const record = await s.store.get("pages", "home");
      assert.deepEqual(
        record?.features,
        Array.from({ length: WRITERS }, (_, i) => `item ${i}`),
      );
    },
  );
}

interface Store extends AsyncDisposable {
  store: ContentStore;
}

async function kvStore(path: string): Promise<Store & { kv: Deno.Kv }> {
  const kv = await Deno.openKv(path);
  return {
    kv,
    store: new KvContentStore(kv),
    [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
  };
}

conformance("MemoryContentStore", () =>
  Promise.resolve({
    store: new MemoryContentStore(),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  }));

conformance("KvContentStore :memory:", () => kvStore(":memory:"));

conformance("KvContentStore file", async () => {
  const dir = await Deno.makeTempDir();
  const s = await kvStore(`${dir}/cms.kv`);
  return {
    store: s.store,
    async [Symbol.asyncDispose]() {
      await s[Symbol.asyncDispose]();
      await Deno.remove(dir, { recursive: true });
    },
  };
});

Deno.test("MemoryContentStore: seeds from 'collection:key' ids", async () => {
  const seed = { "pages:home": { title: "Hello" }, "a:b:c": { v: "x" } };
  const store = new MemoryContentStore(seed);
  seed["pages:home"].title = "changed";
  assert.deepEqual(await store.get("pages", "home"), { title: "Hello" });
  assert.deepEqual(await store.get("a", "b:c"), { v: "x" });
  assert.throws(() => new MemoryContentStore({ nocolon: {} }), TypeError);
});

Deno.test("KvContentStore: one entry per record under the prefix", async () => {
  await using s = await kvStore(":memory:");
  const store = new KvContentStore(s.kv, { prefix: ["site", "v1"] });
  await store.update("pages", "home", () => ({ title: "T" }));
  const entries = await Array.fromAsync(s.kv.list({ prefix: [] }));
  assert.deepEqual(entries.map((e) => [e.key, e.value]), [
    [["site", "v1", "pages", "home"], { title: "T" }],
  ]);
  assert.equal(await s.store.get("pages", "home"), null);
});

Deno.test("KvContentStore: 8 instances on two KV handles of one file lose nothing", async () => {
  // Each store queues its own updates, so racing instances are what
  // exercises the check-and-set retries here.
  const dir = await Deno.makeTempDir();
  try {
    await using a = await kvStore(`${dir}/cms.kv`);
    await using b = await kvStore(`${dir}/cms.kv`);
    const stores = Array.from(
      { length: 8 },
      (_, i) => new KvContentStore(i % 2 ? a.kv : b.kv),
    );
    let runs = 0;
    await Promise.all(
      Array.from(
        { length: WRITERS },
        (_, i) =>
          stores[i % stores.length].update("pages", "home", (r) => {
            runs++;
            return { ...r, [`f${i}`]: `v${i}` };
          }),
      ),
    );
    const record = await a.store.get("pages", "home");
    const lost = Array.from({ length: WRITERS }, (_, i) => i)
      .filter((i) => record?.[`f${i}`] !== `v${i}`);
    assert.deepEqual(lost, [], `lost updates: ${lost.length}`);
    assert.ok(runs > WRITERS, `expected some retries, mutate ran ${runs}×`);
    console.log(
      `8 instances: ${WRITERS} writers, 0 lost, ${runs - WRITERS} retries`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("KvContentStore: records over 64 KiB throw RecordTooLargeError", async () => {
  await using s = await kvStore(":memory:");
  await s.store.update("pages", "big", () => ({ title: "small" }));
  const err = await s.store
    .update("pages", "big", () => ({ body: "x".repeat(70_000) }))
    .catch((e) => e);
  assert.ok(err instanceof RecordTooLargeError);
  assert.equal(err.status, 413);
  assert.deepEqual(await s.store.get("pages", "big"), { title: "small" });
});

Deno.test("KvContentStore: keys over the KV key limit throw KeyTooLargeError", async () => {
  await using s = await kvStore(":memory:");
  const long = "k".repeat(3000);
  await assert.rejects(s.store.get("pages", long), KeyTooLargeError);
  await assert.rejects(
    s.store.update("pages", long, () => ({ t: "x" })),
    KeyTooLargeError,
  );
});

Deno.test("KvContentStore: gives up with a clear error after maxAttempts", async () => {
  await using s = await kvStore(":memory:");
  const store = new KvContentStore(s.kv, { maxAttempts: 3 });
  let runs = 0;
  await assert.rejects(
    store.update("pages", "home", (r) => {
      runs++;
      // A competing write lands between every read and commit.
      s.kv.set(["cms", "pages", "home"], { n: String(runs) });
      return { ...r, mine: "x" };
    }),
    /lost 3 races/,
  );
  assert.equal(runs, 3);
  assert.equal((await s.store.get("pages", "home"))?.mine, undefined);
});
