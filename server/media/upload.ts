/**
 * The media endpoint: raw image bytes in, a stored object out, as a
 * Web-standard handler `(req: Request, call?: EndpointCall) => Promise<Response>`.
 *
 * @module
 */
import { type MediaAnswer, Status } from "../../core/protocol/mod.ts";
import {
  admitEditor,
  type Authorize,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
  type OriginOptions,
  readBody,
} from "../http/mod.ts";
import {
  type ImageInfo,
  type ImageOptions,
  ImagePipeline,
  sniffImage,
} from "../image/mod.ts";
import { storeImage } from "./variants.ts";
import type { ContentStore } from "../store/mod.ts";
import type { MediaStorage } from "./types.ts";
import { errorFacts, log } from "../ops/mod.ts";
import { cleanFileName, recordUpload } from "./_uploads.ts";

/** The 200 answer of the media endpoint (declared in `core/protocol/media.ts`). */
export type MediaObject = MediaAnswer;

/** Options of {@linkcode createMediaHandler}. */
export interface MediaHandlerOptions extends OriginOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /**
   * The admin gate for uploads. Defaults to `authorize`, so one options
   * object can configure both endpoints.
   */
  authorizeMedia?: Authorize;
  /** Where uploads are stored. */
  storage: MediaStorage;
  /** Largest accepted upload in bytes (→ 413). Default 10 MiB. */
  maxBytes?: number;
  /**
   * Largest accepted width × height × frames (→ 422), against
   * decompression bombs. Default 40,000,000. Same as `images.maxPixels`.
   */
  maxPixels?: number;
  /**
   * The image pipeline: variant widths and types, frame budget, animation,
   * decoder concurrency and queue (see {@linkcode ImageOptions}).
   */
  images?: ImageOptions;
  /**
   * Storage key of an upload. Default `<random UUID>.<ext>`, so that with a
   * storage whose public base is `/media` the URL is `/media/<uuid>.<ext>`
   * (add a folder here, e.g. `uploads/…`, if your bucket holds more).
   */
  key?: (info: ImageInfo) => string;
  /**
   * Where the media library finds who uploaded what: each stored upload
   * gets a record (editor, the `X-File-Name` the client sends, time) in
   * this store (see `recordUpload`). Usually the content store.
   */
  uploads?: ContentStore;
}

/**
 * Creates the media endpoint handler.
 *
 * - `POST` only (405 with `Allow` otherwise); 421 when the Host is not in
 *   `allowedHosts`; 403 when cross-site or not authorized.
 * - 413 when `Content-Length` is over `maxBytes` (nothing is read), or when a
 *   body without length passes `maxBytes` while streaming (it is cancelled).
 * - The type comes from the bytes ({@linkcode sniffImage}): JPEG, PNG, GIF,
 *   WebP or AVIF; anything else is 415. More than `maxPixels` is 422.
 * - Then the image pipeline ({@linkcode ImagePipeline}): a container that
 *   disagrees with its coded data (an AVIF `ispe` unlike its AV1 sequence
 *   header), a truncated or damaged file, data after the image, what the
 *   decoder refuses, or work past the time limit is 422; a full decoder
 *   queue or pixels-in-flight budget is 503 with `Retry-After`. When the
 *   request's signal aborts (the client left), waiting work never starts
 *   and running work stops at its next step (499).
 * - The normalized original is stored under `key(info)`, its variants beside
 *   it, all or nothing; 200 {@linkcode MediaAnswer}.
 * - A storage fault is 500 with an error id (logged with the error).
 *
 * @example
 * ```ts
 * import { createMediaHandler, MemoryMediaStorage } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const media = createMediaHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
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
): Handler<EndpointCall> {
  const { storage } = options;
  const gate = {
    ...options,
    authorize: options.authorizeMedia ?? options.authorize,
  };
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const images = new ImagePipeline({
    ...options.images,
    maxPixels: options.maxPixels ?? options.images?.maxPixels,
  });
  const keyOf = options.key ??
    ((info) => `${crypto.randomUUID()}.${info.ext}`);
  return endpoint<EndpointCall>("media", async (req, _ctx, call) => {
    const editor = await admitEditor(req, ["POST"], gate, call);
    // The body counts against the decoders' memory budget while it is read
    // (its declared length; the cap when it declares none).
    const declared = Number(req.headers.get("Content-Length") ?? maxBytes);
    const release = images.queue.holdBody(Math.min(declared || 0, maxBytes));
    let bytes: Uint8Array;
    try {
      bytes = await readBody(req, maxBytes);
    } finally {
      release();
    }

    // 1. Sniff: a cheap first gate on the magic numbers and header size.
    const info = sniffImage(bytes);
    if (!info) {
      throw new HttpError(
        Status.UnsupportedMediaType,
        "Not a supported image (JPEG, PNG, GIF, WebP, AVIF)",
      );
    }

    // 2. Decode and normalize (server/image/): budgets, structure, variants.
    const prepared = await images.prepare(bytes, info, req.signal);

    // 3. Store: only what passed every check above, all or nothing.
    const answer = await storeImage(storage, keyOf(info), prepared);
    // 4. The media library's record (who uploaded it, the file's name); the
    //    upload stands without it.
    if (options.uploads) {
      const name = cleanFileName(req.headers.get("X-File-Name"));
      await recordUpload(options.uploads, answer.key, editor.name, name, answer)
        .catch((err) =>
          log({ level: "error", msg: "upload record", error: errorFacts(err) })
        );
    }
    return json(Status.OK, answer);
  });
}
