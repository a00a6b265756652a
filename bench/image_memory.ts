/**
 * The image memory budget in a 512 MiB process: the media endpoint with
 * the budget a 512 MiB limit gives (`defaultMemoryBudget(512 MiB)`, 384
 * MiB), in a fresh child process per measurement, so its peak RSS is the
 * endpoint's alone (Deno and sharp included).
 *
 * (a) The worst accepted image per format, alone: the dense candidate of
 *     `image_worst.ts` at 40 MP for JPEG, PNG and WebP; for AVIF, at the
 *     largest square the budget accepts (a larger one is 422 before any
 *     decoding: checked too). Goal: peak RSS ≤ 512 MiB, answer 200.
 * (b) A burst: every format's worst image twice, 8 uploads at once. Goal:
 *     each answer 200 (waited its turn) or 503 with `Retry-After`, peak
 *     RSS ≤ 512 MiB.
 *
 * The children run with glibc's `MALLOC_MMAP_THRESHOLD_=131072` (as the
 * deployment guide advises) unless the environment sets it: without it,
 * memory freed after one large image stays with the process and the next
 * one's peak adds to it (about 50 MiB per image in a row).
 *
 * Run: `deno run -A bench/image_memory.ts`; `run()` returns the numbers.
 *
 * @module
 */
import { defaultMemoryBudget, estimateMemory } from "../server/image/mod.ts";
import { startImageChild } from "../tests/helpers/image_child.ts";
import { dense, type Format } from "./image_worst.ts";

const MiB = 1024 * 1024;
/** The process limit the budget is made for. */
export const LIMIT = 512 * MiB;
/** The budget of a 512 MiB process. */
export const BUDGET = defaultMemoryBudget(LIMIT);

/** One measured upload, or burst. */
export interface MemoryCase {
  /** What was sent. */
  name: string;
  /** Answers by status. */
  statuses: Record<number, number>;
  /** Wall time to the last answer, ms. */
  ms: number;
  /** Peak RSS of the child, MiB. */
  peakMiB: number;
}

/** The largest square side of `format` whose estimate fits the budget. */
function largestSide(format: Format, body: number): number {
  let side = 6324;
  while (estimateMemory(`image/${format}`, side * side, body) > BUDGET) {
    side -= 4;
  }
  return side;
}

/** The worst accepted image of `format` under the budget. */
export async function worst(format: Format): Promise<Uint8Array> {
  if (format !== "avif") return await dense(format);
  // A first try for the body size, then the side the budget accepts.
  const guess = await dense(format, largestSide(format, 4 * MiB));
  return await dense(format, largestSide(format, guess.length));
}

async function measure(
  name: string,
  bodies: Uint8Array[],
): Promise<MemoryCase> {
  const child = await startImageChild({ memoryBudget: BUDGET });
  try {
    const started = performance.now();
    const statuses: Record<number, number> = {};
    await Promise.all(bodies.map(async (body) => {
      const res = await fetch(child.url, {
        method: "POST",
        body: body as Uint8Array<ArrayBuffer>,
      });
      await res.body?.cancel();
      if (res.status === 503 && !res.headers.get("Retry-After")) {
        throw new Error("503 without Retry-After");
      }
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }));
    return {
      name,
      statuses,
      ms: performance.now() - started,
      peakMiB: (await child.peakKiB()) / 1024,
    };
  } finally {
    await child.close();
  }
}

/** Every measurement: each format alone, the too-large AVIF, the burst. */
export async function run(): Promise<MemoryCase[]> {
  const formats: Format[] = ["avif", "jpeg", "png", "webp"];
  const images = new Map<Format, Uint8Array>();
  for (const f of formats) images.set(f, await worst(f));
  const out: MemoryCase[] = [];
  for (const f of formats) {
    out.push(await measure(`${f} worst accepted`, [images.get(f)!]));
  }
  out.push(await measure("avif 40 MP (refused)", [await dense("avif")]));
  const burst = formats.flatMap((f) => [images.get(f)!, images.get(f)!]);
  out.push(await measure("burst: 8 at once", burst));
  return out;
}

/** The allocator setting the children run with (they inherit it). */
export const MMAP_THRESHOLD = Deno.env.get("MALLOC_MMAP_THRESHOLD_") ??
  "131072";
Deno.env.set("MALLOC_MMAP_THRESHOLD_", MMAP_THRESHOLD);

if (import.meta.main) {
  console.log(
    `budget ${BUDGET / MiB} MiB for a ${LIMIT / MiB} MiB process; ` +
      `MALLOC_MMAP_THRESHOLD_=${MMAP_THRESHOLD}`,
  );
  console.table((await run()).map((c) => ({
    upload: c.name,
    answers: JSON.stringify(c.statuses),
    "time s": (c.ms / 1000).toFixed(2),
    "peak RSS MiB": c.peakMiB.toFixed(0),
    "≤ 512 MiB": c.peakMiB <= LIMIT / MiB ? "yes" : "NO",
  })));
}
