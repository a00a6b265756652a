/**
 * The media library endpoint: one page of the uploads, newest first, with
 * what the content says about each (see `_scan.ts`), searchable by file
 * name and alt text.
 *
 * @module
 */
import { type MediaLibraryPage, Status } from "../../core/protocol/mod.ts";
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
import { listUploads, type MediaScanOptions } from "./_scan.ts";

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
