/**
 * The worst accepted image per format (AVIF, JPEG, PNG, WebP) through the
 * media endpoint with its defaults (40 MP budget, 10 MiB body, 4 WebP
 * variants, 10 s time limit): wall time to the answer and the process's
 * peak RSS. Goals: ≤ 10 s and ≤ 1 GiB each on a 2-core machine.
 *
 * Two candidates per format at the pixel budget's edge (6324 × 6324):
 * a bomb (one colour, a few KiB) and a dense image (noise in as many rows
 * as the 10 MiB body allows, the rest one colour); the worse counts. Each
 * upload runs in a fresh child process (`tests/helpers/image_child.ts`),
 * so the peak is the endpoint's alone.
 *
 * Run: `deno run -A bench/image_worst.ts`; `run()` returns the numbers.
 *
 * @module
 */
import sharp from "sharp";
import { randomBytes } from "../tests/fixtures/images.ts";
import { startImageChild } from "../tests/helpers/image_child.ts";

const SIDE = 6324; // 6324² = 39,992,976 ≤ 40,000,000
const MAX_BODY = 10 * 1024 * 1024;
const KiB = 1024;
/** The goals of one upload. */
export const GOALS = { ms: 10_000, rssKiB: 1024 * 1024 } as const;

/** The formats measured. */
export type Format = "avif" | "jpeg" | "png" | "webp";

/** One measured upload. */
export interface WorstCase {
  format: Format;
  kind: "bomb" | "dense";
  bytes: number;
  status: number;
  ms: number;
  /** Peak RSS of the child, KiB (absolute, Deno and sharp included). */
  peakKiB: number;
  /** Peak RSS growth during the upload, KiB. */
  grownKiB: number;
}

/** Rows of noise for `format` to stay under 10 MiB (a first guess). */
const NOISE_BYTES_PER_PIXEL: Record<Format, number> = {
  avif: 1.3,
  jpeg: 1.6,
  png: 3.05,
  webp: 1.0,
};

/** A `side` × `side` image of `format`, noise in its first `noiseRows`. */
export async function encode(
  format: Format,
  noiseRows: number,
  side: number = SIDE,
): Promise<Uint8Array> {
  const raw = new Uint8Array(side * side * 3).fill(0x6a);
  if (noiseRows > 0) raw.set(randomBytes(noiseRows * side * 3, noiseRows));
  const out = await sharp(raw, {
    raw: { width: side, height: side, channels: 3 },
  })
    .toFormat(format, format === "avif" ? { effort: 0 } : {}).toBuffer();
  return new Uint8Array(out);
}

/** The dense candidate: as much noise as fits in the body limit. */
export async function dense(
  format: Format,
  side: number = SIDE,
): Promise<Uint8Array> {
  let rows = Math.floor(MAX_BODY / NOISE_BYTES_PER_PIXEL[format] / side);
  for (let i = 0; i < 6; i++) {
    const data = await encode(format, Math.min(rows, side), side);
    if (data.length <= MAX_BODY) return data;
    rows = Math.floor(rows * MAX_BODY / data.length * 0.97);
  }
  throw new Error(`no ${format} under 10 MiB`);
}

async function measure(
  format: Format,
  kind: "bomb" | "dense",
  data: Uint8Array,
): Promise<WorstCase> {
  const child = await startImageChild();
  try {
    const before = await child.peakKiB();
    const started = performance.now();
    const res = await fetch(child.url, {
      method: "POST",
      body: data as Uint8Array<ArrayBuffer>,
    });
    await res.body?.cancel();
    const ms = performance.now() - started;
    const peak = await child.peakKiB();
    return {
      format,
      kind,
      bytes: data.length,
      status: res.status,
      ms,
      peakKiB: peak,
      grownKiB: peak - before,
    };
  } finally {
    await child.close();
  }
}

/** Measures every candidate; returns all of them. */
export async function run(): Promise<WorstCase[]> {
  const out: WorstCase[] = [];
  for (const format of ["avif", "jpeg", "png", "webp"] as const) {
    out.push(await measure(format, "bomb", await encode(format, 0)));
    out.push(await measure(format, "dense", await dense(format)));
  }
  return out;
}

/** The worse candidate of each format (by its share of either goal). */
export function worstPerFormat(cases: WorstCase[]): WorstCase[] {
  const score = (c: WorstCase) =>
    Math.max(c.ms / GOALS.ms, c.peakKiB / GOALS.rssKiB);
  const worst = new Map<Format, WorstCase>();
  for (const c of cases) {
    const seen = worst.get(c.format);
    if (!seen || score(c) > score(seen)) worst.set(c.format, c);
  }
  return [...worst.values()];
}

if (import.meta.main) {
  const cases = await run();
  console.table(cases.map((c) => ({
    format: c.format,
    image: c.kind,
    "body KiB": Math.round(c.bytes / KiB),
    status: c.status,
    "time s": (c.ms / 1000).toFixed(2),
    "peak RSS MiB": (c.peakKiB / KiB).toFixed(0),
    "growth MiB": (c.grownKiB / KiB).toFixed(0),
    "goals met": c.ms <= GOALS.ms && c.peakKiB <= GOALS.rssKiB ? "yes" : "NO",
  })));
}
