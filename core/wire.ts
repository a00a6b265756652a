/**
 * The wire protocol between the browser client and the two endpoints,
 * declared once: request and answer shapes, header names and status codes.
 *
 * - Save endpoint: `PATCH` (or `POST`) a JSON {@linkcode SaveBody}; success
 *   is `204` with the stored value's version in {@linkcode VERSION_HEADER};
 *   a stale `version` is `409` with a {@linkcode ConflictBody}.
 * - Media endpoint: `POST` raw image bytes; success is `200` with a
 *   {@linkcode MediaAnswer}.
 * - Every error is a short plain-text reason ({@linkcode ErrorBody}) with
 *   `Content-Type: text/plain; charset=utf-8`.
 *
 * @module
 */

/**
 * The JSON body of a save request: one field of one record.
 *
 * @example
 * ```ts
 * import type { SaveBody } from "./wire.ts";
 * const body: SaveBody = {
 *   collection: "pages",
 *   key: "home",
 *   field: "features.2",
 *   value: "Small",
 *   version: "1x2y3z",
 * };
 * ```
 */
export interface SaveBody {
  /** The record's collection (an address part). */
  collection: string;
  /** The record's key (an address part). */
  key: string;
  /** The field name, or `name.N` for item N of a list field. */
  field: string;
  /**
   * The new value: text for plain fields and list items (numbers and
   * booleans are stored as text), HTML for rich fields, a URL for image
   * fields.
   */
  value: string | number | boolean;
  /** The version the editor started from; a mismatch is a 409. */
  version?: string;
}

/**
 * The response header of a 204 save answer with the stored value's version
 * (`contentVersion` of it), to send back as the next save's `version`.
 *
 * @example
 * ```ts
 * import { VERSION_HEADER } from "./wire.ts";
 * const res = new Response(null, { status: 204, headers: { [VERSION_HEADER]: "abc" } });
 * res.headers.get(VERSION_HEADER); // "abc"
 * ```
 */
export const VERSION_HEADER = "CMS-Version";

/**
 * Header on a `204` save answer for a rich field: how many elements,
 * comments and attributes the sanitizer removed or unwrapped from the value
 * sent (absent when nothing was removed), so the editor can be told.
 *
 * @example
 * ```ts
 * import { REMOVED_HEADER } from "./wire.ts";
 * const res = new Response(null, { status: 204, headers: { [REMOVED_HEADER]: "2" } });
 * Number(res.headers.get(REMOVED_HEADER) ?? 0); // 2
 * ```
 */
export const REMOVED_HEADER = "CMS-Removed";

/**
 * The body of a 409 save answer: the value stored now and its version.
 *
 * @example
 * ```ts
 * import type { ConflictBody } from "./wire.ts";
 * const body: ConflictBody = { error: "conflict", value: "Theirs", version: "9k2" };
 * ```
 */
export interface ConflictBody {
  /** Always `"conflict"`. */
  error: "conflict";
  /** The value stored now. */
  value: string;
  /** Its version. */
  version: string;
}

/**
 * The 200 answer of the media endpoint: the stored image.
 *
 * @example
 * ```ts
 * import type { MediaAnswer } from "./wire.ts";
 * const answer: MediaAnswer = {
 *   key: "3f2c.png",
 *   url: "/media/3f2c.png",
 *   width: 640,
 *   height: 480,
 *   type: "image/png",
 *   variants: [
 *     { url: "/media/3f2c-480w.webp", width: 480, height: 360, type: "image/webp" },
 *   ],
 *   processed: true,
 * };
 * ```
 */
export interface MediaAnswer {
  /** Storage key of the stored object. */
  key: string;
  /** Public URL: the storage's public base, a slash, then the key. */
  url: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** The verified MIME type the object was stored with. */
  type: string;
  /**
   * Smaller copies beside the original (`<key stem>-<width>w.<ext>`), by
   * ascending width; never wider than the original. Empty when none.
   */
  variants: MediaVariant[];
  /**
   * `true`: decoded and normalized (orientation applied, metadata
   * stripped). `false`: the server could not load its image decoder, so
   * only the headers were checked and the bytes are stored as uploaded.
   */
  processed: boolean;
}

