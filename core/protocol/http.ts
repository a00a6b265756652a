/**
 * What every endpoint of the protocol shares: the status codes they answer
 * with, by name, and the plain-text body and `Content-Type` of every error
 * answer.
 *
 * @module
 */

/**
 * The body of every error answer: a short plain-text reason, for people.
 * A 5xx carries an error id that the server logged with the error.
 *
 * @example
 * ```ts
 * import type { ErrorBody } from "./http.ts";
 * const reason: ErrorBody = "Field not allowed";
 * ```
 */
export type ErrorBody = string;

/** The `Content-Type` of every error answer. */
export const ERROR_CONTENT_TYPE = "text/plain; charset=utf-8";

/** The status codes of the wire protocol, by name (see {@linkcode Status}). */
export interface StatusCodes {
  /** Media stored; the body is a `MediaAnswer`. */
  readonly OK: 200;
  /** Field saved; see `VERSION_HEADER`. */
  readonly NoContent: 204;
  /** Malformed body, unknown field or address, invalid value. */
  readonly BadRequest: 400;
  /** Cross-site, not signed in, or not allowed to edit this field. */
  readonly Forbidden: 403;
  /** Nothing of that name is stored (a media library choice deleted meanwhile). */
  readonly NotFound: 404;
  /** The method is not handled; the answer carries `Allow`. */
  readonly MethodNotAllowed: 405;
  /** The field changed since the editor's version; a `ConflictBody`. */
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
 * import { Status } from "./http.ts";
 * const res = new Response(null, { status: Status.NoContent });
 * res.status === Status.NoContent; // true
 * ```
 */
export const Status: StatusCodes = /* @__PURE__ */ Object.freeze({
  OK: 200,
  NoContent: 204,
  BadRequest: 400,
  Forbidden: 403,
  NotFound: 404,
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
