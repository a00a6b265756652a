/**
 * The public types of an editing session: the options of `mountCms` and
 * the handle it returns (the session itself is `cms.ts`).
 *
 * @module
 */
import type { CmsConfig } from "./config.ts";
import type { Labels, Language } from "./labels.ts";

/** Options of `mountCms`: page config overrides, save concurrency, labels. */
export interface MountOptions extends Partial<CmsConfig> {
  /** Maximum concurrent save requests. Default 64 (see `ModelOptions`). */
  concurrency?: number;
  /**
   * The UI's language: `"en"` (default) or `"de"`, or a partial table whose
   * entries replace the English ones (see `client/labels.ts`).
   */
  labels?: Language | Partial<Labels>;
}

/** A mounted editing session. */
export interface CmsHandle {
  /**
   * Number of fields (duplicate markers count once): all of them once
   * `ready` resolved. 0 when nothing is mounted.
   */
  readonly fields: number;
  /**
   * Resolves once every region, rich editor and restored draft is in place.
   * The page answers input before: a first input makes every region
   * editable at once.
   */
  readonly ready: Promise<void>;
  /** Saves every changed field; resolves when all requests are answered. */
  save(): Promise<void>;
  /** Restores the page's regions, removes the edit bar and all listeners. */
  unmount(): void;
}