/** One responsive variant in a {@linkcode MediaAnswer}. */
export interface MediaVariant {
  /** Public URL, under the same media base as the original. */
  url: string;
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** MIME type, e.g. `image/webp`. */
  type: string;
}

/**
 * The body of every error answer: a short plain-text reason, for people.
 * A 5xx carries an error id that the server logged with the error.
 *
 * @example
 * ```ts
 * import type { ErrorBody } from "./wire.ts";
 * const reason: ErrorBody = "Field not allowed";
 * ```
 */
export type ErrorBody = string;

/** The `Content-Type` of every error answer. */
export const ERROR_CONTENT_TYPE = "text/plain; charset=utf-8";

/** The status codes of the wire protocol, by name (see {@linkcode Status}). */
export interface StatusCodes {
  /** Media stored; the body is a {@linkcode MediaAnswer}. */
  readonly OK: 200;
  /** Field saved; see {@linkcode VERSION_HEADER}. */
  readonly NoContent: 204;
  /** Malformed body, unknown field or address, invalid value. */
  readonly BadRequest: 400;
  /** Cross-site, not signed in, or not allowed to edit this field. */
  readonly Forbidden: 403;
  /** The method is not handled; the answer carries `Allow`. */
  readonly MethodNotAllowed: 405;
  /** The field changed since the editor's version; a {@linkcode ConflictBody}. */
  readonly Conflict: 409;
  /** The body is larger than the endpoint's limit. */
  readonly ContentTooLarge: 413;
  /** The upload is not a supported image. */
  readonly UnsupportedMediaType: 415;
  /** The request's Host is not one of the site's hosts. */
  readonly MisdirectedRequest: 421;
  /** The image is over the pixel budget. */
  readonly UnprocessableContent: 422;
  /** Too many requests; retry after the `Retry-After` header. */
  readonly TooManyRequests: 429;
  /** A server fault; the body holds an error id that the server logged. */
  readonly InternalServerError: 500;
  /** Busy; retry after the `Retry-After` header. */
  readonly ServiceUnavailable: 503;
}

/**
 * The status codes the endpoints answer with, by name.
 *
 * @example
 * ```ts
 * import { Status } from "./wire.ts";
 * const res = new Response(null, { status: Status.NoContent });
 * res.status === Status.NoContent; // true
 * ```
 */
export const Status: StatusCodes = Object.freeze({
  OK: 200,
  NoContent: 204,
  BadRequest: 400,
  Forbidden: 403,
  MethodNotAllowed: 405,
  Conflict: 409,
  ContentTooLarge: 413,
  UnsupportedMediaType: 415,
  MisdirectedRequest: 421,
  UnprocessableContent: 422,
  TooManyRequests: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
});

/** One of the {@linkcode Status} codes. */
export type StatusCode = StatusCodes[keyof StatusCodes];

// --- Whole-list writes (issue 20: lists that grow) -------------------------

/**
 * The JSON body of a whole-list write: the save endpoint's body with the
 * bare address of a list field (`field: "features"`, no index) and every
 * item, in order. It adds, removes and reorders items in one write; the
 * length must be within the field's `min` and `max` (else 400, nothing
 * stored). `version` is the whole list's (`contentVersion(list)`); a
 * mismatch is a 409 {@linkcode ListConflictBody}. Per-item saves
 * (`features.2`, {@linkcode SaveBody}) keep working beside it.
 *
 * @example
 * ```ts
 * import type { ListSaveBody } from "./wire.ts";
 * const body: ListSaveBody = {
 *   collection: "pages",
 *   key: "home",
 *   field: "features",
 *   value: ["Small", "Fast", "Safe"],
 *   version: "2k9x",
 * };
 * ```
 */
export interface ListSaveBody extends Omit<SaveBody, "value"> {
  /** Every item of the list, in order (plain texts). */
  value: string[];
}

/**
 * The body of a 409 answer to a whole-list write: the list stored now and
 * its version.
 *
 * @example
 * ```ts
 * import type { ListConflictBody } from "./wire.ts";
 * const body: ListConflictBody = { error: "conflict", value: ["A"], version: "7q" };
 * ```
 */
export interface ListConflictBody extends Omit<ConflictBody, "value"> {
  /** The list stored now. */
  value: string[];
}
