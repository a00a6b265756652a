/**
 * A {@linkcode MediaStorage} in a local folder (the embedded default), and a
 * handler that serves its files safely.
 *
 * @module
 */
import { text } from "../http/mod.ts";
import type { MediaObjectInfo, MediaStorage } from "./types.ts";

/** Options of {@linkcode LocalMediaStorage}. */
export interface LocalMediaStorageOptions {
  /** The folder that holds the files; created on the first `put`. */
  dir: string;
  /** Public base address of the files. Default `"/media"`. */
  publicUrl?: string;
}

/** An opened media file; the caller closes `file`. */
export interface OpenedMedia {
  /** The open file, positioned at its start. */
  file: Deno.FsFile;
  /** Size in bytes. */
  size: number;
  /** The content type stored with the file. */
  contentType: string;
}

const CONTENT_TYPE =
  /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

/**
 * Stores media as files: `<dir>/<key>`, with the verified content type in a
 * hidden sidecar `<dir>/<parent>/.<name>.type`. Both are written to a temp
 * file and renamed, so readers never see half a file. Keys are `/`-separated
 * segments; a key with an empty segment, a segment starting with `.`, a
 * backslash or a control character is refused with a `TypeError`.
 *
 * @example
 * ```ts
 * import { LocalMediaStorage, serveLocalMedia } from "@inplace/cms";
 * const media = new LocalMediaStorage({ dir: "./.data/media" });
 * const serveMedia = serveLocalMedia(media); // serves GET /media/<key>
 * Deno.serve((req) =>
 *   new URL(req.url).pathname.startsWith("/media/")
 *     ? serveMedia(req)
 *     : new Response("Not found", { status: 404 })
 * );
 * ```
 */
export class LocalMediaStorage implements MediaStorage {
  /** The folder that holds the files. */
  readonly dir: string;
  /** Public base address of the files, without a trailing slash. */
  readonly publicUrl: string;

  /** Creates a storage over `options.dir`. */
  constructor(options: LocalMediaStorageOptions) {
    this.dir = options.dir.replace(/\/+$/, "") || "/";
    this.publicUrl = (options.publicUrl ?? "/media").replace(/\/+$/, "");
  }

  /** Writes `bytes` to `<dir>/<key>` and the type beside it, atomically. */
  async put(
    key: string,
    bytes: Uint8Array,
    contentType: string,
  ): Promise<void> {
    const { file, meta, parent } = this.#paths(key);
    if (!CONTENT_TYPE.test(contentType)) {
      throw new TypeError(`invalid content type: ${contentType}`);
    }
    await Deno.mkdir(parent, { recursive: true });
    await writeAtomic(meta, new TextEncoder().encode(contentType));
    await writeAtomic(file, bytes);
  }

  /**
   * Removes `<dir>/<key>` and its type sidecar; a missing file is fine. An
   * invalid key is a `TypeError`, as in `put`.
   */
  async delete(key: string): Promise<void> {
    const { file, meta } = this.#paths(key);
    for (const path of [file, meta]) {
      await Deno.remove(path).catch((err) => {
        if (!isMissing(err)) throw err;
      });
    }
  }

  /** Readiness probe: the folder must exist and be a folder. */
  async check(): Promise<void> {
    const info = await Deno.stat(this.dir);
    if (!info.isDirectory) throw new Error(`${this.dir} is not a folder`);
  }

  /** The public base address, a slash, then the key (URL-encoded per segment). */
  url(key: string): string {
    return `${this.publicUrl}/${
      key.split("/").map(encodeURIComponent).join("/")
    }`;
  }

