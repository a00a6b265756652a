/**
 * Decodes, normalizes and resizes one upload with sharp: the decoder's
 * verdict and dimensions, EXIF orientation applied, metadata stripped, sRGB
 * output, animation kept, and responsive variants.
 *
 * @module
 */
import { HttpError } from "../http/mod.ts";
import { avifMetadataRanges, type ImageInfo } from "./sniff/mod.ts";
import type { Sharp } from "./sharp.ts";

/** One encoded image: the normalized original or a variant. */
export interface ImageFile {
  /** The encoded bytes. */
  bytes: Uint8Array;
  /** The MIME type of `bytes`, e.g. `image/webp`. */
  type: string;
  /** A file extension without the dot, e.g. `webp`. */
  ext: string;
  /** Displayed width in pixels. */
  width: number;
  /** Displayed height in pixels (one frame's height when animated). */
  height: number;
}

/** What the pipeline made of an upload, ready to be stored. */
export interface PreparedImage {
  /** The image to store under the upload's key. */
  original: ImageFile;
  /** Smaller copies, by ascending width then type. */
  variants: ImageFile[];
  /**
   * `true` when sharp decoded and normalized the image; `false` when it
   * could not load and only the headers were checked (stored as uploaded).
   */
  processed: boolean;
}

/** The output types a variant may have. */
export type VariantFormat = "webp" | "avif";

/** What {@linkcode processImage} needs to know. */
export interface ProcessOptions {
  /** Widths of the variants; only those below the image's width are made. */
  widths: readonly number[];
  /** Types of each variant width. */
  formats: readonly VariantFormat[];
  /** Largest width × height × frames accepted (→ 422). */
  maxPixels: number;
  /** Most frames accepted in an animation (→ 422). */
  maxFrames: number;
  /** `"refuse"` answers 422 for an animated image instead of keeping it. */
  animated: "keep" | "refuse";
  /**
   * Longest time one image may take, in milliseconds (→ 422). Each sharp
   * step gets the time that is left as its `timeout`.
   */
  timeoutMs: number;
}

/** sharp's name of each format we accept, and its MIME type. */
const FORMATS: Record<string, string> = {
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
  heif: "image/avif",
};

/**
 * AVIF variants are encoded at this effort (sharp's 0–9, default 4): for a
 * noisy 1920-wide variant about 25 times faster than the default on a
 * 2-core machine (under 2 s instead of 47 s), for a somewhat larger file.
 * The encoder is not interrupted by the time limit, so this bounds how far
 * one step can run past it.
 */
const AVIF_EFFORT = 0;

/**
 * WebP effort (sharp's 0–6, default 4) for an output of `pixels`: the
 * default up to 4 MP, 0 above, where the default takes about 4.5 s for a
 * 40 MP original against 1 s (same quality, a somewhat larger file).
 */
function webpEffort(pixels: number): number {
  return pixels > 4_000_000 ? 0 : 4;
}

/** One sharp pipeline, as far as {@linkcode processImage} uses it. */
type Pipeline = ReturnType<Sharp>;

/**
 * Decodes `bytes` (already recognised as `info` by the sniff) with sharp and
 * returns the normalized original and its variants. Anything the decoder
 * refuses, a format that differs from the sniffed one, an image over the
 * pixel or frame budget, or work past `timeoutMs` is an
 * {@linkcode HttpError} 422.
 *
 * The work is a chain of steps, each one sharp call with a `timeout`: a
 * still image is decoded once, to raw pixels, and the original and every
 * variant are encoded from those (an animation is decoded per output). An
 * AVIF original is kept as uploaded, its metadata items blanked, instead of
 * being encoded again. Before each step `signal` is checked: when the
 * client has left, the rest is abandoned (its reason is thrown).
 *
 * @example
 * ```ts ignore
 * import sharp from "sharp";
 * import { processImage } from "./process.ts";
 * import { sniffImage } from "./sniff/mod.ts";
 * const bytes = await Deno.readFile("photo.jpg");
 * const prepared = await processImage(sharp, bytes, sniffImage(bytes)!, {
 *   widths: [480, 960], formats: ["webp"], maxPixels: 40e6, maxFrames: 100,
 *   animated: "keep", timeoutMs: 10_000,
 * });
 * ```
 */
