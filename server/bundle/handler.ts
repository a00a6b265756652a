/**
 * Serves the browser client from the package itself: the bundled entry
 * module and its lazy chunks (generated into `_generated.ts` by
 * `deno task build`), so a host needs no build step and no static folder,
 * wherever the module was loaded from (JSR, `"links"`, a local path).
 *
 * @module
 */
import { hex, text } from "../http/mod.ts";

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

/** Content codings the handler can send, in its order of preference. */
const CODINGS = ["br", "gzip", "identity"] as const;
type Coding = typeof CODINGS[number];

/** One coding of a file: its bytes and its own ETag. */
interface Body {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
}

interface File {
  /** The codings that pay (smaller than the next one), made on first use. */
  bodies: () => Promise<Partial<Record<Coding, Body>>>;
  cache: string;
}

let files: Promise<Map<string, File>> | undefined;

// Both at their best level: each file is compressed once, and every
// editor's browser downloads it.
const gzip = async (bytes: Uint8Array<ArrayBuffer>) => {
  const { gzipSync, constants: c } = await import("node:zlib");
  return new Uint8Array(gzipSync(bytes, { level: c.Z_BEST_COMPRESSION }));
};

const brotli = async (bytes: Uint8Array<ArrayBuffer>) => {
  const { brotliCompressSync, constants: c } = await import("node:zlib");
  return new Uint8Array(brotliCompressSync(bytes, {
    params: {
      [c.BROTLI_PARAM_QUALITY]: c.BROTLI_MAX_QUALITY,
      [c.BROTLI_PARAM_MODE]: c.BROTLI_MODE_TEXT,
      [c.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  }));
};

/**
 * A file's bodies: itself with the ETag of its SHA-256, and gzip and Brotli
 * when each is smaller than the coding it would replace, each ETag suffixed
 * with its coding (a cache must not answer one coding's request with
 * another's bytes).
 */
async function encode(
  identity: Uint8Array<ArrayBuffer>,
): Promise<Partial<Record<Coding, Body>>> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", identity));
  const tag = hex(hash.subarray(0, 12));
  const out: Partial<Record<Coding, Body>> = {
    identity: { bytes: identity, etag: `"${tag}"` },
  };
  let smallest = identity.byteLength;
  for (const [coding, compress] of [["gzip", gzip], ["br", brotli]] as const) {
    const bytes = await compress(identity);
    if (bytes.byteLength >= smallest) continue;
    smallest = bytes.byteLength;
    out[coding] = { bytes, etag: `"${tag}-${coding}"` };
  }
  return out;
}

/** The served files; each file's bodies are made at its first request. */
function load(): Promise<Map<string, File>> {
  return files ??= (async () => {
    const { CLIENT_FILES } = await import("./_generated.ts");
    const all: Record<string, string> = {
      ...CLIENT_FILES,
      [MOUNT]: `import{mountCms}from"./${ENTRY}";mountCms();`,
    };
    const out = new Map<string, File>();
    for (const [name, code] of Object.entries(all)) {
      let bodies: ReturnType<File["bodies"]> | undefined;
      out.set(name, {
        bodies: () => bodies ??= encode(new TextEncoder().encode(code)),
        cache: HASHED.test(name) ? IMMUTABLE : REVALIDATE,
      });
    }
    return out;
  })();
}

/**
 * The coding to send for an `Accept-Encoding` value, among those `have`:
 * the highest `q` above 0 (codings not named take the `*` entry's `q`;
 * `identity`, unless named or refused by `*;q=0`, is acceptable but last),
 * ties going to the smaller body. With nothing acceptable, the file as it
 * is (rather than a 406).
 */
function negotiate(header: string | null, have: Coding[]): Coding {
  const q = new Map<string, number>();
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.split(";");
    // A malformed q value (`q=bad`) refuses the coding, as `q=0` does.
    const qv = params.map((p) => /^\s*q\s*=(.*)$/i.exec(p)?.[1])
      .find((v) => v !== undefined);
    const value = qv === undefined ? 1 : Number(qv.trim()) || 0;
    if (name.trim()) q.set(name.trim().toLowerCase(), value);
  }
  const star = q.get("*");
  const weight = (c: Coding) =>
    q.get(c) ?? star ?? (c === "identity" ? Number.MIN_VALUE : 0);
  let best: Coding = "identity";
  let top = 0;
  for (const c of CODINGS) {
    if (have.includes(c) && weight(c) > top) [best, top] = [c, weight(c)];
  }
  return best;
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
 * - compressed as the request's `Accept-Encoding` allows: Brotli, else
 *   gzip, else the file as it is (`Vary: Accept-Encoding`, an ETag per
 *   coding); each coding is made once, at the file's first request;
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
    const bodies = await file.bodies();
    const coding = negotiate(
      req.headers.get("Accept-Encoding"),
      CODINGS.filter((c) => bodies[c]),
    );
    const { bytes, etag } = bodies[coding]!;
    const headers: Record<string, string> = {
      "Content-Type": JS,
      "Cache-Control": file.cache,
      "ETag": etag,
      "Vary": "Accept-Encoding",
      "X-Content-Type-Options": "nosniff",
    };
    if (coding !== "identity") headers["Content-Encoding"] = coding;
    if (matches(req.headers.get("If-None-Match"), etag)) {
      return new Response(null, { status: 304, headers });
    }
    headers["Content-Length"] = String(bytes.byteLength);
    return new Response(req.method === "HEAD" ? null : bytes, { headers });
  };
  return Object.assign(handler, {
    entry: base + ENTRY,
    mount: base + MOUNT,
    base,
  });
}
