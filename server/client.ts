/**
 * Serves the browser client from the package itself: the bundled entry
 * module and its lazy chunks (generated into `client_files.ts` by
 * `deno task build`), so a host needs no build step and no static folder,
 * wherever the module was loaded from (JSR, `"links"`, a local path).
 *
 * @module
 */
import { text } from "./http.ts";

/** Options of {@linkcode createClientHandler}. */
export interface ClientHandlerOptions {
  /** URL path the files are served under, with slashes. Default `/cms/`. */
  base?: string;
}

/** The client handler: a Web-standard handler with the entry's path. */
export interface ClientHandler {
  /** Answers GET and HEAD under {@linkcode ClientHandler.base}. */
  (req: Request): Promise<Response>;
  /** URL path of the entry module (it exports `mountCms`), e.g. `/cms/mod.js`. */
  readonly entry: string;
  /**
   * URL path of a module that imports the entry and calls `mountCms()`:
   * `<script type="module" src={client.mount}>` loads the editor without
   * inline script, so it works under `script-src 'self'`.
   */
  readonly mount: string;
  /** The base path, e.g. `/cms/`. */
  readonly base: string;
}

/** Chunk names carry a content hash (`rich-VAD4EBBT.js`): cached for good. */
const HASHED = /-[A-Z0-9]{8}\.js$/;
const ENTRY = "mod.js";
const MOUNT = "mount.js";
const IMMUTABLE = "public, max-age=31536000, immutable";
/** The entry and the mount module keep their names: revalidate each time. */
const REVALIDATE = "no-cache";
const JS = "text/javascript; charset=utf-8";

interface File {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  cache: string;
}

let files: Promise<Map<string, File>> | undefined;

/** The served files, loaded (and their ETags computed) on first use. */
function load(): Promise<Map<string, File>> {
  return files ??= (async () => {
    const { CLIENT_FILES } = await import("./client_files.ts");
    const all: Record<string, string> = {
      ...CLIENT_FILES,
      [MOUNT]: `import{mountCms}from"./${ENTRY}";mountCms();`,
    };
    const out = new Map<string, File>();
    for (const [name, code] of Object.entries(all)) {
      const body = new TextEncoder().encode(code);
      const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
      const hex = [...hash.subarray(0, 12)]
        .map((b) => b.toString(16).padStart(2, "0")).join("");
      out.set(name, {
        body,
        etag: `"${hex}"`,
        cache: HASHED.test(name) ? IMMUTABLE : REVALIDATE,
      });
    }
    return out;
  })();
}

/** Whether an `If-None-Match` value names `etag` (weak or strong, or `*`). */
function matches(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

/**
 * Creates the handler that serves the browser client under `base` (default
 * `/cms/`): the entry module at {@linkcode ClientHandler.entry}, its lazy
 * chunks beside it, and {@linkcode ClientHandler.mount}.
 *
 * - `GET`/`HEAD` → 200 with `Content-Type: text/javascript`;
 *   content-hashed chunks are `immutable` for a year; the entry and the
 *   mount module carry an `ETag` and get `304` when it still matches;
 * - any other path (under `base` or not, traversal attempts included) →
 *   404; other methods → 405 with `Allow: GET, HEAD`.
 *
 * Same-origin module scripts, no inline code: it works under a
 * `Content-Security-Policy` of `script-src 'self'`.
 *
 * @example
 * ```ts
 * import { createClientHandler } from "@inplace/cms";
 * const client = createClientHandler(); // under /cms/
 * Deno.serve((req) => {
 *   if (new URL(req.url).pathname.startsWith(client.base)) return client(req);
 *   return new Response(
 *     `<script type="module" src="${client.mount}"></script>`,
 *     { headers: { "Content-Type": "text/html" } },
 *   );
 * });
 * ```
 */
export function createClientHandler(
  options: ClientHandlerOptions = {},
): ClientHandler {
  const base = options.base ?? "/cms/";
  if (!/^\/(?:[\w.~-]+\/)*$/.test(base) || /\/\.\.?\//.test(base)) {
    throw new TypeError(
      `base must be a path that starts and ends with "/", got "${base}"`,
    );
  }
  const handler = async (req: Request): Promise<Response> => {
    const { pathname } = new URL(req.url);
    const name = pathname.startsWith(base) ? pathname.slice(base.length) : "";
    const file = /^[\w-]+\.js$/.test(name) ? (await load()).get(name) : null;
    if (!file) return text(404, "Not found");
    if (req.method !== "GET" && req.method !== "HEAD") {
      return text(405, "Method not allowed", { Allow: "GET, HEAD" });
    }
    const headers = {
      "Content-Type": JS,
      "Cache-Control": file.cache,
      "ETag": file.etag,
      "X-Content-Type-Options": "nosniff",
    };
    if (matches(req.headers.get("If-None-Match"), file.etag)) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(req.method === "HEAD" ? null : file.body, {
      headers: { ...headers, "Content-Length": String(file.body.byteLength) },
    });
  };
  return Object.assign(handler, {
    entry: base + ENTRY,
    mount: base + MOUNT,
    base,
  });
}
