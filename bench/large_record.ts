/**
 * Bench: saving one field of a large record on Deno KV (a file). The same
 * small save (one field, with its revision) on a page whose other fields
 * hold 500 KB of non-Latin-1 text vs on a 5 KB page, in the same run (goal
 * ≤ 1.5×): the KV store writes only the changed field, so the large
 * neighbours cost nothing. Also for context: reading the large page with a
 * fresh store (no cached pieces), and saving a 1 MiB field.
 * Median of alternating batches.
 *
 * Run: `deno run -A bench/large_record.ts`
 *
 * @module
 */
import { KvContentStore } from "../server/store/mod.ts";

/** The numbers, in ms. */
export interface LargeResult {
  /** One save of a small field on the 500 KB page. */
  largeMs: number;
  /** The same on the 5 KB page. */
  smallMs: number;
  /** `largeMs / smallMs`. */
  ratio: number;
  /** Reading the 500 KB page with nothing cached. */
  coldReadMs: number;
  /** Saving a 1 MiB field (with its revision). */
  saveMiBMs: number;
}

const BATCH = 50;
const ROUNDS = 7;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function page(bytes: number): Record<string, string> {
  const record: Record<string, string> = {};
  // Ten fields of Cyrillic text (2 UTF-8 bytes a character).
  for (let i = 0; i < 10; i++) {
    record[`body${i}`] = "слово ".repeat(Math.ceil(bytes / 10 / 11));
  }
  record.title = "Title";
  return record;
}

let counter = 0;

async function saves(store: KvContentStore, key: string): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < BATCH; i++) {
    await store.update(
      "pages",
      key,
      (r) => ({ ...r, title: `t${++counter}` }),
      {
        field: "title",
        editor: "Ada",
      },
    );
  }
  return (performance.now() - start) / BATCH;
}

/** Runs the bench on a KV file in a temporary directory. */
export async function run(): Promise<LargeResult> {
  const dir = await Deno.makeTempDir({ prefix: "cms-large-" });
  const kv = await Deno.openKv(`${dir}/cms.kv`);
  try {
    const store = new KvContentStore(kv);
    await store.update("pages", "large", () => page(500_000));
    await store.update("pages", "small", () => page(5_000));
    await saves(store, "large");
    await saves(store, "small");
    const large: number[] = [];
    const small: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      large.push(await saves(store, "large"));
      small.push(await saves(store, "small"));
    }
    const reads: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const start = performance.now();
      await new KvContentStore(kv).get("pages", "large");
      reads.push(performance.now() - start);
    }
    const big: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const value = `${r}${"ж".repeat(512 * 1024)}`;
      const start = performance.now();
      await store.update("pages", "mib", () => ({ body: value }), {
        field: "body",
        editor: "Ada",
      });
      big.push(performance.now() - start);
    }
    const largeMs = median(large);
    const smallMs = median(small);
    return {
      largeMs,
      smallMs,
      ratio: largeMs / smallMs,
      coldReadMs: median(reads),
      saveMiBMs: median(big),
    };
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  console.log(
    `save one field, 500 KB page vs 5 KB page (KV): ${
      r.largeMs.toFixed(3)
    } ms vs ${r.smallMs.toFixed(3)} ms = ${r.ratio.toFixed(2)}x (goal ≤ 1.5x)`,
  );
  console.log(
    `read the 500 KB page cold: ${
      r.coldReadMs.toFixed(2)
    } ms; save a 1 MiB field: ${r.saveMiBMs.toFixed(2)} ms (context)`,
  );
}