export async function processImage(
  sharp: Sharp,
  bytes: Uint8Array,
  info: ImageInfo,
  options: ProcessOptions,
  signal?: AbortSignal,
): Promise<PreparedImage> {
  const step = stepper(options.timeoutMs, signal);
  const meta = await step(
    () => sharp(bytes, { animated: true, failOn: "warning" }),
    (p) => p.metadata(),
  );
  const type = FORMATS[meta.format ?? ""];
  const mismatch = type !== info.type ||
    (meta.format === "heif" && meta.compression !== "av1");
  if (mismatch) {
    throw new HttpError(
      422,
      `Image content does not match its ${info.ext.toUpperCase()} header`,
    );
  }
  const frames = meta.pages ?? 1;
  const frameHeight = meta.pageHeight ?? meta.height;
  checkBudget(meta.width, frameHeight, frames, options);
  const animated = frames > 1;
  const swap = !animated && (meta.orientation ?? 1) >= 5;
  const width = swap ? frameHeight : meta.width;
  const sizes = [...new Set(options.widths)].filter((w) => w > 0 && w < width)
    .sort((a, b) => a - b);
  const wanted: [format: string, mime: string, resize?: number][] = [
    [meta.format!, type],
    ...sizes.flatMap((w) =>
      options.formats.map((f): [string, string, number] => [f, `image/${f}`, w])
    ),
  ];
  const { source, decoded, release } = await decode(
    sharp,
    bytes,
    animated,
    options.maxPixels,
    step,
  );
  const outputs: ImageFile[] = [];
  try {
    for (const [format, mime, resize] of wanted) {
      if (!resize && decoded && mime === "image/avif") {
        outputs.push({ ...decoded, ...keptAvif(bytes) });
        continue;
      }
      outputs.push(
        await step(() => {
          let p = source();
          if (animated) p = p.autoOrient();
          if (resize) p = p.resize({ width: resize });
          // Output pixels: the displayed area scaled to the output width.
          const scale = (resize ?? width) / width;
          const pixels = meta.width * frameHeight * frames * scale * scale;
          return encoder(p, format, pixels, resize !== undefined);
        }, (p) => encoded(p, mime, animated, frames)),
      );
    }
  } finally {
    release();
  }
  const [original, ...variants] = outputs;
  return { original, variants, processed: true };
}

/** Runs one sharp step: `make` the pipeline, then `finish` it. */
type Step = <T>(
  make: () => Pipeline,
  finish: (p: Pipeline) => Promise<T>,
) => Promise<T>;

/**
 * The steps of one image: each runs with the time left until `timeoutMs`
 * from now as its timeout, after checking `signal`. A step past the
 * deadline is a 422 for the time limit, any other failure the decoder's.
 */
function stepper(timeoutMs: number, signal?: AbortSignal): Step {
  const deadline = performance.now() + timeoutMs;
  return async <T>(
    make: () => Pipeline,
    finish: (p: Pipeline) => Promise<T>,
  ) => {
    signal?.throwIfAborted();
    const left = deadline - performance.now();
    if (left <= 0) throw tooSlow(timeoutMs);
    const seconds = Math.max(1, Math.ceil(left / 1000));
    try {
      return await finish(make().timeout({ seconds }));
    } catch (err) {
      signal?.throwIfAborted();
      // libvips cut short by the timeout may report it as a read error
      // ("bad seek"): past the deadline, the time limit is the reason.
      const timedOut = performance.now() >= deadline ||
        /^timeout/i.test(err instanceof Error ? err.message : "");
      throw timedOut ? tooSlow(timeoutMs) : refused(err);
    }
  };
}

/**
 * Where every output starts: a still image is decoded once (oriented) and
 * each output starts from its raw pixels, whose size is `decoded`; an
 * animation is decoded again for each output.
 */
