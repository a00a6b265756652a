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
   * The decoder queue. Default: one queue shared by every pipeline of the
   * process that sets none of `concurrency`, `waiting`,
   * `maxPixelsInFlight` and `retryAfter`, so that the budgets hold for the
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
  readonly #options: Required<Omit<ImageOptions, "sharp" | "queue">>;
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
    this.#loader = options.sharp ?? importSharp;
    const own = o.concurrency ?? o.waiting ?? o.maxPixelsInFlight ??
      o.retryAfter;
    const queueOptions = {
      ...this.#options,
      maxPixels: this.#options.maxPixelsInFlight,
    };
    this.#queue = o.queue ??
      (own === undefined
        ? sharedQueue ??= new WorkQueue(queueOptions)
        : new WorkQueue(queueOptions));
  }

  /** The decoder queue (for monitoring: `running`, `waiting`). */
  get queue(): WorkQueue {
    return this.#queue;
  }

  /**
   * Checks `bytes` (recognised by the sniff as `info`) and returns what to
   * store. Throws {@linkcode HttpError} 422 for a truncated or damaged file,
   * a container that disagrees with its coded data, data after the image's
   * end, an image over budget or past the time limit; 503 when the decoder
   * queue or the pixels in flight are full; 499 once `signal` (the
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
    try {
      return await this.#queue.run(
        () => processImage(sharp, bytes, info, this.#options, signal),
        { pixels: info.width * info.height * info.frames, signal },
      );
    } catch (err) {
      if (signal?.aborted) {
        throw new HttpError(499, "Upload abandoned: the client left");
      }
      throw err;
    }
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
