/**
 * The media library and media cleanup: what the storage holds, grouped
 * into uploads (an original and its variants), and which uploads content
 * still uses. Both read the storage's listing and scan the content store
 * once: every current value, draft and revision still kept by retention
 * (pending schedules publish drafts, so their fields are drafts too).
 *
 * A value uses an upload when it contains the upload's URL (or a
 * variant's): the storage's public base, then the key, as the media
 * endpoint answers it. Alt texts are the `alt` of the `<img>` tags that
 * show the upload in rich values. The uploader and the file's name come
 * from the upload's record ({@linkcode recordUpload}, written by the media
 * endpoint when it is given `uploads`); for an upload without one, the
 * uploader is the editor of the oldest kept revision or draft that used it.
 *
 * @module
 */
import {
  type MediaLibraryItem,
  type MediaLibraryPage,
  Status,
} from "../../core/wire.ts";
import {
  admitEditor,
  type Authorize,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
  type OriginOptions,
} from "../http/mod.ts";
import { variantKey } from "./variants.ts";
import type { ContentStore, HistoryStore } from "../store/mod.ts";
import type { ListableMediaStorage, MediaObjectInfo } from "./types.ts";

/** One upload, as {@linkcode listUploads} finds it. */
export interface Upload extends MediaLibraryItem {
  /** The newest write of the original or a variant, ISO 8601. */
  changed: string;
}

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
 * import { cleanFileName } from "./library.ts";
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
 * media library. One record per upload, never a revision.
 *
 * @example
 * ```ts
 * import { MemoryContentStore } from "@inplace/cms";
 * import { recordUpload } from "./library.ts";
 * const store = new MemoryContentStore();
 * await recordUpload(store, "3f2a.jpg", "Ada", "sunset.jpg");
 * ```
 */
export async function recordUpload(
  store: ContentStore,
  key: string,
  editor: string,
  name: string,
): Promise<void> {
  const at = new Date().toISOString();
  await store.update(UPLOADS_COLLECTION, key, () => ({ editor, name, at }));
}

/** What a scan of the content found about one key. */
interface Use {
  alts: Set<string>;
  editor: string | null;
  at: string;
}

/** A `-<width>w.<ext>` variant key: its stem and width. */
const VARIANT = /^(.*)-(\d{1,5})w\.([a-z0-9]{1,5})$/;

/**
 * Groups a storage listing into uploads: an object named like a variant
 * ({@linkcode variantKey}) of another object belongs to it.
 *
 * @example
 * ```ts
 * import { groupUploads } from "./library.ts";
 * const m = "2030-01-01T00:00:00.000Z";
 * groupUploads([
 *   { key: "a.jpg", size: 9, modified: m },
 *   { key: "a-480w.webp", size: 3, modified: m },
 * ]).get("a.jpg")?.map((o) => o.key); // ["a-480w.webp"]
 * ```
 */
export function groupUploads(
  objects: MediaObjectInfo[],
): Map<string, MediaObjectInfo[]> {
  const byStem = new Map<string, string>();
  for (const o of objects) {
    const dot = o.key.lastIndexOf(".");
    const stem = dot > o.key.lastIndexOf("/") ? o.key.slice(0, dot) : o.key;
    if (!VARIANT.test(o.key) || !byStem.has(stem)) byStem.set(stem, o.key);
  }
  const out = new Map<string, MediaObjectInfo[]>();
  const variants: MediaObjectInfo[] = [];
  for (const o of objects) {
    const m = VARIANT.exec(o.key);
    const original = m ? byStem.get(m[1]) : undefined;
    if (
      m && original && original !== o.key &&
      variantKey(original, Number(m[2]), m[3]) === o.key
    ) {
      variants.push(o);
    } else out.set(o.key, []);
  }
  for (const v of variants) {
    const stem = VARIANT.exec(v.key)![1];
    out.get(byStem.get(stem)!)?.push(v);
  }
  return out;
}

/**
 * The storage keys that `text` points at: each place the public `base`
 * (`storage.url("")`) occurs, up to a quote, space, `<`, `>`, `)`, `?` or
 * `#`, percent-decoded.
 */