  /**
   * Opens a stored file for reading, or resolves `null` when the key is
   * invalid or not stored.
   */
  async open(key: string): Promise<OpenedMedia | null> {
    if (!isValidKey(key)) return null;
    const { file: path, meta } = this.#paths(key);
    let contentType: string;
    try {
      contentType = await Deno.readTextFile(meta);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    const info = await file.stat();
    if (!info.isFile || !CONTENT_TYPE.test(contentType)) {
      file.close();
      return null;
    }
    return { file, size: info.size, contentType };
  }

  /**
   * Every stored file (type sidecars and temp files left out), with its
   * size and last change, in no fixed order. For the media library and gc.
   */
  async *list(): AsyncIterable<MediaObjectInfo> {
    const walk = async function* (
      dir: string,
      prefix: string,
    ): AsyncIterable<MediaObjectInfo> {
      let entries: Deno.DirEntry[];
      try {
        entries = await Array.fromAsync(Deno.readDir(dir));
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      for (const e of entries) {
        if (e.name.startsWith(".")) continue;
        const path = `${dir}/${e.name}`;
        if (e.isDirectory) yield* walk(path, `${prefix}${e.name}/`);
        else if (e.isFile) {
          const info = await Deno.stat(path).catch(() => null);
          if (!info) continue;
          yield {
            key: prefix + e.name,
            size: info.size,
            modified: (info.mtime ?? new Date(0)).toISOString(),
          };
        }
      }
    };
    yield* walk(this.dir, "");
  }

  #paths(key: string): { file: string; meta: string; parent: string } {
    if (!isValidKey(key)) throw new TypeError(`invalid media key: ${key}`);
    const at = key.lastIndexOf("/");
    const parent = at < 0 ? this.dir : `${this.dir}/${key.slice(0, at)}`;
    const name = key.slice(at + 1);
    return {
      file: `${parent}/${name}`,
      meta: `${parent}/.${name}.type`,
      parent,
    };
  }
}

/** Options of {@linkcode serveLocalMedia}. */
export interface ServeLocalMediaOptions {
  /** URL path the keys follow. Default: the path of the storage's `publicUrl`. */
  prefix?: string;
}

/**
 * A handler that serves the files of a {@linkcode LocalMediaStorage}:
 * GET and HEAD of `<prefix>/<key>`, with the stored content type (never
 * guessed), `X-Content-Type-Options: nosniff`, a sandboxing CSP and a
 * one-year immutable cache. Unknown or invalid keys get 404, other methods
 * 405. The file is streamed, never read whole.
 */
export function serveLocalMedia(
  storage: LocalMediaStorage,
  options: ServeLocalMediaOptions = {},
): (req: Request) => Promise<Response> {
  const prefix =
    (options.prefix ?? new URL(storage.publicUrl, "http://x").pathname)
      .replace(/\/+$/, "") + "/";
  return async (req) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      return text(405, "method not allowed", { Allow: "GET, HEAD" });
    }
    const url = URL.parse(req.url);
    const key = url ? keyOf(url.pathname, prefix) : null;
    const opened = key === null ? null : await storage.open(key);
    if (!opened) return text(404, "not found");
    const headers = {
      "Content-Type": opened.contentType,
      "Content-Length": String(opened.size),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy":
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
      "Cache-Control": "public, max-age=31536000, immutable",
    };
    if (req.method === "HEAD") {
      opened.file.close();
      return new Response(null, { headers });
    }
    return new Response(opened.file.readable, { headers });
  };
}

/** Decodes the key from a raw path, or `null` (encoded `/` is refused). */
function keyOf(pathname: string, prefix: string): string | null {
  if (!pathname.startsWith(prefix)) return null;
  try {
    const segments = pathname.slice(prefix.length).split("/")
      .map(decodeURIComponent);
    if (segments.some((s) => s.includes("/"))) return null;
    const key = segments.join("/");
    return isValidKey(key) ? key : null;
  } catch {
    return null; // malformed percent-encoding
  }
}

function isValidKey(key: string): boolean {
  return key.length > 0 && key.length <= 1024 &&
    // deno-lint-ignore no-control-regex
    !/[\\\x00-\x1f\x7f]/.test(key) &&
    key.split("/").every((s) => s !== "" && !s.startsWith("."));
}

async function writeAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const at = path.lastIndexOf("/");
  const temp = `${path.slice(0, at)}/.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeFile(temp, bytes);
    await Deno.rename(temp, path);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw err;
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound ||
    err instanceof Deno.errors.NotADirectory;
}
