/**
 * What the storage holds, grouped into uploads (an original and its
 * variants), and which uploads content still uses: the one scan that the
 * media library and media cleanup share. It reads the storage's listing and
 * scans the content store once: every current value, draft and revision
 * still kept by retention (pending schedules publish drafts, so their
 * fields are drafts too).
 *
 * A value uses an upload when it holds a URL (of the upload or a variant)
 * that a browser could resolve to the key: see `keysIn`, which reads every
 * spelling the save endpoint ever accepted, on every store. Alt texts are the `alt` of the `<img>` tags that
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
import {
  readUploadRecord,
  type UploadRecord,
  UPLOADS_COLLECTION,
} from "./_uploads.ts";
import { storedAddress } from "../../core/stored_address.ts";

/** One upload, as {@linkcode listUploads} finds it. */
export interface Upload extends MediaLibraryItem {
  /**
   * The newest write of the original or a variant, or the last time an
   * editor chose it from the library, ISO 8601: cleanup's grace period
   * counts from it.
   */
  changed: string;
  /** Each alt text, with the stored addresses of the fields showing it. */
  altFields: Map<string, Set<string>>;
}

/** What a scan of the content found about one key. */
interface Use {
  /** Each alt text, with the stored addresses of the fields showing it. */
  alts: Map<string, Set<string>>;
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

// Characters that end a URL in HTML or text (after entities are decoded).
const URL_END = /[\s"'<>(),]+/;
// The character references an attribute value may use.
const REFERENCE = /&(?:#(\d{1,7})|#x([\da-f]{1,6})|(amp|lt|gt|quot|apos));?/gi;
const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

function decodeReferences(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (all, dec, hex, name) => {
    if (name) return NAMED[name.toLowerCase()];
    const code = dec ? Number(dec) : parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/**
 * The storage keys among `keys` that `text` points at, the way a browser
 * reads them: character references decoded, tabs and newlines dropped,
 * backslashes as slashes, `.` and `..` segments resolved, percent-escapes
 * decoded. A URL uses a key when its path ends with `/key` (or is `key`),
 * whatever comes before: the storage's base, another spelling of it, or a
 * path relative to the page. Cleanup keeps a file when in doubt.
 */
function keysIn(
  text: string,
  keys: ReadonlySet<string>,
  out: (key: string) => void,
) {
  const plain = decodeReferences(text).replace(/[\t\n\r]/g, "");
  for (const token of plain.split(URL_END)) {
    if (token.length < 2 || !token.includes(".")) continue;
    let path = token.replaceAll("\\", "/").replace(/[?#].*$/s, "");
    if (/(^|\/)\.\.?(\/|$)/.test(path)) {
      try {
        path = new URL(path, "http://x.invalid/a/b/c/d/e/f/").pathname;
      } catch { /* keep it as written */ }
    }
    try {
      path = decodeURIComponent(path);
    } catch { /* keep it as written */ }
    for (let at = -1; at < path.length; at = path.indexOf("/", at + 1)) {
      const key = path.slice(at + 1);
      if (keys.has(key)) out(key);
      if (path.indexOf("/", at + 1) < 0) break;
    }
  }
}

/** The alt texts of `<img>` tags in `html` by the keys they show. */
function altsIn(
  html: string,
  keys: ReadonlySet<string>,
  out: (key: string, alt: string) => void,
) {
  for (const [tag] of html.matchAll(/<img\b[^>]*>/gi)) {
    const alt = /\balt\s*=\s*("([^"]*)"|'([^']*)')/i.exec(tag);
    const text = alt ? decodeReferences(alt[2] ?? alt[3]).trim() : "";
    if (!text) continue;
    const src = tag.replace(/\balt\s*=\s*("[^"]*"|'[^']*')/i, "");
    keysIn(src, keys, (key) => out(key, text));
  }
}

/** The texts a stored value holds (a text, a list, or one per locale). */
function textsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) {
    return value.filter((v): v is string => typeof v === "string");
  }
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(textsOf);
}

/**
 * Scans every current value, draft and kept revision of `store` for the
 * `keys` they use, with alt texts (and the field each is shown in) and the
 * oldest user; and reads the upload records.
 */
async function scanUses(
  store: HistoryStore,
  keys: ReadonlySet<string>,
): Promise<[Map<string, Use>, Map<string, UploadRecord>]> {
  const uses = new Map<string, Use>();
  const records = new Map<string, UploadRecord>();
  const visit = (
    value: unknown,
    where: string,
    editor: string | null,
    at: string,
  ) => {
    for (const text of textsOf(value)) {
      keysIn(text, keys, (key) => {
        const use = uses.get(key);
        if (!use) uses.set(key, { alts: new Map(), editor, at });
        else if (editor !== null && (use.editor === null || at < use.at)) {
          use.editor = editor;
          use.at = at;
        }
      });
      altsIn(text, keys, (key, alt) => {
        const alts = uses.get(key)?.alts;
        if (alts && !alts.get(alt)?.add(where)) alts.set(alt, new Set([where]));
      });
    }
  };
  for await (const line of store.dump()) {
    if (line.type === "record" && line.collection === UPLOADS_COLLECTION) {
      const record = readUploadRecord(line.record);
      if (record) records.set(line.key, record);
    } else if (line.type === "record") {
      for (const [field, value] of Object.entries(line.record)) {
        visit(value, storedAddress({ ...line, field }), null, "");
      }
    } else if (line.type === "revision" || line.type === "draft") {
      const r = line.type === "revision" ? line.revision : line.draft;
      visit(r.value, storedAddress(r), r.editor, r.at);
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
  const objects = await Array.fromAsync(storage.list());
  const byKey = new Map(objects.map((o) => [o.key, o]));
  const [uses, records] = await scanUses(options.store, new Set(byKey.keys()));
  const out: Upload[] = [];
  for (const [key, variants] of groupUploads(objects)) {
    const o = byKey.get(key)!;
    const found = [key, ...variants.map((v) => v.key)]
      .map((k) => uses.get(k)).filter((u): u is Use => u !== undefined);
    const first = found.filter((u) => u.editor !== null)
      .sort((a, b) => a.at < b.at ? -1 : 1)[0];
    const altFields = new Map<string, Set<string>>();
    for (const [alt, fields] of found.flatMap((u) => [...u.alts])) {
      for (const f of fields) {
        altFields.get(alt)?.add(f) ?? altFields.set(alt, new Set([f]));
      }
    }
    const record = records.get(key);
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
      name: record?.name || key.slice(key.lastIndexOf("/") + 1),
      changed: [o, ...variants].map((x) => x.modified)
        .concat(record?.chosen ?? []).sort().at(-1)!,
      uploader: record?.editor ?? first?.editor ?? null,
      alts: [...altFields.keys()].sort(),
      altFields,
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
