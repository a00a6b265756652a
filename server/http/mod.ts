/**
 * The shared front of every endpoint: the pipeline ({@linkcode endpoint},
 * {@linkcode HttpError} turned into a response in one place, request ids),
 * the origin check, the bounded body reader ({@linkcode readBody}) and the
 * one JSON body reader on it ({@linkcode readJsonObject}), the host's auth
 * types, the allowlist and its one check of an address
 * ({@linkcode allowedTarget}, {@linkcode allowedField}), and the gate that
 * admits an editor ({@linkcode admitEditor}).
 *
 * @module
 */
export { bodyBytesInFlight, readBody, setBodyBudget } from "./body.ts";
export {
  endpoint,
  type EndpointContext,
  errorResponse,
  type Handler,
  HttpError,
  json,
  REQUEST_ID_HEADER,
  type RequestFacts,
  requestIdOf,
  text,
} from "./pipeline.ts";
export { isCrossSite, type OriginOptions, requestUrl } from "./origin.ts";
export {
  type Allowlist,
  type Authorize,
  type CanEdit,
  type Editor,
  type EditRule,
  type EndpointCall,
  type FieldKind,
  mayEdit,
} from "./auth.ts";
export {
  admitEditor,
  allowedField,
  allowedTarget,
  type JsonBodyOptions,
  readJsonObject,
  warmRequestPath,
} from "./request.ts";
export { type ResolvedField, resolveField } from "./allowlist.ts";
export { hex, randomHex } from "./_random.ts";
