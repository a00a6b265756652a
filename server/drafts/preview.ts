/**
 * Preview links: a signed, expiring token that shows one page's drafts,
 * read-only, to anyone holding the link. The token is
 * `<expiry>.<signature>`, the signature an HMAC-SHA-256 with a server
 * secret over the page's path and the expiry (Unix seconds). A changed path,
 * expiry or signature, or a passed expiry, fails verification, and so does
 * any other spelling of a valid token (leading zeros in the expiry, spare
 * bits in the signature's last character).
 *
 * Revoke every link at once by rotating the secret: links signed with the
 * old one stop working. A signer made with another capability (review
 * links: `"review"`) signs a different message, so its tokens never pass
 * as preview tokens, nor the other way round.
 *
 * @module
 */
import { type PreviewAnswer, Status } from "../../core/protocol/mod.ts";
import {
  admitEditor,
  type Authorize,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
  type OriginOptions,
  readJsonObject,
  requestUrl,
} from "../http/mod.ts";

/** The query parameter that carries the token. */
export const PREVIEW_PARAM = "preview";

/** Shortest accepted secret, in bytes. */
const MIN_SECRET_BYTES = 32;
/** Longest previewable path. */
const MAX_PATH = 1024;
/**
 * `<expiry>.<signature>`: the expiry in canonical decimal (no sign, no
 * leading zero), the signature 43 base64url characters. Exactly one spelling
 * of a token is valid.
 */
const TOKEN = /^([1-9]\d{0,11})\.([A-Za-z0-9_-]{43})$/;

/**
 * Signs and verifies preview tokens with one secret (at least 32 bytes;
 * text is taken as UTF-8). Create it once; it imports the key lazily.
 *
 * @example
 * ```ts
 * import { PreviewSigner } from "@inplace/cms";
 * const signer = new PreviewSigner("a-long-random-secret-of-32-bytes-or-more");
 * const { token } = await signer.sign("/", 3600);
 * await signer.verify(token, "/"); // true
 * await signer.verify(token, "/about"); // false
 * ```
 */
export class PreviewSigner {
  readonly #key: Promise<CryptoKey>;
  /** What the tokens grant, signed into each (`preview` by default). */
  readonly capability: string;

  /**
   * Uses `secret`; throws a `RangeError` when it is shorter than 32 bytes.
   * `capability` (default `"preview"`; letters only) is signed into every
   * token: tokens of one capability fail another's `verify`.
   */
  constructor(secret: string | Uint8Array, capability = "preview") {
    if (!/^[a-z]{1,32}$/.test(capability)) {
      throw new RangeError("capability must be 1 to 32 letters a-z");
    }
    this.capability = capability;
    const bytes = typeof secret === "string"
      ? new TextEncoder().encode(secret)
      : secret;
    if (bytes.byteLength < MIN_SECRET_BYTES) {
      throw new RangeError(
        `preview secret must be at least ${MIN_SECRET_BYTES} bytes`,
      );
    }
    this.#key = crypto.subtle.importKey(
      "raw",
      bytes as BufferSource,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
  }

  /** A token for `path`, valid for `ttlSeconds` from `now` (ms). */
  async sign(
    path: string,
    ttlSeconds: number,
    now: number = Date.now(),
  ): Promise<{ token: string; expires: Date }> {
    const exp = Math.floor(now / 1000) + Math.max(1, Math.floor(ttlSeconds));
    const sig = await crypto.subtle.sign(
      "HMAC",
      await this.#key,
      message(this.capability, path, exp),
    );
    return {
      token: `${exp}.${base64url(new Uint8Array(sig))}`,
      expires: new Date(exp * 1000),
    };
  }

