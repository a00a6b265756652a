/**
 * Decodes, normalizes and resizes one upload with sharp: the decoder's
 * verdict and dimensions, EXIF orientation applied, metadata stripped, sRGB
 * output, animation kept, and responsive variants.
 *
 * @module
 */
import { HttpError } from "../http.ts";
import type { ImageInfo } from "../sniff.ts";
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
 * Decodes `bytes` (already recognised as `info` by the sniff) with sharp and
 * returns the normalized original and its variants. Anything the decoder
 * refuses, a format that differs from the sniffed one, or an image over the
 * pixel or frame budget is an {@linkcode HttpError} 422.
 *
 * @example
 * ```ts ignore
 * import sharp from "sharp";
 * import { processImage } from "./process.ts";
 * import { sniffImage } from "../sniff.ts";
 * const bytes = await Deno.readFile("photo.jpg");
 * const prepared = await processImage(sharp, bytes, sniffImage(bytes)!, {
 *   widths: [480, 960], formats: ["webp"], maxPixels: 40e6, maxFrames: 100,
 *   animated: "keep",
 * });
 * ```
 */
export async function processImage(
  sharp: Sharp,
  bytes: Uint8Array,
  info: ImageInfo,
  options: ProcessOptions,
): Promise<PreparedImage> {
  const meta = await sharp(bytes, { animated: true, failOn: "warning" })
    .metadata().catch((err) => {
      throw refused(err);
    });
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

  const input = () =>
    sharp(bytes, {
      animated,
      failOn: "warning",
      limitInputPixels: options.maxPixels,
    }).autoOrient();
  const encode = async (
    format: string,
    mime: string,
    resize?: number,
  ): Promise<ImageFile> => {
    let pipeline = input();
    if (resize) pipeline = pipeline.resize({ width: resize });
    pipeline = format === "jpeg"
      ? pipeline.jpeg({ quality: 90 })
      : format === "png"
      ? pipeline.png()
      : format === "gif"
      ? pipeline.gif()
      : format === "avif" || format === "heif"
      ? pipeline.avif({ quality: resize ? 55 : 65 })
      : pipeline.webp({ quality: resize ? 80 : 90 });
    const out = await pipeline.toBuffer({ resolveWithObject: true });
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
  };
  const sizes = [...new Set(options.widths)].filter((w) => w > 0 && w < width)
    .sort((a, b) => a - b);
  try {
    const [original, ...variants] = await Promise.all([
      encode(meta.format!, type),
      ...sizes.flatMap((w) =>
        options.formats.map((f) => encode(f, `image/${f}`, w))
      ),
    ]);
    return { original, variants, processed: true };
  } catch (err) {
    throw refused(err);
  }
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
