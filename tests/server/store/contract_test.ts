/**
 * One store contract, run unchanged against the memory, Deno KV and
 * PostgreSQL stores: records, concurrency, and history written with the
 * value.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { KvContentStore } from "../../../server/store/kv/mod.ts";
import { PostgresContentStore } from "../../../postgres/store/mod.ts";
import type {
  ContentRecord,
  DraftStore,
  HistoryStore,
  Retention,
  StoreLine,
} from "../../../server/store/types.ts";
import { HAS_POSTGRES, startPostgres } from "../../helpers/postgres.ts";

const WRITERS = 200;
const ED = { field: "title", editor: "Ada" };

interface Opened extends AsyncDisposable {
  store: HistoryStore;
}
type Open = (retention?: Retention) => Promise<Opened>;
type Case = (open: Open) => Promise<void>;

const cases: Record<string, Case> = {
  "get of a missing record is null": async (open) => {
    await using s = await open();
    assert.equal(await s.store.get("pages", "nope"), null);
  },

  "update writes and returns the record": async (open) => {
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
  },

  "mutate returning null writes nothing": async (open) => {
    await using s = await open();
    assert.equal(await s.store.update("pages", "x", () => null, ED), null);
    assert.equal(await s.store.get("pages", "x"), null);
    await s.store.update("pages", "x", () => ({ title: "kept" }));
    assert.equal(await s.store.update("pages", "x", () => null, ED), null);
    assert.deepEqual(await s.store.get("pages", "x"), { title: "kept" });
    assert.deepEqual(await s.store.revisions("pages", "x", "title"), []);
  },

  "a throwing mutate writes nothing": async (open) => {
    await using s = await open();
    await assert.rejects(
      s.store.update("pages", "x", () => {
        throw new Error("boom");
      }, ED),
      /boom/,
    );
    assert.equal(await s.store.get("pages", "x"), null);
    assert.deepEqual(await s.store.revisions("pages", "x", "title"), []);
    await s.store.update("pages", "x", () => ({ after: "ok" }));
    assert.deepEqual(await s.store.get("pages", "x"), { after: "ok" });
  },

  "callers cannot mutate stored state": async (open) => {
    await using s = await open();
    const input: ContentRecord = { title: "A", features: ["x"] };
    const written = await s.store.update("pages", "k", () => input, ED);
    input.title = "changed";
    (input.features as string[]).push("y");
    (written!.features as string[]).push("z");
    const got = await s.store.get("pages", "k");
    got!.title = "also changed";
    const [rev] = await s.store.revisions("pages", "k", "title");
    rev.value = "changed too";
    await s.store.update("pages", "k", (current) => {
      (current!.features as string[]).push("in mutate");
      current!.title = "in mutate";
      return null;
    });
    assert.deepEqual(await s.store.get("pages", "k"), {
      title: "A",
      features: ["x"],
    });
    assert.equal((await s.store.revision(rev.id))?.value, "A");
  },

  "keys with colons and odd characters stay apart": async (open) => {
    await using s = await open();
    await s.store.update("a:b", "c", () => ({ v: "1" }), { ...ED, field: "v" });
    await s.store.update("a", "b:c", () => ({ v: "2" }), { ...ED, field: "v" });
    await s.store.update("a", "__proto__", () => ({ v: "3" }));
    assert.deepEqual(await s.store.get("a:b", "c"), { v: "1" });
    assert.deepEqual(await s.store.get("a", "b:c"), { v: "2" });
    assert.deepEqual(await s.store.get("a", "__proto__"), { v: "3" });
    const revs = await s.store.revisions("a:b", "c", "v");
    assert.deepEqual(revs.map((r) => r.value), ["1"]);
  },

  [`${WRITERS} concurrent writers to distinct fields lose nothing`]: async (
    open,
  ) => {
    await using s = await open();
    const write = (i: number) =>
      s.store.update("pages", "home", (r) => ({ ...r, [`f${i}`]: `v${i}` }), {
        field: `f${i}`,
        editor: `e${i}`,
      });
    await Promise.all(Array.from({ length: WRITERS }, (_, i) => write(i)));
    const record = await s.store.get("pages", "home");
    assert.ok(record);
    const lost = Array.from({ length: WRITERS }, (_, i) => i)
      .filter((i) => record[`f${i}`] !== `v${i}`);
    assert.deepEqual(lost, [], `lost updates: ${lost.length}`);
    assert.equal(Object.keys(record).length, WRITERS);
    for (const i of [0, WRITERS / 2, WRITERS - 1]) {
      const revs = await s.store.revisions("pages", "home", `f${i}`);
      assert.deepEqual(revs.map((r) => [r.value, r.editor]), [[
        `v${i}`,
        `e${i}`,
      ]]);
    }
  },

  [`${WRITERS} concurrent writers to one field: one revision each, newest = current`]:
    async (open) => {
      await using s = await open();
      await Promise.all(
        Array.from(
          { length: WRITERS },
          (_, i) =>
            s.store.update("pages", "home", (r) => ({ ...r, title: `t${i}` }), {
              field: "title",
              editor: `e${i}`,
            }),
        ),
      );
      const revs = await s.store.revisions("pages", "home", "title");
      assert.equal(revs.length, WRITERS);
      assert.equal(revs[0].value, (await s.store.get("pages", "home"))?.title);
      assert.equal(new Set(revs.map((r) => r.value)).size, WRITERS);
      assert.equal(new Set(revs.map((r) => r.id)).size, WRITERS);
    },

  [`${WRITERS} concurrent writers to distinct list items lose nothing`]: async (
    open,
  ) => {
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
          }, { field: `features.${i}`, editor: "Ada" }),
      ),
    );
    const record = await s.store.get("pages", "home");
    assert.deepEqual(
      record?.features,
      Array.from({ length: WRITERS }, (_, i) => `item ${i}`),
    );
    const revs = await s.store.revisions("pages", "home", "features.7");
    // The seeded "" is kept as the value before history began.
    assert.deepEqual(revs.map((r) => [r.value, r.editor]), [
      ["item 7", "Ada"],
      ["", null],
    ]);
  },

  "a revision holds id, ISO time, editor, stored value and UTF-8 size": async (
    open,
  ) => {
    await using s = await open();
    const before = Date.now();
    await s.store.update("pages", "home", () => ({ title: "héllo" }), ED);
    const [rev] = await s.store.revisions("pages", "home", "title");
    assert.match(rev.id, /^[0-9a-f-]{36}$/);
    assert.equal(new Date(rev.at).toISOString(), rev.at);
    assert.ok(Date.parse(rev.at) >= before - 1000);
    assert.equal(rev.editor, "Ada");
    assert.equal(rev.value, "héllo");
    assert.equal(rev.bytes, 6);
    assert.equal(rev.published, rev.at);
    assert.deepEqual(
      [rev.collection, rev.key, rev.field],
      ["pages", "home", "title"],
    );
    assert.deepEqual(await s.store.revision(rev.id), rev);
    assert.equal(await s.store.revision(crypto.randomUUID()), null);
    assert.equal(await s.store.revision("not a uuid"), null);
    await s.store.update("pages", "home", (r) => ({ ...r, title: "d" }), {
      ...ED,
      published: false,
    });
    const [draft] = await s.store.revisions("pages", "home", "title");
    assert.equal(draft.published, undefined);
  },

  "history is newest first, limited, and per field": async (open) => {
    await using s = await open();
    for (let i = 1; i <= 5; i++) {
      await s.store.update("pages", "home", (r) => ({ ...r, title: `v${i}` }), {
        field: "title",
        editor: i % 2 ? "Ada" : "Bo",
      });
    }
    await s.store.update("pages", "home", (r) => ({ ...r, body: "b" }), {
      field: "body",
      editor: "Cy",
    });
    const all = await s.store.revisions("pages", "home", "title");
    assert.deepEqual(all.map((r) => r.value), ["v5", "v4", "v3", "v2", "v1"]);
    assert.deepEqual(all.map((r) => r.editor), [
      "Ada",
      "Bo",
      "Ada",
      "Bo",
      "Ada",
    ]);
    const two = await s.store.revisions("pages", "home", "title", 2);
    assert.deepEqual(two.map((r) => r.value), ["v5", "v4"]);
    assert.deepEqual(await s.store.revisions("pages", "home", "title", 0), []);
    const body = await s.store.revisions("pages", "home", "body");
    assert.deepEqual(body.map((r) => r.value), ["b"]);
    assert.deepEqual(await s.store.revisions("pages", "other", "title"), []);
  },

  "the first recorded save keeps the value the field held before": async (
    open,
  ) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ title: "Seeded" }));
    await s.store.update("pages", "home", (r) => ({ ...r, title: "New" }), ED);
    await s.store.update(
      "pages",
      "home",
      (r) => ({ ...r, title: "Newer" }),
      ED,
    );
    const revs = await s.store.revisions("pages", "home", "title");
    assert.deepEqual(revs.map((r) => [r.value, r.editor]), [
      ["Newer", "Ada"],
      ["New", "Ada"],
      ["Seeded", null],
    ]);
  },

  "a revision that cannot be written leaves the value unchanged": async (
    open,
  ) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ title: "Kept" }), ED);
    // The revision names a field the record does not hold: the store refuses
    // before anything is committed, record and revision alike.
    await assert.rejects(
      s.store.update("pages", "home", () => ({ title: "Lost" }), {
        field: "nope",
        editor: "Ada",
      }),
      TypeError,
    );
    assert.deepEqual(await s.store.get("pages", "home"), { title: "Kept" });
    const revs = await s.store.revisions("pages", "home", "title");
    assert.deepEqual(revs.map((r) => r.value), ["Kept"]);
  },

  "retention keeps the last N, never the current value": async (open) => {
    await using s = await open({ keep: 3 });
    const ids: string[] = [];
    for (let i = 1; i <= 8; i++) {
      await s.store.update(
        "pages",
        "home",
        (r) => ({ ...r, title: `v${i}` }),
        ED,
      );
      ids.push((await s.store.revisions("pages", "home", "title", 1))[0].id);
    }
    const revs = await s.store.revisions("pages", "home", "title");
    assert.deepEqual(revs.map((r) => r.value), ["v8", "v7", "v6"]);
    assert.equal(await s.store.revision(ids[0]), null);
    assert.equal((await s.store.revision(ids[7]))?.value, "v8");
  },

  "retention by age drops old revisions, never the current value": async (
    open,
  ) => {
    await using s = await open({ days: 30 });
    const old = (field: string, value: string, day: number): StoreLine => ({
      type: "revision",
      revision: {
        id: crypto.randomUUID(),
        collection: "pages",
        key: "home",
        field,
        at: `2000-01-0${day}T00:00:00.000Z`,
        editor: "Old",
        value,
        bytes: value.length,
        published: `2000-01-0${day}T00:00:00.000Z`,
      },
    });
    await s.store.load([
      {
        type: "record",
        collection: "pages",
        key: "home",
        record: { title: "o2", body: "b" },
      },
      old("title", "o1", 1),
      old("title", "o2", 2),
      old("body", "b", 1),
    ]);
    await s.store.update("pages", "home", (r) => ({ ...r, title: "new" }), ED);
    const title = await s.store.revisions("pages", "home", "title");
    assert.deepEqual(title.map((r) => r.value), ["new"]);
    // Untouched, and its only revision is its current value: it stays.
    const body = await s.store.revisions("pages", "home", "body");
    assert.deepEqual(body.map((r) => r.value), ["b"]);
  },

  "dump and load round-trip into an empty store only": async (open) => {
    await using a = await open();
    await a.store.update(
      "pages",
      "home",
      () => ({ title: "T", features: ["x", "y"] }),
    );
    await a.store.update("pages", "home", (r) => ({ ...r, title: "T2" }), ED);
    await a.store.update("pages", "home", (r) => ({
      ...r,
      features: ["x", "Y"],
    }), { field: "features.1", editor: "Bo" });
    await a.store.update("posts", "p:1", () => ({ body: "<p>é</p>" }), {
      field: "body",
      editor: "Cy",
    });
    const lines = await Array.fromAsync(a.store.dump());
    assert.equal(lines.filter((l) => l.type === "record").length, 2);
    assert.equal(lines.filter((l) => l.type === "revision").length, 5);
    await using b = await open();
    await b.store.load(lines);
    assert.deepEqual(await Array.fromAsync(b.store.dump()), lines);
    assert.deepEqual(
      await b.store.revisions("pages", "home", "title"),
      await a.store.revisions("pages", "home", "title"),
    );
    // Writing on after a load continues the history.
    await b.store.update("pages", "home", (r) => ({ ...r, title: "T3" }), ED);
    const revs = await b.store.revisions("pages", "home", "title");
    assert.deepEqual(revs.map((r) => r.value), ["T3", "T2", "T"]);
    await assert.rejects(b.store.load(lines), /not empty/);
    assert.equal((await b.store.get("pages", "home"))?.title, "T3");
  },

  "a 1 MiB field with non-Latin-1 text is stored whole": async (open) => {
    await using s = await open();
    const big = article(1024 * 1024);
    await s.store.update("pages", "big", () => ({ title: "T", body: big }), {
      field: "body",
      editor: "Ada",
    });
    const got = await s.store.get("pages", "big");
    assert.equal(got?.body, big);
    const [rev] = await s.store.revisions("pages", "big", "body");
    assert.equal(rev.value, big);
    assert.equal(rev.bytes, new TextEncoder().encode(big).length);
    assert.equal((await s.store.revision(rev.id))?.value, big);
  },

  "three locales of a 300 KB article and 200 fields in one record": async (
    open,
  ) => {
    await using s = await open();
    const record: ContentRecord = {};
    for (const l of ["en", "ru", "ja"]) {
      record[`body@${l}`] = article(300_000, l);
    }
    for (let i = 0; i < 200; i++) {
      record[`f${i}`] = `v${i} ${"é".repeat(i * 10)}`;
    }
    record.list = Array.from({ length: 50 }, (_, i) => article(3000, `${i}`));
    await s.store.update("pages", "many", () => record);
    assert.deepEqual(await s.store.get("pages", "many"), record);
    // One field changes; the others read back unchanged.
    await s.store.update("pages", "many", (r) => ({ ...r, f7: "seven" }), {
      field: "f7",
      editor: "Bo",
    });
    assert.deepEqual(await s.store.get("pages", "many"), {
      ...record,
      f7: "seven",
    });
  },

  "concurrent writers on a large record lose no update": async (open) => {
    await using s = await open();
    const base: ContentRecord = { body: article(400_000) };
    await s.store.update("pages", "c", () => base);
    await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          s.store.update("pages", "c", (r) => ({
            ...r,
            [`f${i}`]: article(2000 + i * 5000, `${i}`),
          }), { field: `f${i}`, editor: "Ada" }),
      ),
    );
    const got = await s.store.get("pages", "c");
    assert.equal(got?.body, base.body);
    for (let i = 0; i < 20; i++) {
      assert.equal(got?.[`f${i}`], article(2000 + i * 5000, `${i}`));
    }
  },

  "large drafts publish and round-trip through export": async (open) => {
    await using a = await open();
    const store = a.store as DraftStore;
    const v1 = article(500_000, "v1");
    const v2 = article(700_000, "v2");
    await store.update("pages", "d", () => ({ title: "T", body: v1 }));
    await store.updateDraft("pages", "d", (r) => ({ ...r, body: v2 }), {
      field: "body",
      editor: "Ada",
    });
    assert.equal((await store.get("pages", "d"))?.body, v1);
    assert.equal((await store.getDrafted("pages", "d"))?.body, v2);
    assert.equal((await store.drafts())[0].value, v2);
    const lines = await Array.fromAsync(store.dump());
    const done = await store.publish(null, "Bo");
    assert.equal(done.published[0].value, v2);
    assert.equal((await store.get("pages", "d"))?.body, v2);
    assert.deepEqual(await store.drafts(), []);
    const revs = await store.revisions("pages", "d", "body");
    assert.deepEqual(revs.map((r) => r.value), [v2, v2, v1]);
    await using b = await open();
    await b.store.load(lines);
    assert.deepEqual(await Array.fromAsync(b.store.dump()), lines);
    assert.equal(
      (await (b.store as DraftStore).getDrafted("pages", "d"))?.body,
      v2,
    );
  },

  "retention prunes large revisions": async (open) => {
    await using s = await open({ keep: 2 });
    for (let i = 0; i < 4; i++) {
      await s.store.update(
        "pages",
        "r",
        () => ({ body: article(200_000, `${i}`) }),
        {
          field: "body",
          editor: "Ada",
        },
      );
    }
    const revs = await s.store.revisions("pages", "r", "body");
    assert.deepEqual(revs.map((r) => r.value), [
      article(200_000, "3"),
      article(200_000, "2"),
    ]);
  },
};

/** Text of about `chars` characters in several scripts, marked by `seed`. */
function article(chars: number, seed = ""): string {
  const words = ["слово", "語", "mot", "λόγος", "word", "😀", seed];
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const w = words[i % words.length] + (i % 97);
    out.push(w);
    n += w.length + 1;
  }
  // Never cut a surrogate pair in half.
  return out.join(" ").slice(0, chars).replace(/[\uD800-\uDBFF]$/, "x");
}

