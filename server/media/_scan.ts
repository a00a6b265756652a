/**
 * What the storage holds, grouped into uploads (an original and its
 * variants), and which uploads content still uses: the one scan that the
 * media library and media cleanup share. It reads the storage's listing and
 * scans the content store once: every current value, draft and revision
 * still kept by retention (pending schedules publish drafts, so their
 * fields are drafts too).
 *
 * A value uses an upload when it contains the upload's URL (or a
 * variant's): the storage's public base, then the key, as the media
 * endpoint answers it. Alt texts are the `alt` of the `<img>` tags that
 * show the upload in rich values. The uploader and the file's name come
 * from the upload's record (`recordUpload` in `_uploads.ts`, written by the
 * media endpoint when it is given `uploads`); for an upload without one,
 * the uploader is the editor of the oldest kept revision or draft that used
 * it.
 *
 * @module
 */
import type { MediaLibraryItem } from "../../core/protocol/mod.ts";
import { variantKey } from "./variants.ts";
import type { HistoryStore } from "../store/mod.ts";
import type { ListableMediaStorage, MediaObjectInfo } from "./types.ts";
import { type UploadRecord, UPLOADS_COLLECTION } from "./_uploads.ts";

/** One upload, as {@linkcode listUploads} finds it. */
export interface Upload extends MediaLibraryItem {
  /** The newest write of the original or a variant, ISO 8601. */
  changed: string;
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
 * import { groupUploads } from "./_scan.ts";
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

/** Options of {@linkcode listUploads} and of `collectMedia` (`gc.ts`). */
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
 * import { listUploads } from "./_scan.ts";
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
