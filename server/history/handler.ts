/**
 * The history endpoint: a field's revisions, one revision's value, and
 * restore, as a Web-standard handler `(req, call?) => Promise<Response>`.
 *
 * @module
 */
import {
  type FieldAddress,
  fieldPath,
  formatAddress,
} from "../../core/address.ts";
import { storedAddress } from "../../core/stored_address.ts";
import {
  type HistoryListing,
  type RevisionBody,
  Status,
} from "../../core/protocol/mod.ts";
import {
  admitEditor,
  allowedField,
  type Editor,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
  mayEdit,
  readJsonObject,
} from "../http/mod.ts";
import { createSaveHandler, type SaveHandlerOptions } from "../save/mod.ts";
import type { HistoryStore, Revision } from "../store/mod.ts";

/** Options of {@linkcode createHistoryHandler}: the save endpoint's. */
export type HistoryHandlerOptions = Omit<SaveHandlerOptions, "store"> & {
  /** Where records and their revisions live. */
  store: HistoryStore;
  /** Most revisions one listing returns (`limit` is capped). Default 1000. */
  maxLimit?: number;
};

/** Default number of revisions a listing returns. */
const DEFAULT_LIMIT = 100;
/** Longest revision id looked up; longer ones are unknown (404). */
const MAX_ID_LENGTH = 128;
/** Largest restore body: `{field, revision, version}` fits easily. */
const MAX_BODY_BYTES = 4096;
const NOT_FOUND = 404;

/**
 * Creates the history endpoint handler. It takes the save endpoint's options
 * (the same `authorize`, `allowlist`, origin rules and hooks) and a
 * {@linkcode HistoryStore}.
 *
 * - `GET ?field=ADDRESS[&limit=N]` → 200 {@linkcode HistoryListing}, newest
 *   first (`limit` 1..`maxLimit`, default 100).
 * - `GET ?field=ADDRESS&revision=ID` → 200 {@linkcode RevisionBody}.
 * - `POST` JSON `{field, revision, version?}` → 204 with `CMS-Version`: the
 *   revision's value goes through the save endpoint's own path (allowlist,
 *   sanitizer, `canEdit`, conflict check against `version`, `onSave`), so
 *   the restore is itself the newest revision. A conflict is 409 as in save.
 * - 403 without a session or from another site (before anything is read),
 *   or when `canEdit` refuses the field;
 *   400 for a malformed or non-allowlisted field (whether or not it exists),
 *   a bad `limit`, malformed JSON, or a revision of another field; 404 for
 *   an unknown revision; 405 for other methods.
 *
 * @example
 * ```ts
 * import { createHistoryHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const history = createHistoryHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * Deno.serve((req) =>
 *   new URL(req.url).pathname === "/api/cms/history"
 *     ? history(req)
 *     : new Response("Not found", { status: 404 })
 * );
 * ```
 */
export function createHistoryHandler(
  options: HistoryHandlerOptions,
): Handler<EndpointCall> {
  const history: History = {
    options,
    maxLimit: options.maxLimit ?? 1000,
    save: createSaveHandler(options),
  };
  return endpoint<EndpointCall>("history", async (req, _ctx, call) => {
    const editor = await admitEditor(
      req,
      ["GET", "HEAD", "POST"],
      options,
      call,
    );
    if (req.method === "POST") return await restore(history, req, call);
    return await list(history, req, editor, call);
  });
}

/** What the history endpoint's requests share. */
interface History {
  /** The endpoint's options. */
  options: HistoryHandlerOptions;
  /** The cap of `limit`. */
  maxLimit: number;
  /** The save endpoint a restore goes through. */
  save: Handler<EndpointCall>;
}

/** The revision `id` of `address`: 404 unknown, 400 another field's. */
async function revisionOf(
  store: HistoryStore,
  address: FieldAddress,
  id: unknown,
): Promise<Revision> {
  if (typeof id !== "string" || id === "") {
    throw new HttpError(Status.BadRequest, "Missing or invalid revision");
  }
  const rev = id.length > MAX_ID_LENGTH ? null : await store.revision(id);
  if (!rev) throw new HttpError(NOT_FOUND, "Unknown revision");
  if (storedAddress(rev) !== formatAddress(address)) {
    throw new HttpError(Status.BadRequest, "Revision of another field");
  }
  return rev;
}

/** `GET`: a field's revisions, or one revision's value (`revision=ID`). */
async function list(
  { options, maxLimit }: History,
  req: Request,
  editor: Editor,
  call: EndpointCall | undefined,
): Promise<Response> {
  const { allowlist, store } = options;
  const url = new URL(req.url);
  const text = url.searchParams.get("field");
  const address = allowedField(allowlist, text);
  if (!await mayEdit(options, req, address, editor, call)) {
    throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
  }
  const id = url.searchParams.get("revision");
  if (id !== null) {
    const rev = await revisionOf(store, address, id);
    const body: RevisionBody = {
      id: rev.id,
      at: rev.at,
      editor: rev.editor,
      value: rev.value,
    };
    return json(Status.OK, body, { "Cache-Control": "no-store" });
  }
  const limit = parseLimit(url.searchParams.get("limit"), maxLimit);
  const revs = await store.revisions(
    address.collection,
    address.key,
    fieldPath(address),
    limit,
  );
  const body: HistoryListing = {
    field: text!,
    revisions: distinct(revs).map(({ id, at, editor, bytes, published }) => ({
      id,
      at,
      editor,
      bytes,
      ...published === undefined ? {} : { published },
    })),
  };
  return json(Status.OK, body, { "Cache-Control": "no-store" });
}

/**
 * The revisions without a draft's that a publish right after it repeats
 * (publishing writes the draft's value again, marked published): the
 * change is listed once, as published.
 */
function distinct(revs: Revision[]): Revision[] {
  return revs.filter((rev, i) => {
    const newer = revs[i - 1];
    return !(rev.published === undefined && newer?.published !== undefined &&
      newer.bytes === rev.bytes &&
      JSON.stringify(newer.value) === JSON.stringify(rev.value));
  });
}

/** `POST`: a revision's value saved again, through the save endpoint. */
async function restore(
  { options, save }: History,
  req: Request,
  call: EndpointCall | undefined,
): Promise<Response> {
  const input = await readJsonObject(req, MAX_BODY_BYTES);
  const address = allowedField(options.allowlist, input.field);
  if (input.version !== undefined && typeof input.version !== "string") {
    throw new HttpError(Status.BadRequest, "Invalid version");
  }
  const rev = await revisionOf(options.store, address, input.revision);
  // The normal save path, with the caller's own headers (session, origin).
  const headers = new Headers(req.headers);
  headers.delete("Content-Length");
  headers.set("Content-Type", "application/json");
  return save(
    new Request(req.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        collection: address.collection,
        key: address.key,
        field: fieldPath(address),
        value: rev.value,
        version: input.version,
      }),
    }),
    call,
  );
}

/** `limit` as given (1..max), or the default; anything else is 400. */
function parseLimit(text: string | null, max: number): number {
  if (text === null) return Math.min(DEFAULT_LIMIT, max);
  if (!/^[1-9]\d{0,6}$/.test(text)) {
    throw new HttpError(Status.BadRequest, "Invalid limit");
  }
  return Math.min(Number(text), max);
}