/** Registers every case as a step of one test per store. */
function contract(
  name: string,
  setup: () => Promise<{ open: Open } & AsyncDisposable>,
) {
  Deno.test(`store contract: ${name}`, {
    ignore: name.startsWith("Postgres") && !HAS_POSTGRES,
  }, async (t) => {
    await using env = await setup();
    for (const [title, run] of Object.entries(cases)) {
      await t.step(title, () => run(env.open));
    }
  });
}

const none = { [Symbol.asyncDispose]: () => Promise.resolve() };

contract("MemoryContentStore", () =>
  Promise.resolve({
    open: (retention) =>
      Promise.resolve({
        store: new MemoryContentStore({}, { retention }),
        ...none,
      }),
    ...none,
  }));

contract("KvContentStore (file)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-kv-" });
  let n = 0;
  return {
    open: async (retention) => {
      const kv = await Deno.openKv(`${dir}/${++n}.kv`);
      return {
        store: new KvContentStore(kv, { retention }),
        [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
      };
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
});

contract("PostgresContentStore", async () => {
  const pg = await startPostgres();
  let sql: postgres.Sql | undefined;
  try {
    sql = postgres(await pg.database(), { max: 10, onnotice: () => {} });
  } catch (err) {
    await pg.close();
    throw err;
  }
  let n = 0;
  return {
    open: (retention) =>
      Promise.resolve({
        store: new PostgresContentStore(sql, { prefix: `c${++n}`, retention }),
        ...none,
      }),
    async [Symbol.asyncDispose]() {
      try {
        await sql.end();
      } finally {
        await pg.close();
      }
    },
  };
});
