/**
 * The image pipeline of the media endpoint: structure and budget checks on
 * the headers, then sharp's decode, normalization and variants under a
 * concurrency limit, or a header-only fallback where sharp cannot load.
 *
 * @module
 */
import { HttpError } from "../http/mod.ts";
import { imageEnd, type ImageInfo } from "./sniff/mod.ts";
import {
  checkBudget,
  type PreparedImage,
  processImage,
  type VariantFormat,
} from "./process.ts";
import { WorkQueue } from "./queue.ts";
import { defaultMemoryBudget, estimateMemory } from "./memory.ts";
import { importSharp, type Sharp, type SharpLoader } from "./sharp.ts";

/** Options of {@linkcode ImagePipeline}; every one has a default. */
export interface ImageOptions {
  /**
   * Widths of the responsive variants in pixels; widths at or above the
   * image's own are skipped (never upscaled). Default 480, 960, 1440, 1920.
   */
  widths?: readonly number[];
  /** Types of each variant. Default `["webp"]`; add `"avif"` for AVIF too. */
  formats?: readonly VariantFormat[];
  /**
   * Largest width × height × frames accepted (→ 422), against decompression
   * bombs. Default 40,000,000.
   */
  maxPixels?: number;
  /** Most frames accepted in an animated GIF or WebP (→ 422). Default 300. */
  maxFrames?: number;
  /** `"refuse"` answers 422 for animated images. Default `"keep"`. */
  animated?: "keep" | "refuse";
  /**
   * Longest time one image may take, decode and every output, in
   * milliseconds; past it 422. Default 10,000.
   */
  timeoutMs?: number;
  /** Images decoded at the same time. Default 2. */
  concurrency?: number;
  /** Uploads that may wait for a decoder; beyond that 503. Default 16. */
  waiting?: number;
  /**
   * Pixels (width × height × frames) of the uploads being processed and
   * waiting, together; an upload that would pass it gets 503. Default
   * 100,000,000 (two images at the default `maxPixels` and change).
   */
  maxPixelsInFlight?: number;
  /** `Retry-After` seconds of that 503. Default 5. */
  retryAfter?: number;
  /**
   * Bytes the decoders may use together, by estimate (pixels × a cost per
   * format, plus the body), with the bodies of the uploads waiting for
   * them: an upload that would pass it waits for the running ones if its
   * body still fits, else (or once `waiting` uploads wait) it gets 503;
   * one whose estimate alone passes it is refused with 422 before any
   * decoding. Default: `defaultMemoryBudget()`, the process's memory
   * limit (cgroup v2 or v1, else the machine's memory; 512 MiB where none
   * can be read and on Deno Deploy) less 128 MiB: 384 MiB in a 512 MiB
   * process, where a 40 MP JPEG, PNG or WebP and a 19 MP AVIF pass.
   */
  memoryBudget?: number;
  /**
   * The decoder queue. Default: one queue shared by every pipeline of the
   * process that sets none of `concurrency`, `waiting`,
   * `maxPixelsInFlight`, `retryAfter` and `memoryBudget`, so that the budgets hold for the
   * process, not per endpoint.
   */
  queue?: WorkQueue;
  /**
   * Loads sharp. Default: `import("sharp")`. When it rejects, uploads are
   * only checked by their headers and stored as uploaded, with
   * `processed: false` in the answer, and one warning is logged.
   */
  sharp?: SharpLoader;
}

/** The defaults of {@linkcode ImageOptions}. */
export const IMAGE_DEFAULTS = {
  widths: [480, 960, 1440, 1920],
  formats: ["webp"],
  maxPixels: 40_000_000,
  maxFrames: 300,
  animated: "keep",
  timeoutMs: 10_000,
  concurrency: 2,
  waiting: 16,
  maxPixelsInFlight: 100_000_000,
  retryAfter: 5,
} as const;

/** The queue of every pipeline that leaves the queue options at default. */
let sharedQueue: WorkQueue | undefined;

/**
 * Checks and prepares uploads for storage. One instance per media endpoint:
 * it owns the decoder queue and loads sharp once, on first use.
 *
 * @example
 * ```ts
 * import { ImagePipeline } from "./pipeline.ts";
 * import { sniffImage } from "./sniff/mod.ts";
 * const images = new ImagePipeline({ widths: [640, 1280] });
 * const gif = new TextEncoder().encode("GIF89a\x01\x00\x01\x00\x00\x00\x00;");
 * const info = sniffImage(gif);
 * // `prepare` throws an HttpError (422) here: the GIF holds no frame.
 * await images.prepare(gif, info!).catch((err) => err.status); // 422
 * ```
 */
export class ImagePipeline {
  readonly #options: Required<
    Omit<ImageOptions, "sharp" | "queue" | "memoryBudget">
  >;
  readonly #memoryBudget: number;
  readonly #loader: SharpLoader;
  readonly #queue: WorkQueue;
  #sharp?: Promise<Sharp | null>;

