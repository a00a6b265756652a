import assert from "node:assert/strict";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import {
  KeyTooLargeError,
  KvContentStore,
  RecordTooLargeError,
} from "../../../server/store/kv/mod.ts";
import {
  PostgresContentStore,
  UnstorableTextError,
} from "../../../postgres/store/mod.ts";
import type { ContentStore } from "../../../server/store/types.ts";
import postgres from "postgres";
import { HAS_POSTGRES, startPostgres } from "../../helpers/postgres.ts";

const WRITERS = 200;

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

Deno.test("MemoryContentStore: seeds from 'collection:key' ids", async () => {
  const seed = { "pages:home": { title: "Hello" }, "a:b:c": { v: "x" } };
  const store = new MemoryContentStore(seed);
  seed["pages:home"].title = "changed";
  assert.deepEqual(await store.get("pages", "home"), { title: "Hello" });
  assert.deepEqual(await store.get("a", "b:c"), { v: "x" });
  assert.throws(() => new MemoryContentStore({ nocolon: {} }), TypeError);
});

Deno.test("KvContentStore: one entry per record; history in the same commit", async () => {
  await using s = await kvStore(":memory:");
  const store = new KvContentStore(s.kv, { prefix: ["site", "v1"] });
  await store.update("pages", "home", () => ({ title: "T" }));
  let entries = await Array.fromAsync(s.kv.list({ prefix: [] }));
  assert.deepEqual(entries.map((e) => [e.key, e.value]), [
    [["site", "v1", "pages", "home"], { title: "T" }],
  ]);
  await store.update("pages", "home", () => ({ title: "U" }), {
    field: "title",
    editor: "Ada",
  });
  entries = await Array.fromAsync(s.kv.list({ prefix: [] }));
  const stamps = new Set(entries.map((e) => e.versionstamp));
  // Record, head, two revisions (the seeded "T" and "U") and their ids: all
  // carry one versionstamp, so one atomic commit wrote them.
  assert.equal(entries.length, 6);
  assert.equal(stamps.size, 1);
  assert.equal(await s.store.get("pages", "home"), null);
});

Deno.test("KvContentStore: a revision KV refuses leaves the value unchanged", async () => {
  await using s = await kvStore(":memory:");
  await s.store.update("pages", "home", () => ({ title: "Kept" }));
  // The record key is short; the revision key (it holds the field) is over
  // KV's 2 KiB key limit, so the commit with both fails as a whole.
  const field = "f".repeat(2100);
  await assert.rejects(
    s.store.update("pages", "home", (r) => ({ ...r, [field]: "x" }), {
      field,
      editor: "Ada",
    }),
    KeyTooLargeError,
  );
  assert.deepEqual(await s.store.get("pages", "home"), { title: "Kept" });
});

Deno.test("KvContentStore: revisions survive a restart", async () => {
  const dir = await Deno.makeTempDir();
  try {
    {
      await using s = await kvStore(`${dir}/cms.kv`);
      await s.store.update("pages", "home", () => ({ title: "A" }), {
        field: "title",
        editor: "Ada",
      });
    }
    const kv = await Deno.openKv(`${dir}/cms.kv`);
    try {
      const store = new KvContentStore(kv);
      const [rev] = await store.revisions("pages", "home", "title");
      assert.deepEqual([rev.value, rev.editor], ["A", "Ada"]);
      assert.deepEqual(await store.revision(rev.id), rev);
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
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

Deno.test("KvContentStore: a record whose field names pass 64 KiB is refused whole", async () => {
  await using s = await kvStore(":memory:");
  await s.store.update("pages", "big", () => ({ title: "small" }));
  const record: Record<string, string> = {};
  for (let i = 0; i < 300; i++) {
    record[`${"n".repeat(300)}${i}`] = "x".repeat(600);
  }
  const err = await s.store.update("pages", "big", () => record).catch((e) =>
    e
  );
  assert.ok(err instanceof RecordTooLargeError);
  assert.equal(err.status, 413);
  assert.match(err.message, /field names and small values/);
  assert.deepEqual(await s.store.get("pages", "big"), { title: "small" });
  // Nothing of the refused write is left behind.
  assert.deepEqual(
    await Array.fromAsync(s.kv.list({ prefix: ["cms", 5] })),
    [],
  );
  assert.deepEqual(
    await Array.fromAsync(s.kv.list({ prefix: ["cms", 6] })),
    [],
  );
  // A large field alone is fine.
  await s.store.update("pages", "big", () => ({ body: "ж".repeat(70_000) }));
  assert.equal((await s.store.get("pages", "big"))?.body, "ж".repeat(70_000));
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

Deno.test(
  "PostgresContentStore: atomic value and revision, restart, first use, NUL",
  { ignore: !HAS_POSTGRES },
  async (t) => {
    await using pg = await startPostgres();
    const url = await pg.database();
    await t.step(
      "tables are created on first use, by racing instances too",
      async () => {
        const stores = Array.from(
          { length: 4 },
          () => PostgresContentStore.connect(url, { max: 2 }),
        );
        try {
          await Promise.all(
            stores.map((st, i) =>
              st.update("pages", `p${i}`, () => ({ title: "x" }), {
                field: "title",
                editor: "Ada",
              })
            ),
          );
          for (const [i, st] of stores.entries()) {
            assert.deepEqual(await st.get("pages", `p${i}`), { title: "x" });
          }
        } finally {
          await Promise.all(stores.map((st) => st.close()));
        }
      },
    );

    await t.step(
      "a revision insert that fails rolls the value back",
      async () => {
        const sql = postgres(url, { max: 2, onnotice: () => {} });
        const store = new PostgresContentStore(sql);
        try {
          await store.update("pages", "home", () => ({ title: "Kept" }), {
            field: "title",
            editor: "Ada",
          });
          // Make the database itself refuse the revision row, after the record
          // row was already updated in the same transaction.
          await sql`ALTER TABLE cms_revisions ADD CONSTRAINT no_mallory
        CHECK (editor IS DISTINCT FROM 'Mallory')`;
          await assert.rejects(
            store.update("pages", "home", () => ({ title: "Lost" }), {
              field: "title",
              editor: "Mallory",
            }),
            /no_mallory/,
          );
          assert.deepEqual(await store.get("pages", "home"), { title: "Kept" });
          const revs = await store.revisions("pages", "home", "title");
          assert.deepEqual(revs.map((r) => r.value), ["Kept"]);
          await sql`ALTER TABLE cms_revisions DROP CONSTRAINT no_mallory`;
        } finally {
          await sql.end();
        }
      },
    );

    await t.step("revisions survive a restart of the client", async () => {
      const store = PostgresContentStore.connect(url);
      try {
        const revs = await store.revisions("pages", "home", "title");
        assert.deepEqual(revs.map((r) => [r.value, r.editor]), [[
          "Kept",
          "Ada",
        ]]);
      } finally {
        await store.close();
      }
    });

    await t.step(
      "text PostgreSQL cannot hold is a 400 error, nothing written",
      async () => {
        const store = PostgresContentStore.connect(url);
        try {
          const err = await store.update(
            "pages",
            "nul",
            () => ({ title: "a\0b" }),
          )
            .catch((e) => e);
          assert.ok(err instanceof UnstorableTextError, String(err));
          assert.equal(err.status, 400);
          assert.equal(await store.get("pages", "nul"), null);
        } finally {
          await store.close();
        }
      },
    );
  },
);
