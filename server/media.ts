/**
 * The media endpoint: raw image bytes in, a stored object out, as a
 * Web-standard handler `(req: Request) => Promise<Response>`.
 *
 * @module
 */
import { readBody } from "./body.ts";
import { json, text } from "./http.ts";
import { isCrossSite } from "./origin.ts";
import { type ImageInfo, sniffImage } from "./sniff.ts";
import type { Authorize, MediaStorage } from "./types.ts";

/** The 200 answer of the media endpoint. */
export interface MediaObject {
  /** Storage key of the stored object. */
  key: string;
  /** Public URL: the storage's public base, a slash, then the key. */
  url: string;
  /** Width in pixels, from the image header. */
  width: number;
  /** Height in pixels, from the image header. */
  height: number;
  /** The verified MIME type the object was stored with. */
  type: string;
}

/** Options of {@linkcode createMediaHandler}. */
export interface MediaHandlerOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /**
   * The admin gate for uploads. Defaults to `authorize`, so one options
   * object can configure both endpoints.
   */
  authorizeMedia?: Authorize;
  /** Where uploads are stored. */
  storage: MediaStorage;
  /** Origins besides the request's own that may call (proxies, CDNs). */
  allowedOrigins?: readonly string[];
  /** Largest accepted upload in bytes (→ 413). Default 10 MiB. */
  maxBytes?: number;
  /**
   * Largest accepted width × height (→ 422), against decompression bombs.
   * Default 50,000,000 (e.g. 8660 × 5773).
   */
  maxPixels?: number;
  /** Storage key of an upload. Default `media/<random UUID>.<ext>`. */
  key?: (info: ImageInfo) => string;
}

/**
 * Creates the media endpoint handler.
 *
 * - `POST` only (405 otherwise); 403 when cross-site or not authorized.
 * - 413 when `Content-Length` is over `maxBytes` (nothing is read), or when a
 *   body without length passes `maxBytes` while streaming (it is cancelled).
 * - The type comes from the bytes ({@linkcode sniffImage}): JPEG, PNG, GIF,
 *   WebP or AVIF; anything else is 415. More than `maxPixels` is 422.
 * - Stored under `key(info)` with the verified type; 200 {@linkcode MediaObject}.
 *
 * @example
 * ```ts
 * import { createMediaHandler, MemoryMediaStorage } from "@inplace/cms";
 * const media = createMediaHandler({
 *   authorize: (req) =>
 *     req.headers.get("Cookie")?.includes("session=ok") ? { name: "Ada" } : null,
 *   storage: new MemoryMediaStorage(),
 *   maxBytes: 5 * 1024 * 1024,
 * });
 * Deno.serve((req) =>
 *   new URL(req.url).pathname === "/api/cms/media"
 *     ? media(req)
 *     : new Response("Not found", { status: 404 })
 * );
 * ```
 */
export function createMediaHandler(
  options: MediaHandlerOptions,
): (req: Request) => Promise<Response> {
  const { storage, allowedOrigins } = options;
  const authorize = options.authorizeMedia ?? options.authorize;
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const maxPixels = options.maxPixels ?? 50_000_000;
  const keyOf = options.key ??
    ((info) => `media/${crypto.randomUUID()}.${info.ext}`);
  return async (req) => {
    if (req.method !== "POST") {
      return text(405, "Method not allowed", { Allow: "POST" });
    }
    if (isCrossSite(req, allowedOrigins)) {
      return text(403, "Cross-site request");
    }
    try {
      if (!await authorize(req)) return text(403, "Not authorized");
      const bytes = await readBody(req, maxBytes);
      if (bytes instanceof Response) return bytes;
      const info = sniffImage(bytes);
      if (!info) {
        return text(415, "Not a supported image (JPEG, PNG, GIF, WebP, AVIF)");
      }
      const { width, height, type } = info;
      if (width * height > maxPixels) {
        return text(
          422,
          `Image too large: ${width}x${height} pixels (limit ${maxPixels})`,
        );
      }
      const key = keyOf(info);
      await storage.put(key, bytes, type);
      const body: MediaObject = {
        key,
        url: storage.url(key),
        width,
        height,
        type,
      };
      return json(200, body);
    } catch (err) {
      console.error("cms: upload failed", err);
      return text(500, "Internal error");
    }
  };
}