  /** Creates a pipeline; sharp is not loaded until the first upload. */
  constructor(options: ImageOptions = {}) {
    const o = options;
    this.#options = {
      widths: o.widths ?? IMAGE_DEFAULTS.widths,
      formats: o.formats ?? IMAGE_DEFAULTS.formats,
      maxPixels: o.maxPixels ?? IMAGE_DEFAULTS.maxPixels,
      maxFrames: o.maxFrames ?? IMAGE_DEFAULTS.maxFrames,
      animated: o.animated ?? IMAGE_DEFAULTS.animated,
      timeoutMs: o.timeoutMs ?? IMAGE_DEFAULTS.timeoutMs,
      concurrency: o.concurrency ?? IMAGE_DEFAULTS.concurrency,
      waiting: o.waiting ?? IMAGE_DEFAULTS.waiting,
      maxPixelsInFlight: o.maxPixelsInFlight ??
        IMAGE_DEFAULTS.maxPixelsInFlight,
      retryAfter: o.retryAfter ?? IMAGE_DEFAULTS.retryAfter,
    };
    this.#memoryBudget = o.memoryBudget ?? defaultMemoryBudget();
    if (!(this.#memoryBudget > 0)) {
      throw new RangeError("memoryBudget must be a positive number of bytes");
    }
    this.#loader = options.sharp ?? importSharp;
    const own = o.concurrency ?? o.waiting ?? o.maxPixelsInFlight ??
      o.retryAfter ?? o.memoryBudget;
    const queueOptions = {
      ...this.#options,
      maxPixels: this.#options.maxPixelsInFlight,
      maxMemory: this.#memoryBudget,
    };
    this.#queue = o.queue ??
      (own === undefined
        ? sharedQueue ??= new WorkQueue(queueOptions)
        : new WorkQueue(queueOptions));
  }

  /** The decoders' memory budget in bytes. */
  get memoryBudget(): number {
    return this.#memoryBudget;
  }

  /** The decoder queue (for monitoring: `running`, `waiting`). */
  get queue(): WorkQueue {
    return this.#queue;
  }

  /**
   * Checks `bytes` (recognised by the sniff as `info`) and returns what to
   * store. Throws {@linkcode HttpError} 422 for a truncated or damaged file,
   * a container that disagrees with its coded data, data after the image's
   * end, an image over budget (pixels, frames, or the estimated memory of
   * its decoding alone) or past the time limit; 503 when the decoder queue
   * or the pixels in flight are full (work over the memory budget waits); 499 once `signal` (the
   * request's) aborts: waiting work never starts, running work stops at
   * its next step.
   */
  async prepare(
    bytes: Uint8Array,
    info: ImageInfo,
    signal?: AbortSignal,
  ): Promise<PreparedImage> {
    if (info.conflict) {
      throw new HttpError(422, `Image refused: ${info.conflict}`);
    }
    checkBudget(info.width, info.height, info.frames, this.#options);
    checkStructure(bytes, info);
    const sharp = await this.#load();
    if (!sharp) {
      const { type, ext, width, height } = info;
      const original = { bytes, type, ext, width, height };
      return { original, variants: [], processed: false };
    }
    const pixels = info.width * info.height * info.frames;
    const memory = estimateMemory(info.type, pixels, bytes.length);
    if (memory > this.#memoryBudget) throw this.#tooBig(info, memory);
    try {
      return await this.#queue.run(
        () => processImage(sharp, bytes, info, this.#options, signal),
        { pixels, memory, held: bytes.length, signal },
      );
    } catch (err) {
      if (signal?.aborted) {
        throw new HttpError(499, "Upload abandoned: the client left");
      }
      throw err;
    }
  }

  /** The 422 of an image whose decoding alone passes the memory budget. */
  #tooBig(info: ImageInfo, memory: number): HttpError {
    const mib = (n: number) => Math.ceil(n / 2 ** 20);
    return new HttpError(
      422,
      `Image too large to process in this server's memory: ${info.width}x${info.height} ${info.ext.toUpperCase()} needs about ${
        mib(memory)
      } MiB, the limit is ${mib(this.#memoryBudget)} MiB`,
    );
  }

  #load(): Promise<Sharp | null> {
    return this.#sharp ??= this.#loader().then((s) => s as Sharp, (err) => {
      console.warn(
        "cms: sharp could not load, so uploads are only checked by their " +
          "headers: no decoding, no metadata stripping, no variants.",
        err instanceof Error ? err.message : err,
      );
      return null;
    });
  }
}

/**
 * Refuses (422) a file whose container is truncated or broken, or that
 * carries data after the image's end (a polyglot); zero padding is allowed.
 */
function checkStructure(bytes: Uint8Array, info: ImageInfo): void {
  const end = imageEnd(bytes, info.type);
  if (end === null || (info.type === "image/gif" && info.frames < 1)) {
    throw new HttpError(422, "Image is truncated or damaged");
  }
  for (let i = end; i < bytes.length; i++) {
    if (bytes[i] !== 0) {
      throw new HttpError(
        422,
        `Unexpected data after the end of the image (${
          bytes.length - end
        } bytes)`,
      );
    }
  }
}