function keysIn(text: string, base: string, out: (key: string) => void) {
  for (let at = text.indexOf(base); at >= 0; at = text.indexOf(base, at + 1)) {
    const rest = text.slice(at + base.length, at + base.length + 2048);
    const raw = /^[^\s"'<>()?#,]+/.exec(rest)?.[0];
    if (!raw) continue;
    try {
      out(decodeURIComponent(raw));
    } catch {
      out(raw);
    }
  }
}

/** The alt texts of `<img>` tags in `html` by the keys they show. */
function altsIn(
  html: string,
  base: string,
  out: (key: string, alt: string) => void,
) {
  for (const [tag] of html.matchAll(/<img\b[^>]*>/gi)) {
    const alt = /\balt\s*=\s*("([^"]*)"|'([^']*)')/i.exec(tag);
    const text = alt ? (alt[2] ?? alt[3]).trim() : "";
    if (!text) continue;
    keysIn(tag, base, (key) => out(key, unescapeHtml(text)));
  }
}

function unescapeHtml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e) =>
      ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e as string]!,
  );
}

/**
 * Scans every current value, draft and kept revision of `store` for the
 * keys they use, with alt texts and the oldest user.
 */
async function scanUses(
  store: HistoryStore,
  base: string,
): Promise<[Map<string, Use>, Map<string, UploadRecord>]> {
  const uses = new Map<string, Use>();
  const records = new Map<string, UploadRecord>();
  const visit = (value: unknown, editor: string | null, at: string) => {
    const texts = typeof value === "string"
      ? [value]
      : Array.isArray(value)
      ? value.filter((v): v is string => typeof v === "string")
      : Object.values(value as Record<string, unknown>).flatMap((v) =>
        typeof v === "string" ? [v] : Array.isArray(v) ? v : []
      );
    for (const text of texts) {
      if (typeof text !== "string" || !text.includes(base)) continue;
      keysIn(text, base, (key) => {
        const use = uses.get(key);
        if (!use) uses.set(key, { alts: new Set(), editor, at });
        else if (editor !== null && (use.editor === null || at < use.at)) {
          use.editor = editor;
          use.at = at;
        }
      });
      altsIn(text, base, (key, alt) => uses.get(key)?.alts.add(alt));
    }
  };
  for await (const line of store.dump()) {
    if (line.type === "record" && line.collection === UPLOADS_COLLECTION) {
      const { editor, name } = line.record;
      if (typeof editor === "string") {
        records.set(line.key, {
          editor,
          name: typeof name === "string" ? name : "",
        });
      }
    } else if (line.type === "record") visit(line.record, null, "");
    else if (line.type === "revision") {
      const r = line.revision;
      visit(r.value, r.editor, r.at);
    } else if (line.type === "draft") {
      visit(line.draft.value, line.draft.editor, line.draft.at);
    }
  }
  return [uses, records];
}

/** What the media endpoint recorded about an upload. */
interface UploadRecord {
  editor: string;
  name: string;
}

/** Options of {@linkcode listUploads} and {@linkcode collectMedia}. */
export interface MediaScanOptions {
  /** Where uploads are stored. */
  storage: ListableMediaStorage;
  /** The content that uses them (current values, drafts, history). */
  store: HistoryStore;
}

/**
 * Every upload of `storage`, newest first, with what the content store
 * says about it (see the module notes).
 *
 * @example
 * ```ts
 * import { MemoryContentStore, MemoryMediaStorage } from "@inplace/cms";
 * import { listUploads } from "./library.ts";
 * const uploads = await listUploads({
 *   storage: new MemoryMediaStorage(),
 *   store: new MemoryContentStore(),
 * });
 * uploads.length; // 0
 * ```
 */
