/**
 * The media endpoint: `POST` raw image bytes; success is `200` with a
 * {@linkcode MediaAnswer}, the stored image and its responsive variants.
 *
 * @module
 */

/**
 * The 200 answer of the media endpoint: the stored image.
 *
 * @example
 * ```ts
 * import type { MediaAnswer } from "./media.ts";
 * const answer: MediaAnswer = {
 *   key: "3f2c.png",
 *   url: "/media/3f2c.png",
 *   width: 640,
 *   height: 480,
 *   type: "image/png",
 *   variants: [
 *     { url: "/media/3f2c-480w.webp", width: 480, height: 360, type: "image/webp" },
 *   ],
 *   processed: true,
 * };
 * ```
 */
export interface MediaAnswer {
  /** Storage key of the stored object. */
  key: string;
  /** Public URL: the storage's public base, a slash, then the key. */
  url: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** The verified MIME type the object was stored with. */
  type: string;
  /**
   * Smaller copies beside the original (`<key stem>-<width>w.<ext>`), by
   * ascending width; never wider than the original. Empty when none.
   */
  variants: MediaVariant[];
  /**
   * `true`: decoded and normalized (orientation applied, metadata
   * stripped). `false`: the server could not load its image decoder, so
   * only the headers were checked and the bytes are stored as uploaded.
   */
  processed: boolean;
}

/** One responsive variant in a {@linkcode MediaAnswer}. */
export interface MediaVariant {
  /** Public URL, under the same media base as the original. */
  url: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** MIME type, e.g. `image/webp`. */
  type: string;
}
