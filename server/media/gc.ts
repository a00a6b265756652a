/**
 * Media cleanup: finds the uploads that no content uses any more (see
 * `_scan.ts` for what counts as a use) and, when asked, deletes them.
 *
 * @module
 */
import { listUploads, type MediaScanOptions, type Upload } from "./_scan.ts";

/** Options of {@linkcode collectMedia}. */
export interface CollectMediaOptions extends MediaScanOptions {
  /**
   * Uploads stored less than this many days ago are kept whatever uses
   * them (an upload in progress, or one not saved into a field yet).
   * Default 7.
   */
  graceDays?: number;
  /** Delete what is found (originals and variants). Default `false`. */
  delete?: boolean;
  /** The time to judge the grace period by, ms. Default now. */
  now?: number;
}

/** What {@linkcode collectMedia} found (and deleted, with `delete`). */
export interface MediaGcReport {
  /** Uploads looked at. */
  uploads: number;
  /** Unused uploads past the grace period: deleted with `delete`. */
  unused: Upload[];
  /** Unused uploads still in their grace period (kept). */
  recent: number;
  /** Whether `unused` was deleted. */
  deleted: boolean;
}

/**
 * Finds uploads that no current value, draft, pending schedule or kept
 * revision uses and that are older than the grace period; with `delete`,
 * deletes each and its variants. A dry run by default.
 *
 * @example
 * ```ts
 * import {
 *   collectMedia,
 *   MemoryContentStore,
 *   MemoryMediaStorage,
 * } from "@inplace/cms";
 * const report = await collectMedia({
 *   storage: new MemoryMediaStorage(),
 *   store: new MemoryContentStore(),
 * });
 * report.unused.length; // 0
 * ```
 */
export async function collectMedia(
  options: CollectMediaOptions,
): Promise<MediaGcReport> {
  const graceDays = options.graceDays ?? 7;
  if (!(Number.isFinite(graceDays) && graceDays >= 0)) {
    throw new RangeError("graceDays must be a number ≥ 0");
  }
  const now = options.now ?? Date.now();
  const cutoff = now - graceDays * 24 * 60 * 60 * 1000;
  const uploads = await listUploads(options);
  const unused: Upload[] = [];
  let recent = 0;
  for (const u of uploads) {
    if (u.used) continue;
    // Every object of the upload must be past the grace period.
    if (!(Date.parse(u.changed) < cutoff)) {
      recent++;
      continue;
    }
    unused.push(u);
  }
  if (options.delete) {
    for (const u of unused) {
      // Variants first: an interrupted run leaves the original findable.
      for (const v of u.variants) await options.storage.delete(v.key);
      await options.storage.delete(u.key);
    }
  }
  return {
    uploads: uploads.length,
    unused,
    recent,
    deleted: options.delete === true,
  };
}
