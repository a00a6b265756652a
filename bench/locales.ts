/**
 * Bench: a page read in one of two locales with fallbacks vs the same page
 * read on a site without locales, same run, same store. The page is one
 * record of 20 fields (a title, rich paragraphs, a list); in German half of
 * them are translated and the rest fall back to English. The baseline is
 * `store.get()` of the single-locale record; the measured read is
 * `readLocalized(store, content, …, "de")` of the two-locale record. Deno KV
 * in a file and PostgreSQL (Debian's server, started for the run); median,
 * over 200 rounds, of the ratio of two adjacent blocks of 10 reads (which
 * goes first alternates), so that the machine's other work, which comes in
 * bursts, falls on both sides of a ratio alike. Goal: ≤ 1.2×.
 *
 * Run: `deno run -A bench/locales.ts`
 *
 * @module
 */
import { defineContent, list } from "../core/content.ts";
import {
  type ContentRecord,
  type ContentStore,
  readLocalized,
} from "../server/store/mod.ts";
import { onKvAndPostgres } from "./stores.ts";

/** One store's numbers, in ms per read. */
export interface LocalesResultRow {
  /** Store name. */
  store: string;
  /** Median read of the single-locale page. */
  singleMs: number;
  /** Median read of the two-locale page in German, with fallbacks. */
  localizedMs: number;
  /** Median of each round's localized / single ratio (adjacent blocks). */
  ratio: number;
}

/** The goal: a two-locale read at most this many times a single-locale one. */
export const GOAL = 1.2;
const FIELDS = 20;
const BLOCK = 10;
const ROUNDS = 200;

const fields = Object.fromEntries(
  Array.from({ length: FIELDS }, (_, i) => [
    `f${i}`,
    i === 0 ? list() : i % 3 === 0 ? "rich" as const : "plain" as const,
  ]),
);
const content = defineContent({ pages: fields }, {
  locales: ["en", "de"],
  fallbacks: { de: ["en"] },
});

function value(i: number, lang: string): string | string[] {
  if (i === 0) return [`${lang} one`, `${lang} two`, `${lang} three`];
  const text = `${lang} paragraph ${i} of the page, a sentence or two long. `;
  return i % 3 === 0 ? `<p>${text.repeat(4)}</p>` : text;
}

function records(): { single: ContentRecord; localized: ContentRecord } {
  const single: ContentRecord = {};
  const localized: ContentRecord = {};
  for (let i = 0; i < FIELDS; i++) {
    single[`f${i}`] = localized[`f${i}`] = value(i, "en");
    if (i % 2 === 0) localized[`f${i}@de`] = value(i, "de");
  }
  return { single, localized };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function measure(
  name: string,
  store: ContentStore,
): Promise<LocalesResultRow> {
  const { single, localized } = records();
  await store.update("pages", "single", () => single);
  await store.update("pages", "localized", () => localized);
  const check = await readLocalized(store, content, "pages", "localized", "de");
  if (check?.from.f1 !== "en" || check.from.f2 !== "de") {
    throw new Error("fallbacks not resolved");
  }
  const single1 = async () => {
    if (!await store.get("pages", "single")) throw new Error("missing");
  };
  const localized1 = async () => {
    const page = await readLocalized(
      store,
      content,
      "pages",
      "localized",
      "de",
    );
    if (!page) throw new Error("missing");
  };
  const time = async (read: () => Promise<void>) => {
    const t = performance.now();
    for (let i = 0; i < BLOCK; i++) await read();
    return (performance.now() - t) / BLOCK;
  };
  const singles: number[] = [];
  const localizeds: number[] = [];
  const ratios: number[] = [];
  // Short alternating blocks, each side first in turn, so that noise from
  // the machine's other work falls on both alike; round 0 warms up.
  for (let round = 0; round <= ROUNDS; round++) {
    const first = round % 2 === 0;
    const a = first ? await time(single1) : 0;
    const b = await time(localized1);
    const c = first ? a : await time(single1);
    if (round > 0) {
      singles.push(c);
      localizeds.push(b);
      ratios.push(b / c);
    }
  }
  return {
    store: name,
    singleMs: median(singles),
    localizedMs: median(localizeds),
    ratio: median(ratios),
  };
}

/** Runs the bench on Deno KV in a temp file and on PostgreSQL. */
export function run(): Promise<LocalesResultRow[]> {
  return onKvAndPostgres(measure);
}

if (import.meta.main) {
  for (const r of await run()) {
    const { ratio } = r;
    console.log(
      `${r.store}: page read, 2 locales with fallbacks ${
        r.localizedMs.toFixed(3)
      } ms vs 1 locale ${r.singleMs.toFixed(3)} ms (${
        ratio.toFixed(2)
      }x, goal <= ${GOAL}x: ${ratio <= GOAL ? "met" : "NOT met"})`,
    );
  }
}
