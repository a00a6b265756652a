/**
 * The image pipeline of the media endpoint: structure and budget checks on
 * the headers, then sharp's decode, normalization and variants under a
 * concurrency limit, or a header-only fallback where sharp cannot load.
 *
 * @module
 */
import { HttpError } from "../http.ts";
import { imageEnd, type ImageInfo } from "../sniff.ts";
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
  /** Images decoded at the same time. Default 2. */
  concurrency?: number;
  /** Uploads that may wait for a decoder; beyond that 503. Default 16. */
  waiting?: number;
  /** `Retry-After` seconds of that 503. Default 5. */
  retryAfter?: number;
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
} as const;

/**
 * Checks and prepares uploads for storage. One instance per media endpoint:
 * it owns the decoder queue and loads sharp once, on first use.
 *
 * @example
 * ```ts
 * import { ImagePipeline } from "./pipeline.ts";
 * import { sniffImage } from "../sniff.ts";
 * const images = new ImagePipeline({ widths: [640, 1280] });
 * const gif = new TextEncoder().encode("GIF89a\x01\x00\x01\x00\x00\x00\x00;");
 * const info = sniffImage(gif);
 * // `prepare` throws an HttpError (422) here: the GIF holds no frame.
 * await images.prepare(gif, info!).catch((err) => err.status); // 422
 * ```
 */
export class ImagePipeline {
  readonly #options: Required<Omit<ImageOptions, "sharp">>;
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
      concurrency: o.concurrency ?? 2,
      waiting: o.waiting ?? 16,
      retryAfter: o.retryAfter ?? 5,
    };
    this.#loader = options.sharp ?? importSharp;
    this.#queue = new WorkQueue(this.#options);
  }

  /** The decoder queue (for monitoring: `running`, `waiting`). */
  get queue(): WorkQueue {
    return this.#queue;
  }

  /**
   * Checks `bytes` (recognised by the sniff as `info`) and returns what to
   * store. Throws {@linkcode HttpError} 422 for a truncated or damaged file,
   * data after the image's end, or an image over budget; 503 when the
   * decoder queue is full.
   */
  async prepare(bytes: Uint8Array, info: ImageInfo): Promise<PreparedImage> {
    checkBudget(info.width, info.height, info.frames, this.#options);
    checkStructure(bytes, info);
    const sharp = await this.#load();
    if (!sharp) {
      const { type, ext, width, height } = info;
      const original = { bytes, type, ext, width, height };
      return { original, variants: [], processed: false };
    }
    return await this.#queue.run(() =>
      processImage(sharp, bytes, info, this.#options)
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