export async function listUploads(
  options: MediaScanOptions,
): Promise<Upload[]> {
  const { storage } = options;
  const base = storage.url("");
  const [objects, [uses, records]] = await Promise.all([
    Array.fromAsync(storage.list()),
    scanUses(options.store, base),
  ]);
  const byKey = new Map(objects.map((o) => [o.key, o]));
  const out: Upload[] = [];
  for (const [key, variants] of groupUploads(objects)) {
    const o = byKey.get(key)!;
    const found = [key, ...variants.map((v) => v.key)]
      .map((k) => uses.get(k)).filter((u): u is Use => u !== undefined);
    const first = found.filter((u) => u.editor !== null)
      .sort((a, b) => a.at < b.at ? -1 : 1)[0];
    out.push({
      key,
      url: storage.url(key),
      size: o.size + variants.reduce((n, v) => n + v.size, 0),
      variants: variants.map((v) => ({
        key: v.key,
        url: storage.url(v.key),
        size: v.size,
        width: Number(VARIANT.exec(v.key)![2]),
      })).sort((a, b) => a.width - b.width),
      uploaded: o.modified,
      name: records.get(key)?.name || key.slice(key.lastIndexOf("/") + 1),
      changed: [o, ...variants].map((x) => x.modified).sort().at(-1)!,
      uploader: records.get(key)?.editor ?? first?.editor ?? null,
      alts: [...new Set(found.flatMap((u) => [...u.alts]))].sort(),
      used: found.length > 0,
    });
  }
  return out.sort((a, b) =>
    a.uploaded < b.uploaded
      ? 1
      : a.uploaded > b.uploaded
      ? -1
      : a.key < b.key
      ? -1
      : 1
  );
}

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

/** Options of {@linkcode createMediaLibraryHandler}. */
export interface MediaLibraryHandlerOptions
  extends MediaScanOptions, OriginOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /**
   * The admin gate of the library. Defaults to `authorize` (same as the
   * media endpoint's `authorizeMedia`).
   */
  authorizeMedia?: Authorize;
}

/** Most uploads one page holds. */
const MAX_PAGE = 200;

/**
 * `GET /api/cms/media/library?q=&cursor=&limit=`: one page (default 50, at
 * most 200) of the uploads, newest first: 200 {@linkcode MediaLibraryPage}.
 * `q` keeps the uploads whose file name (the key) or an alt text contains
 * it, ignoring case. 400 for a bad `cursor` or `limit`; 403 without a
 * session or from another site; 405 for other methods.
 *
 * @example
 * ```ts
 * import {
 *   createMediaLibraryHandler,
 *   MemoryContentStore,
 *   MemoryMediaStorage,
 * } from "@inplace/cms";
 * const library = createMediaLibraryHandler({
 *   authorize: (req) =>
 *     req.headers.get("Cookie")?.includes("session=ok") ? { name: "Ada" } : null,
 *   storage: new MemoryMediaStorage(),
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createMediaLibraryHandler(
  options: MediaLibraryHandlerOptions,
): Handler<EndpointCall> {
  const gate = {
    ...options,
    authorize: options.authorizeMedia ?? options.authorize,
  };
  return endpoint<EndpointCall>("media_library", async (req, _ctx, call) => {
    await admitEditor(req, ["GET", "HEAD"], gate, call);
    const params = new URL(req.url).searchParams;
    const offset = Number(params.get("cursor") ?? "0");
    const limit = Number(params.get("limit") ?? "50");
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new HttpError(Status.BadRequest, "Invalid cursor");
    }
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw new HttpError(
        Status.BadRequest,
        `limit must be 1 to ${MAX_PAGE}`,
      );
    }
    const q = (params.get("q") ?? "").trim().toLowerCase().slice(0, 200);
    const all = (await listUploads(options)).filter((u) =>
      !q || u.key.toLowerCase().includes(q) ||
      u.name.toLowerCase().includes(q) ||
      u.alts.some((a) => a.toLowerCase().includes(q))
    );
    const page: MediaLibraryPage = {
      uploads: all.slice(offset, offset + limit).map((
        { changed: _, ...item },
      ) => item),
      next: offset + limit < all.length ? String(offset + limit) : null,
      total: all.length,
    };
    return json(Status.OK, page, { "Cache-Control": "no-store" });
  });
}
