/**
 * The media library endpoint: one page of the uploads, newest first, with
 * what the content says about each (see `_scan.ts`), searchable by file
 * name and alt text; and the choice of one (`POST`), which counts as a use
 * for media cleanup until the save that follows stores it.
 *
 * @module
 */
import { type MediaLibraryPage, Status } from "../../core/protocol/mod.ts";
import { parseAddress } from "../../core/address.ts";
import {
  admitEditor,
  type Authorize,
  type CanEdit,
  type EditRule,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
  mayEdit,
  type OriginOptions,
  readJsonObject,
} from "../http/mod.ts";
import { listUploads, type MediaScanOptions, type Upload } from "./_scan.ts";
import { markChosen } from "./_uploads.ts";

/** Options of {@linkcode createMediaLibraryHandler}. */
export interface MediaLibraryHandlerOptions
  extends MediaScanOptions, OriginOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /**
   * The save endpoint's per-field rule: an alt text shows only to editors
   * it lets edit a field that shows it. None: every alt text shows.
   */
  canEdit?: CanEdit;
  /**
   * The admin gate of the library. Defaults to `authorize` (same as the
   * media endpoint's `authorizeMedia`).
   */
  authorizeMedia?: Authorize;
}

/** Most uploads one page holds. */
const MAX_PAGE = 200;

/**
 * The media library endpoint.
 *
 * `GET /api/cms/media/library?q=&cursor=&limit=`: one page (default 50, at
 * most 200) of the uploads, newest first: 200 {@linkcode MediaLibraryPage}.
 * `q` keeps the uploads whose file name (the key) or an alt text contains
 * it, ignoring case. An alt text shows (and is searched) only when the
 * editor may edit a field that shows it (the save endpoint's `canEdit`,
 * the same rule as every endpoint that shows content). 400 for a bad
 * `cursor` or `limit`.
 *
 * `POST {"chosen": key}` (sent by the library when the editor picks an
 * upload): 204, and media cleanup's grace period for that upload starts
 * again, so the file stays until the save that follows stores it; 404
 * when no such upload is stored (deleted meanwhile).
 *
 * Both: 403 without a session or from another site; 405 for other methods.
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
    const editor = await admitEditor(req, ["GET", "HEAD", "POST"], gate, call);
    if (req.method === "POST") return await choose(options, req);
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
    const uploads = await visibleAlts(
      options,
      await listUploads(options),
      (field) => mayEdit(options, req, field, editor, call),
    );
    const all = uploads.filter((u) =>
      !q || u.key.toLowerCase().includes(q) ||
      u.name.toLowerCase().includes(q) ||
      u.alts.some((a) => a.toLowerCase().includes(q))
    );
    const page: MediaLibraryPage = {
      uploads: all.slice(offset, offset + limit).map((
        { changed: _, altFields: __, ...item },
      ) => item),
      next: offset + limit < all.length ? String(offset + limit) : null,
      total: all.length,
    };
    return json(Status.OK, page, { "Cache-Control": "no-store" });
  });
}

/**
 * The uploads with only the alt texts shown in a field that `may` allows
 * (each field asked once).
 */
async function visibleAlts(
  rule: EditRule,
  uploads: Upload[],
  may: (
    field: Exclude<ReturnType<typeof parseAddress>, string>,
  ) => Promise<boolean>,
): Promise<Upload[]> {
  if (!rule.canEdit) return uploads;
  const answers = new Map<string, Promise<boolean>>();
  const allowed = (stored: string) => {
    let answer = answers.get(stored);
    if (!answer) {
      const field = parseAddress(stored);
      answer = typeof field === "string" ? Promise.resolve(false) : may(field);
      answers.set(stored, answer);
    }
    return answer;
  };
  for (const u of uploads) {
    const alts: string[] = [];
    for (const [alt, fields] of u.altFields) {
      for (const f of fields) {
        if (await allowed(f)) {
          alts.push(alt);
          break;
        }
      }
    }
    u.alts = alts.sort();
  }
  return uploads;
}

/** `POST {"chosen": key}`: 204 after marking it chosen, 404 when gone. */
async function choose(
  options: MediaLibraryHandlerOptions,
  req: Request,
): Promise<Response> {
  const { chosen } = await readJsonObject(req, 4096);
  if (typeof chosen !== "string" || chosen === "" || chosen.length > 1024) {
    throw new HttpError(Status.BadRequest, "chosen must be an upload's key");
  }
  let found = false;
  for await (const o of options.storage.list()) {
    if (o.key === chosen) {
      found = true;
      break;
    }
  }
  if (!found) {
    throw new HttpError(
      Status.NotFound,
      "That upload is no longer stored; upload the file again",
    );
  }
  await markChosen(options.store, chosen);
  return new Response(null, { status: Status.NoContent });
}
