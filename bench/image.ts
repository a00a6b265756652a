/**
 * The image pipeline against bare sharp, measured in one run:
 *
 * (a) time: a 12 MP JPEG (4000 × 3000, noisy so it compresses like a
 *     photo) through the pipeline (structure checks, decode, normalized
 *     original, WebP variants at 480, 960, 1440 and 1920, all stored in a
 *     memory storage), against bare sharp making the same four resizes
 *     from the same bytes. Goal: ≤ 1.3×. Median of `ROUNDS` alternating
 *     rounds.
 * (b) memory: peak RSS growth while 10 such uploads are prepared and stored
 *     in parallel (the pipeline's queue runs 2 at a time). Goal: ≤ 600 MiB.
 *
 * Run: `deno run -A bench/image.ts`; `run()` returns the numbers for the
 * aggregate report (bench/run.ts).
 *
 * @module
 */
import sharp from "sharp";
import {
  IMAGE_DEFAULTS,
  ImagePipeline,
  sniffImage,
} from "../server/image/mod.ts";
import { MemoryMediaStorage, storeImage } from "../server/media/mod.ts";

const MiB = 1024 * 1024;
const ROUNDS = 3;

/** The numbers `run()` measured. */
export interface ImageBenchResult {
  /** Size of the 12 MP test JPEG in bytes. */
  inputBytes: number;
  /** Median ms for the pipeline: checks, original + variants, stored. */
  pipelineMs: number;
  /** Median ms for bare sharp doing the same resizes. */
  bareMs: number;
  /** Peak RSS growth over 10 parallel uploads, bytes. */
  parallelPeakRss: number;
  /** How many of the 10 parallel uploads were stored. */
  parallelStored: number;
}

/** A 4000 × 3000 JPEG of smooth gradients plus noise, like a photo. */
export async function photo12mp(): Promise<Uint8Array> {
  const width = 4000, height = 3000;
  const noise = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: "#777",
      noise: { type: "gaussian", mean: 128, sigma: 40 },
    },
  }).blur(1.2).raw().toBuffer();
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i += 3) {
      noise[i] = (noise[i] + x / 16) & 255;
      noise[i + 2] = (noise[i + 2] + y / 12) & 255;
    }
  }
  const out = await sharp(noise, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 }).toBuffer();
  return new Uint8Array(out);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Measures (a) and (b) and returns the numbers. */
export async function run(): Promise<ImageBenchResult> {
  const input = await photo12mp();
  const info = sniffImage(input)!;
  const pipeline = new ImagePipeline();
  const storage = new MemoryMediaStorage();
  const ours = async () => {
    const prepared = await pipeline.prepare(input, info);
    await storeImage(storage, `media/${crypto.randomUUID()}.jpg`, prepared);
  };
  const bare = async () => {
    await Promise.all(
      IMAGE_DEFAULTS.widths.map((width) =>
        sharp(input).resize({ width }).webp({ quality: 80 }).toBuffer()
      ),
    );
  };
  const time = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  await ours(); // warm up both
  await bare();
  const a: number[] = [], b: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await time(ours));
    b.push(await time(bare));
  }

  // (b) 10 parallel uploads; sample RSS every 5 ms.
  const base = Deno.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }, 5);
  const copies = Array.from({ length: 10 }, () => input.slice());
  // All ten admitted (the default 100 MP in flight would answer two with
  // 503); the queue still runs 2 at a time.
  const parallel = new ImagePipeline({ maxPixelsInFlight: 150_000_000 });
  const sink = new MemoryMediaStorage();
  let stored = 0;
  try {
    await Promise.all(copies.map(async (bytes, i) => {
      const prepared = await parallel.prepare(bytes, info);
      await storeImage(sink, `media/p${i}.jpg`, prepared);
      stored++;
    }));
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, Deno.memoryUsage().rss);
  return {
    inputBytes: input.length,
    pipelineMs: median(a),
    bareMs: median(b),
    parallelPeakRss: peak - base,
    parallelStored: stored,
  };
}

if (import.meta.main) {
  const r = await run();
  console.log(`12 MP JPEG: ${(r.inputBytes / MiB).toFixed(2)} MiB`);
  console.log(
    `pipeline ${r.pipelineMs.toFixed(0)} ms, bare sharp ${
      r.bareMs.toFixed(0)
    } ms, ratio ${(r.pipelineMs / r.bareMs).toFixed(2)}x (goal <= 1.3x)`,
  );
  console.log(
    `10 parallel uploads: ${r.parallelStored} stored, peak RSS growth ${
      (r.parallelPeakRss / MiB).toFixed(0)
    } MiB (goal <= 600 MiB)`,
  );
}
