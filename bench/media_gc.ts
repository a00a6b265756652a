/**
 * Bench: media gc (dry run) over 10,000 records (with 10,000 revisions)
 * and 10,000 uploads (20,000 files: an original and a variant each) in
 * local storage, on Deno KV in a file and on PostgreSQL. Half the uploads
 * are used (an image field and an `<img>` in a rich field). Baseline in
 * the same run: reading the same store dump and storage listing without
 * any matching (the I/O gc cannot avoid). Goal: gc ≤ 10 s on each store.
 *
 * Run: `deno run -A bench/media_gc.ts` (starts a throwaway PostgreSQL)
 *
 * @module
 */
import postgres from "postgres";
import { collectMedia, LocalMediaStorage } from "../server/media/mod.ts";
import {
  type HistoryStore,
  KvContentStore,
  type StoreLine,
} from "../server/store/mod.ts";
import { PostgresContentStore } from "../postgres/mod.ts";
import { startPostgres } from "../tests/helpers/postgres.ts";

const N = 10_000;

function* lines(url: (i: number) => string): Iterable<StoreLine> {
  const at = new Date(Date.now() - 30 * 86400_000).toISOString();
  for (let i = 0; i < N; i++) {
    const used = i % 2 === 0;
    yield {
      type: "record",
      collection: "posts",
      key: `p${i}`,
      record: {
        title: `Post ${i}`,
        hero: used ? url(i) : "",
        body: used
          ? `<p>Text ${i}</p><p><img src="${url(i)}" alt="Picture ${i}"></p>`
          : `<p>Text ${i}</p>`,
      },
    };
  }
  for (let i = 0; i < N; i++) {
    yield {
      type: "revision",
      revision: {
        id: crypto.randomUUID(),
        collection: "posts",
        key: `p${i}`,
        field: "title",
        at,
        editor: "Ada",
        value: `Post ${i}`,
        bytes: 8,
        published: at,
      },
    };
  }
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Reads the store dump and the storage listing, as gc does (in parallel). */
async function readAll(store: HistoryStore, storage: LocalMediaStorage) {
  const [a, b] = await Promise.all([
    Array.fromAsync(store.dump()),
    Array.fromAsync(storage.list()),
  ]);
  if (a.length + b.length < 4 * N) throw new Error("short dump");
}

async function measure(store: HistoryStore, storage: LocalMediaStorage) {
  await readAll(store, storage); // warm-up, untimed
  const baselineMs = await time(() => readAll(store, storage));
  let unused = 0;
  const gcMs = await time(async () => {
    const report = await collectMedia({ storage, store, graceDays: 7 });
    unused = report.unused.length;
  });
  if (unused !== N / 2) throw new Error(`expected ${N / 2} unused, ${unused}`);
  return { baselineMs, gcMs };
}

/** Runs the bench; resolves to the times in ms per store. */
export async function run() {
  const dir = await Deno.makeTempDir({ prefix: "cms-bench-gc-" });
  try {
    const storage = new LocalMediaStorage({ dir: `${dir}/media` });
    const old = new Date(Date.now() - 30 * 86400_000);
    const bytes = new Uint8Array(64);
    for (let i = 0; i < N; i++) {
      for (const key of [`u${i}.jpg`, `u${i}-480w.webp`]) {
        await storage.put(key, bytes, "image/jpeg");
        await Deno.utime(`${dir}/media/${key}`, old, old);
      }
    }
    const url = (i: number) => storage.url(`u${i}.jpg`);

    using kv = await Deno.openKv(`${dir}/c.kv`);
    const kvStore = new KvContentStore(kv);
    await kvStore.load(lines(url));
    const kvResult = await measure(kvStore, storage);

    await using pg = await startPostgres();
    const sql = postgres(await pg.database(), { max: 4, onnotice: () => {} });
    try {
      const pgStore = new PostgresContentStore(sql);
      await pgStore.load(lines(url));
      const pgResult = await measure(pgStore, storage);
      return { kv: kvResult, pg: pgResult };
    } finally {
      await sql.end();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  console.log(
    `media gc over ${N} records + ${N} revisions and ${N} uploads (goal ≤ 10000 ms):`,
  );
  for (const [name, x] of Object.entries(r)) {
    console.log(
      `  ${name}: gc ${x.gcMs.toFixed(0)} ms ${
        x.gcMs <= 10_000 ? "ok" : "MISSED"
      }; baseline (dump + listing) ${x.baselineMs.toFixed(0)} ms; ratio ${
        (x.gcMs / x.baselineMs).toFixed(2)
      }`,
    );
  }
}
