/**
 * Bench: the cost of history. For each store (memory, Deno KV in a file,
 * PostgreSQL), a save through the save endpoint with history vs the same
 * endpoint on the same store with revisions dropped, in the same run (goal
 * ≤ 1.3×); and the bare store call `update(…, revision)` vs `update(…)`
 * (context: it isolates the extra writes).
 * Also: listing 1,000 revisions of one field, and a restore through the
 * history endpoint vs a plain save through the save endpoint (context).
 * Median of alternating batches.
 *
 * Run: `deno run -A bench/history.ts`
 *
 * @module
 */
import { createHistoryHandler } from "../server/history/mod.ts";
import { createSaveHandler } from "../server/save/mod.ts";
import { type HistoryStore, MemoryContentStore } from "../server/store/mod.ts";
import { onKvAndPostgres } from "./stores.ts";

/** One store's numbers, in ms. */
export interface StoreResult {
  /** Store name. */
  store: string;
  /** Median time of one save with its revision. */
  withHistoryMs: number;
  /** Median time of one save without a revision. */
  withoutMs: number;
  /** `withHistoryMs / withoutMs`. */
  ratio: number;
  /** Median time of one save through the save endpoint, with history. */
  endpointWithMs: number;
  /** The same through a store that drops the revision. */
  endpointWithoutMs: number;
  /** `endpointWithMs / endpointWithoutMs`. */
  endpointRatio: number;
  /** Listing 1,000 revisions of one field. */
  list1000Ms: number;
  /** One restore through the history endpoint. */
  restoreMs: number;
  /** One save through the save endpoint (the restore's baseline). */
  saveMs: number;
}

const BATCH = 100;
const ROUNDS = 7;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

let counter = 0;

async function saves(store: HistoryStore, history: boolean): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < BATCH; i++) {
    const value = `v${++counter}`;
    await store.update(
      "pages",
      history ? "with" : "without",
      (r) => ({ ...r, title: value, body: "<p>Some body text</p>" }),
      history ? { field: "title", editor: "Bench" } : undefined,
    );
  }
  return (performance.now() - start) / BATCH;
}

async function measure(
  name: string,
  store: HistoryStore,
): Promise<StoreResult> {
  // Warm up both paths (tables, JIT, SQLite pages).
  await saves(store, true);
  await saves(store, false);
  const withH: number[] = [];
  const without: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2) {
      withH.push(await saves(store, true));
      without.push(await saves(store, false));
    } else {
      without.push(await saves(store, false));
      withH.push(await saves(store, true));
    }
  }
  // 1,000 revisions of one field, then list them.
  for (let i = 0; i < 1000; i++) {
    await store.update("pages", "list", (r) => ({ ...r, title: `t${i}` }), {
      field: "title",
      editor: "Bench",
    });
  }
  const lists: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    const revs = await store.revisions("pages", "list", "title", 1000);
    lists.push(performance.now() - start);
    if (revs.length !== 1000) throw new Error(`listed ${revs.length}`);
  }
  // Restore through the endpoint vs a plain save through the save endpoint.
  const options = {
    authorize: () => ({ name: "Bench" }),
    allowlist: { pages: { title: "plain" as const } },
    store,
  };
  const save = createSaveHandler(options);
  const history = createHistoryHandler(options);
  const [oldest] = await store.revisions("pages", "list", "title", 1000)
    .then((r) => r.slice(-1));
  const post = (path: string, body: unknown) =>
    new Request(`http://bench.local${path}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Sec-Fetch-Site": "same-origin",
      },
      body: JSON.stringify(body),
    });
  const restores: number[] = [];
  const plain: number[] = [];
  for (let r = 0; r < ROUNDS * 4; r++) {
    let start = performance.now();
    const a = await history(
      post("/api/cms/history", {
        field: "pages:list:title",
        revision: oldest.id,
      }),
    );
    restores.push(performance.now() - start);
    start = performance.now();
    const b = await save(post("/api/cms/save", {
      collection: "pages",
      key: "list",
      field: "title",
      value: `plain ${r}`,
    }));
    plain.push(performance.now() - start);
    if (a.status !== 204 || b.status !== 204) {
      throw new Error(
        `restore ${a.status} ${await a.text()}, save ${b.status}`,
      );
    }
  }
  // The save endpoint, with history vs the same store without it.
  const bare: HistoryStore = Object.assign(Object.create(store), {
    update: (c: string, k: string, m: Parameters<HistoryStore["update"]>[2]) =>
      store.update(c, k, m),
  });
  const withSave = createSaveHandler(options);
  const withoutSave = createSaveHandler({ ...options, store: bare });
  const endpoint = async (handler: typeof save) => {
    const start = performance.now();
    for (let i = 0; i < BATCH; i++) {
      const res = await handler(post("/api/cms/save", {
        collection: "pages",
        key: "endpoint",
        field: "title",
        value: `e${++counter}`,
      }));
      if (res.status !== 204) throw new Error(`save ${res.status}`);
    }
    return (performance.now() - start) / BATCH;
  };
  const epWith: number[] = [];
  const epWithout: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2) {
      epWith.push(await endpoint(withSave));
      epWithout.push(await endpoint(withoutSave));
    } else {
      epWithout.push(await endpoint(withoutSave));
      epWith.push(await endpoint(withSave));
    }
  }
  const withHistoryMs = median(withH);
  const withoutMs = median(without);
  return {
    store: name,
    withHistoryMs,
    withoutMs,
    ratio: withHistoryMs / withoutMs,
    endpointWithMs: median(epWith),
    endpointWithoutMs: median(epWithout),
    endpointRatio: median(epWith) / median(epWithout),
    list1000Ms: median(lists),
    restoreMs: median(restores),
    saveMs: median(plain),
  };
}

/** Runs the bench on the three stores. */
export async function run(): Promise<StoreResult[]> {
  const results: StoreResult[] = [];
  results.push(await measure("memory", new MemoryContentStore()));
  results.push(...await onKvAndPostgres(measure));
  return results;
}

if (import.meta.main) {
  console.table(
    (await run()).map((r) => ({
      store: r.store,
      "save endpoint + history": `${r.endpointWithMs.toFixed(3)} ms`,
      "without": `${r.endpointWithoutMs.toFixed(3)} ms`,
      ratio: `${r.endpointRatio.toFixed(2)}x`,
      "store.update + revision": `${r.withHistoryMs.toFixed(3)} ms`,
      "alone": `${r.withoutMs.toFixed(3)} ms`,
      "store ratio": `${r.ratio.toFixed(2)}x`,
      "list 1,000": `${r.list1000Ms.toFixed(2)} ms`,
      restore: `${r.restoreMs.toFixed(3)} ms`,
      "save endpoint": `${r.saveMs.toFixed(3)} ms`,
    })),
  );
}
