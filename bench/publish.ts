/**
 * Bench: publishing 50 drafted fields (one publish request, one atomic
 * operation) vs saving those 50 drafts (50 save requests), same run, same
 * store, through the real handlers in publish mode `draft`. Memory and
 * Deno KV in a file; median of alternating rounds.
 *
 * Run: `deno run -A bench/publish.ts`
 *
 * @module
 */
import { createPublishHandler } from "../server/drafts/mod.ts";
import { createSaveHandler } from "../server/save/mod.ts";
import { type DraftStore, MemoryContentStore } from "../server/store/mod.ts";
import { onKv } from "./stores.ts";

/** One store's numbers, in ms. */
export interface PublishResultRow {
  /** Store name. */
  store: string;
  /** Median time of saving 50 drafts (50 requests). */
  save50Ms: number;
  /** Median time of publishing them (one request). */
  publish50Ms: number;
}

const FIELDS = 50;
const ROUNDS = 9;
const ORIGIN = "http://127.0.0.1";

const allowlist = {
  pages: Object.fromEntries(
    Array.from({ length: FIELDS }, (_, i) => [`f${i}`, "plain" as const]),
  ),
};
const headers = {
  "Content-Type": "application/json",
  "Sec-Fetch-Site": "same-origin",
  Origin: ORIGIN,
};

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function measure(name: string, store: DraftStore) {
  const options = {
    authorize: () => ({ name: "Bench" }),
    allowlist,
    store,
    publicOrigin: ORIGIN,
  };
  const save = createSaveHandler({ ...options, publishMode: "draft" });
  const publish = createPublishHandler(options);
  const saves: number[] = [];
  const publishes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let t = performance.now();
    for (let i = 0; i < FIELDS; i++) {
      const res = await save(
        new Request(`${ORIGIN}/api/cms/save`, {
          method: "PATCH",
          headers,
          body: JSON.stringify({
            collection: "pages",
            key: "home",
            field: `f${i}`,
            value: `round ${round} field ${i} `.repeat(8),
          }),
        }),
      );
      if (res.status !== 204) throw new Error(`save: ${res.status}`);
    }
    saves.push(performance.now() - t);
    t = performance.now();
    const res = await publish(
      new Request(`${ORIGIN}/api/cms/publish`, {
        method: "POST",
        headers,
        body: "{}",
      }),
    );
    const body = await res.json();
    if (res.status !== 200 || body.published.length !== FIELDS) {
      throw new Error(`publish: ${res.status}`);
    }
    publishes.push(performance.now() - t);
  }
  return {
    store: name,
    save50Ms: median(saves),
    publish50Ms: median(publishes),
  };
}

/** Runs the bench on memory and on KV in a temp file. */
export async function run(): Promise<PublishResultRow[]> {
  const out = [await measure("memory", new MemoryContentStore())];
  out.push(await onKv(measure));
  return out;
}

if (import.meta.main) {
  for (const r of await run()) {
    console.log(
      `${r.store}: publish ${FIELDS} drafts ${
        r.publish50Ms.toFixed(2)
      } ms vs save them ${r.save50Ms.toFixed(2)} ms (${
        (r.publish50Ms / r.save50Ms).toFixed(2)
      }x)`,
    );
  }
}