  /**
   * Whether `token` was signed for exactly `path` with this secret and has
   * not expired at `now` (ms). Constant-time comparison (WebCrypto verify).
   */
  async verify(
    token: string | null | undefined,
    path: string,
    now: number = Date.now(),
  ): Promise<boolean> {
    const m = typeof token === "string" ? TOKEN.exec(token) : null;
    if (!m) return false;
    const exp = Number(m[1]);
    if (exp * 1000 <= now) return false;
    const sig = unbase64url(m[2]);
    // Only the canonical spelling: the last character's spare bits are 0.
    if (!sig || base64url(sig) !== m[2]) return false;
    return await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      sig as BufferSource,
      message(this.capability, path, exp),
    );
  }
}

/** The signed bytes: a domain tag with the capability, the path and the expiry. */
function message(
  capability: string,
  path: string,
  exp: number,
): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(
    `inplace-cms ${capability}\n${path}\n${exp}`,
  );
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

function unbase64url(text: string): Uint8Array | null {
  try {
    const bin = atob(text.replaceAll("-", "+").replaceAll("_", "/") + "=");
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * `path` when it is a plain, canonical site path (`/`, `/about`): starts
 * with one `/`, no query, fragment, backslash or control character, at most
 * 1024 characters, and unchanged by URL parsing; otherwise `null`.
 *
 * @example
 * ```ts
 * import { previewPath } from "./preview.ts";
 * previewPath("/about"); // "/about"
 * previewPath("//evil.example/"); // null
 * ```
 */
export function previewPath(path: unknown): string | null {
  if (
    typeof path !== "string" || !path.startsWith("/") ||
    path.startsWith("//") || path.length > MAX_PATH ||
    /[\\?#\s]/.test(path) || [...path].some((c) => c < " " || c === "\x7f")
  ) return null;
  try {
    return new URL(path, "http://x").pathname === path ? path : null;
  } catch {
    return null;
  }
}

/** Options of {@linkcode createPreviewHandler}. */
export interface PreviewHandlerOptions extends OriginOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /** Signs the links; share one secret across instances. */
  signer: PreviewSigner;
  /** How long a link works, in seconds. Default 86400 (one day). */
  ttlSeconds?: number;
  /**
   * Which paths may be previewed (e.g. the site's routes). Default: any
   * canonical path. `false` → 400.
   */
  allowPath?: (path: string) => boolean;
}

/**
 * The preview endpoint: `POST` JSON `{"path": "/"}` → 200
 * {@linkcode PreviewAnswer}. The page itself checks the token with
 * {@linkcode PreviewSigner.verify} and then renders drafts, read-only.
 * 400 for malformed JSON or a path that is not a plain site path; 403
 * without a session or from another site; 405 for other methods.
 *
 * @example
 * ```ts
 * import { createPreviewHandler, PreviewSigner } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const preview = createPreviewHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   signer: new PreviewSigner("a-long-random-secret-of-32-bytes-or-more"),
 * });
 * ```
 */
export function createPreviewHandler(
  options: PreviewHandlerOptions,
): Handler<EndpointCall> {
  const ttl = options.ttlSeconds ?? 86400;
  if (!(Number.isFinite(ttl) && ttl >= 1)) {
    throw new RangeError("ttlSeconds must be at least 1");
  }
  return endpoint<EndpointCall>("preview", async (req, _ctx, call) => {
    await admitEditor(req, ["POST"], options, call);
    const data = await readJsonObject(req, 4096);
    const path = previewPath(data.path);
    if (!path || (options.allowPath && !options.allowPath(path))) {
      throw new HttpError(Status.BadRequest, "Invalid path");
    }
    const { token, expires } = await options.signer.sign(path, ttl);
    const publicOrigin = call?.publicOrigin ?? options.publicOrigin;
    const origin = typeof publicOrigin === "string"
      ? publicOrigin
      : Array.isArray(publicOrigin) && publicOrigin.length
      ? publicOrigin[0]
      : requestUrl(req).origin;
    const url = new URL(path, origin);
    url.searchParams.set(PREVIEW_PARAM, token);
    const answer: PreviewAnswer = {
      url: url.href,
      expires: expires.toISOString(),
    };
    return json(Status.OK, answer, { "Cache-Control": "no-store" });
  });
}
