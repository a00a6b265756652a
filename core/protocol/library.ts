/**
 * The media library: `GET /api/cms/media/library?q=&cursor=&limit=` →
 * {@linkcode MediaLibraryPage}, one page of uploads (each a
 * {@linkcode MediaLibraryItem}), newest first.
 *
 * @module
 */

/** One upload in a {@linkcode MediaLibraryPage}: an original and its variants. */
export interface MediaLibraryItem {
  /** The original's storage key. */
  key: string;
  /** The file's name as the editor's browser sent it (else the key's last segment). */
  name: string;
  /** The original's public URL (what an image field stores). */
  url: string;
  /** Bytes of the original and its variants. */
  size: number;
  /** The variants stored beside it, with their width (from the key). */
  variants: { key: string; url: string; size: number; width: number }[];
  /** When the original was stored, ISO 8601. */
  uploaded: string;
  /**
   * Who uploaded it (the media endpoint's record), else the editor who first
   * used it in content; `null` when neither is known.
   */
  uploader: string | null;
  /** The alt texts it is shown with in rich fields, sorted. */
  alts: string[];
  /** Whether a current value, draft or kept revision uses it. */
  used: boolean;
}

/**
 * The 200 answer of `GET /api/cms/media/library?q=&cursor=&limit=`: one
 * page of uploads, newest first.
 *
 * @example
 * ```ts
 * import type { MediaLibraryPage } from "./library.ts";
 * const page: MediaLibraryPage = { uploads: [], next: null, total: 0 };
 * ```
 */
export interface MediaLibraryPage {
  /** This page, newest first. */
  uploads: MediaLibraryItem[];
  /** The `cursor` of the next page, or `null` on the last. */
  next: string | null;
  /** How many uploads match the search. */
  total: number;
}