async function decode(
  sharp: Sharp,
  bytes: Uint8Array,
  animated: boolean,
  maxPixels: number,
  step: Step,
): Promise<{
  source: () => Pipeline;
  decoded?: { width: number; height: number };
  release: () => void;
}> {
  if (animated) {
    return {
      release: () => {},
      source: () =>
        sharp(bytes, {
          animated,
          failOn: "warning",
          limitInputPixels: maxPixels,
        }),
    };
  }
  const out = await step(
    () =>
      sharp(bytes, { failOn: "warning", limitInputPixels: maxPixels })
        .autoOrient(),
    (p) => p.raw().toBuffer({ resolveWithObject: true }),
  );
  const { width, height, channels } = out.info;
  return {
    source: () => sharp(out.data, { raw: { width, height, channels } }),
    decoded: { width, height },
    release: () => freeNow(out.data),
  };
}

/**
 * Frees the memory of `data` now rather than at the next garbage
 * collection (detaching its buffer), so that the next image's decode does
 * not find the last one's pixels still held: with uploads one after
 * another, they would add up past the memory budget.
 */
function freeNow(data: Uint8Array): void {
  const buffer = data.buffer;
  if (data.byteOffset !== 0 || data.byteLength !== buffer.byteLength) return;
  try {
    (buffer as ArrayBuffer).transfer(0);
  } catch { /* not detachable: left to the garbage collector */ }
}

/** Runs an encoding pipeline: the output as an {@linkcode ImageFile}. */
async function encoded(
  p: Pipeline,
  mime: string,
  animated: boolean,
  frames: number,
): Promise<ImageFile> {
  const out = await p.toBuffer({ resolveWithObject: true });
  const pages = (out.info as { pages?: number }).pages ?? frames;
  return {
    bytes: new Uint8Array(
      out.data.buffer,
      out.data.byteOffset,
      out.data.length,
    ),
    type: mime,
    ext: mime === "image/jpeg" ? "jpg" : mime.slice(6),
    width: out.info.width,
    height: animated ? Math.round(out.info.height / pages) : out.info.height,
  };
}

/**
 * `p` set to encode `pixels` as `format` (sharp's name), for the original or
 * a variant.
 */
function encoder(
  p: Pipeline,
  format: string,
  pixels: number,
  variant: boolean,
): Pipeline {
  switch (format) {
    case "jpeg":
      return p.jpeg({ quality: 90 });
    case "png":
      return p.png();
    case "gif":
      return p.gif();
    case "avif":
    case "heif":
      return p.avif({ quality: variant ? 55 : 65, effort: AVIF_EFFORT });
    default:
      return p.webp({
        quality: variant ? 80 : 90,
        effort: webpEffort(pixels),
      });
  }
}

/**
 * An AVIF original as uploaded, with the data of its `Exif` and XMP items
 * overwritten with zeros (a copy; the structure is unchanged).
 */
function keptAvif(
  bytes: Uint8Array,
): Pick<ImageFile, "bytes" | "type" | "ext"> {
  const copy = bytes.slice();
  for (const [start, end] of avifMetadataRanges(copy)) copy.fill(0, start, end);
  return { bytes: copy, type: "image/avif", ext: "avif" };
}

/** The 422 of an image whose processing passed the time limit. */
function tooSlow(timeoutMs: number): HttpError {
  return new HttpError(
    422,
    `Image takes too long to process (limit ${
      Math.round(timeoutMs / 100) / 10
    } s)`,
  );
}

/**
 * Refuses an image whose width × height × frames is over `maxPixels`, or
 * whose frames are over `maxFrames`, or that is animated when animation is
 * refused (all 422).
 */
export function checkBudget(
  width: number,
  height: number,
  frames: number,
  options: Pick<ProcessOptions, "maxPixels" | "maxFrames" | "animated">,
): void {
  if (frames > 1 && options.animated === "refuse") {
    throw new HttpError(422, "Animated images are not accepted");
  }
  if (frames > options.maxFrames) {
    throw new HttpError(
      422,
      `Too many frames: ${frames} (limit ${options.maxFrames})`,
    );
  }
  const pixels = width * height * frames;
  if (pixels > options.maxPixels) {
    throw new HttpError(
      422,
      `Image too large: ${width}x${height}${
        frames > 1 ? ` x ${frames} frames` : ""
      } pixels (limit ${options.maxPixels})`,
    );
  }
}

/** A decoder failure as a 422 with libvips' first line as the reason. */
function refused(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const line = message.split("\n")[0].replace(/^Input buffer has /, "")
    .slice(0, 120);
  return new HttpError(422, `Image does not decode: ${line}`);
}
