/**
 * Loads sharp (libvips) lazily. Where its prebuilt binary cannot load, the
 * image pipeline falls back to header-only checks instead of failing to start.
 *
 * @module
 */
import type sharpFn from "sharp";

/** The `sharp` function of the `sharp` npm package. */
export type Sharp = typeof sharpFn;

/**
 * Resolves the `sharp` function of the `sharp` npm package, or rejects when
 * it cannot load. (Typed `unknown` so the public API names no npm type.)
 */
export type SharpLoader = () => Promise<unknown>;

/**
 * The default {@linkcode SharpLoader}: a dynamic import of `npm:sharp`, so a
 * platform without its native binary only fails here, when first needed.
 *
 * @example
 * ```ts
 * import { importSharp } from "./sharp.ts";
 * const sharp = await importSharp().catch(() => null);
 * ```
 */
export async function importSharp(): Promise<unknown> {
  const sharp = (await import("sharp")).default;
  sharp.cache(false); // each upload is decoded once; keep no pixels around
  return sharp;
}
