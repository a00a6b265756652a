/**
 * The upload records: who uploaded a key and the file's name as sent, one
 * record per upload in the content store, written by the media endpoint
 * and read by the media library's scan.
 *
 * @module
 */
import type { ContentStore } from "../store/mod.ts";
import type { MediaAnswer, MediaVariant } from "../../core/protocol/mod.ts";

/**
 * The collection of upload records in the content store: one record per
 * upload key, `{editor, name, at}`, written by the media endpoint when it
 * is given `uploads` (see `MediaHandlerOptions`). Not content: the scan
 * skips it, so a record never keeps its upload alive.
 */
export const UPLOADS_COLLECTION = "_cms_uploads";

/**
 * A file name as an editor's browser sent it (`X-File-Name`,
 * percent-encoded), made safe to show: no folders, no control characters,
 * at most 200 characters.
 *
 * @example
 * ```ts
 * import { cleanFileName } from "./_uploads.ts";
 * cleanFileName("C%3A%5Cphotos%5Csunset%20sea.jpg"); // "sunset sea.jpg"
 * ```
 */
export function cleanFileName(raw: string | null): string {
  if (!raw) return "";
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch { /* keep it as sent */ }
  // deno-lint-ignore no-control-regex
  name = name.replace(/[\x00-\x1f\x7f]/g, "");
  return name.slice(name.search(/[^\\/]*$/)).trim().slice(0, 200);
}

/**
 * Records who uploaded `key` (and the file's name) in `store`, for the
 * media library, and the stored image (its size and variants, for
 * `responsiveImage`). One record per upload, never a revision.
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "@inplace/cms";
 * import { recordUpload } from "./_uploads.ts";
 * const store = new MemoryContentStore();
 * await recordUpload(store, "3f2a.jpg", "Ada", "sunset.jpg");
 * ```
 */
export async function recordUpload(
  store: ContentStore,
  key: string,
  editor: string,
  name: string,
  answer?: MediaAnswer,
): Promise<void> {
  const at = new Date().toISOString();
  const image = answer
    ? JSON.stringify({
      url: answer.url,
      width: answer.width,
      height: answer.height,
      type: answer.type,
      variants: answer.variants,
    })
    : undefined;
  await store.update(
    UPLOADS_COLLECTION,
    key,
    (r) => ({ ...r, editor, name, at, ...image ? { image } : {} }),
  );
}

/** An uploaded image as the media endpoint recorded it. */
export interface UploadedImage {
  /** The original's public URL. */
  url: string;
  /** Its width in pixels. */
  width: number;
  /** Its height in pixels. */
  height: number;
  /** Its MIME type. */
  type: string;
  /** The smaller copies stored beside it, by ascending width. */
  variants: MediaVariant[];
}

const isSize = (n: unknown): n is number =>
  typeof n === "number" && Number.isInteger(n) && n > 0;

function isVariant(v: unknown): v is MediaVariant {
  const o = v as MediaVariant | null;
  return typeof o?.url === "string" && isSize(o.width) && isSize(o.height) &&
    typeof o.type === "string";
}

/**
 * The image recorded for the upload `key` in `store` (see
 * {@linkcode recordUpload}), or `null` when none is recorded (an upload
 * made without `uploads`, or before images were recorded) or the record
 * is damaged.
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "@inplace/cms";
 * import { uploadedImage } from "./_uploads.ts";
 * await uploadedImage(new MemoryContentStore(), "3f2a.jpg"); // null
 * ```
 */
export async function uploadedImage(
  store: ContentStore,
  key: string,
): Promise<UploadedImage | null> {
  const raw = (await store.get(UPLOADS_COLLECTION, key))?.image;
  if (typeof raw !== "string") return null;
  let image: UploadedImage;
  try {
    image = JSON.parse(raw);
  } catch {
    return null;
  }
  const ok = typeof image?.url === "string" && isSize(image.width) &&
    isSize(image.height) && typeof image.type === "string" &&
    Array.isArray(image.variants) && image.variants.every(isVariant);
  return ok ? image : null;
}

/**
 * Marks `key` as chosen by an editor now (from the media library), so
 * media cleanup's grace period starts again: a choice is a use that the
 * save which follows has not stored yet.
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "@inplace/cms";
 * import { markChosen } from "./_uploads.ts";
 * await markChosen(new MemoryContentStore(), "3f2a.jpg");
 * ```
 */
export async function markChosen(
  store: ContentStore,
  key: string,
): Promise<void> {
  const chosen = new Date().toISOString();
  await store.update(UPLOADS_COLLECTION, key, (r) => ({ ...r, chosen }));
}

/** What the media endpoint and the library recorded about an upload. */
export interface UploadRecord {
  /** The editor who uploaded it, or `null` when not recorded. */
  editor: string | null;
  /** The file's name as the browser sent it (cleaned), or `""`. */
  name: string;
  /** The last time an editor chose it from the library, ISO 8601. */
  chosen?: string;
}

/**
 * An upload's record as stored, or `null` when it holds nothing known.
 *
 * @example
 * ```ts
 * import { readUploadRecord } from "./_uploads.ts";
 * readUploadRecord({ editor: "Ada", name: "a.jpg", at: "x" })?.editor; // "Ada"
 * readUploadRecord({ chosen: "2030-01-01T00:00:00.000Z" })?.editor; // null
 * ```
 */
export function readUploadRecord(
  record: Record<string, unknown>,
): UploadRecord | null {
  const { editor, name, chosen } = record;
  const out: UploadRecord = {
    editor: typeof editor === "string" ? editor : null,
    name: typeof name === "string" ? name : "",
  };
  if (typeof chosen === "string") out.chosen = chosen;
  return out.editor === null && out.chosen === undefined ? null : out;
}
