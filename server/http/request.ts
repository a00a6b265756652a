/**
 * The front every editor endpoint shares (save, media, history, drafts,
 * publish, discard, schedule, preview, events): the method, the site
 * (origin and Host), the session ({@linkcode admitEditor}), the one JSON
 * body reader ({@linkcode readJsonObject}), and the allowlist check of a
 * field address ({@linkcode allowedTarget}, {@linkcode allowedField}).
 * Each rule lives here once; handlers call {@linkcode admitEditor} first.
 *
 * @module
 */
import { type FieldAddress, parseAddress } from "../../core/address.ts";
import { Status } from "../../core/protocol/mod.ts";
import { type ResolvedField, resolveField } from "./allowlist.ts";
import { readBody } from "./body.ts";
import { annotateRequest, HttpError, requestIdOf } from "./pipeline.ts";
import { checkOrigin, type OriginOptions } from "./origin.ts";
import { contentVersion } from "../../core/version.ts";
import type { Allowlist, Authorize, Editor, EndpointCall } from "./auth.ts";

/** What {@linkcode admitEditor} needs: the origin rules and the session. */
export interface EditorGate extends OriginOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
}

/**
 * Admits a request from an editor, before anything is read: 405 with
 * `Allow` unless its method is one of `methods`, 421/403 from
 * `checkOrigin` (with the call's `publicOrigin` over the option's), 403
 * when `authorize` finds no editor. The editor is named in the request's
 * log line and returned.
 *
 * @example
 * ```ts
 * import { admitEditor } from "./request.ts";
 * const gate = { authorize: () => ({ name: "Ada" }) };
 * const req = new Request("http://localhost/api/cms/save", { method: "PATCH" });
 * const editor = await admitEditor(req, ["PATCH", "POST"], gate);
 * editor.name; // "Ada"
 * ```
 */
export async function admitEditor(
  req: Request,
  methods: readonly string[],
  gate: EditorGate,
  call?: EndpointCall,
): Promise<Editor> {
  if (!methods.includes(req.method)) {
    throw new HttpError(Status.MethodNotAllowed, "Method not allowed", {
      Allow: methods.join(", "),
    });
  }
  checkOrigin(req, {
    ...gate,
    publicOrigin: call?.publicOrigin ?? gate.publicOrigin,
  });
  const editor = await gate.authorize(req, call?.context);
  if (!editor) throw new HttpError(Status.Forbidden, "Not authorized");
  annotateRequest({ editor: String(editor.id ?? editor.name) });
  return editor;
}

/** Strict UTF-8 (one decoder: a non-streaming `decode` keeps no state). */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A body's bytes as a JSON object: 400 "Malformed JSON" for bytes that are
 * not UTF-8 JSON, 400 "Body must be a JSON object" for any other JSON value.
 *
 * @example
 * ```ts
 * import { parseJsonObject } from "./request.ts";
 * parseJsonObject(new TextEncoder().encode('{"path":"/"}')); // { path: "/" }
 * ```
 */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(utf8.decode(bytes));
  } catch {
    throw new HttpError(Status.BadRequest, "Malformed JSON");
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new HttpError(Status.BadRequest, "Body must be a JSON object");
  }
  return data as Record<string, unknown>;
}

/** How {@linkcode readJsonObject} treats a body. */
export interface JsonBodyOptions {
  /**
   * An empty body reads as `{}` (the draft endpoints: "publish all" is an
   * empty body). Default `false`: an empty body is 400 "Malformed JSON".
   */
  emptyIsObject?: boolean;
}

/**
 * The one JSON body reader of every endpoint: reads a body of at most
 * `maxBytes` with `readBody` (413 past it, 408 when it stalls, 503 when
 * the memory budget is full) and parses it with
 * {@linkcode parseJsonObject} (400 "Malformed JSON", 400 "Body must be a
 * JSON object").
 *
 * @example
 * ```ts
 * import { readJsonObject } from "./request.ts";
 * const req = new Request("http://x/", { method: "POST", body: '{"a":1}' });
 * await readJsonObject(req, 4096); // { a: 1 }
 * ```
 */
export async function readJsonObject(
  req: Request,
  maxBytes: number,
  options: JsonBodyOptions = {},
): Promise<Record<string, unknown>> {
  const bytes = await readBody(req, maxBytes);
  if (options.emptyIsObject && bytes.byteLength === 0) return {};
  return parseJsonObject(bytes);
}

/**
 * A field address checked against the allowlist: 400 with the reason
 * when `address` is a reason already (the address grammar refused it),
 * when it is not allowlisted (whether or not the field exists), or names
 * a locale it may not have. The field returned carries the address as
 * stored (`localizeAddress`: the default locale dropped).
 *
 * @example
 * ```ts
 * import { allowedTarget } from "./request.ts";
 * allowedTarget({ pages: { title: "plain" } }, {
 *   collection: "pages",
 *   key: "home",
 *   field: "title",
 * });
 * // { name: "title", address: { … }, kind: "plain", spec: { … } }
 * ```
 */
export function allowedTarget(
  allowlist: Allowlist,
  address: FieldAddress | string,
): ResolvedField {
  if (typeof address === "string") {
    throw new HttpError(Status.BadRequest, address);
  }
  const target = resolveField(allowlist, address);
  if (typeof target === "string") {
    throw new HttpError(Status.BadRequest, target);
  }
  return target;
}

/**
 * A field address sent by an editor as text (`collection:key:field`),
 * parsed and checked with {@linkcode allowedTarget}: 400 "Missing or
 * invalid field" when it is not a non-empty string, else as there. The
 * address returned is as stored.
 *
 * @example
 * ```ts
 * import { allowedField } from "./request.ts";
 * allowedField({ pages: { title: "plain" } }, "pages:home:title");
 * // { collection: "pages", key: "home", field: "title", … }
 * ```
 */
export function allowedField(
  allowlist: Allowlist,
  text: unknown,
): FieldAddress {
  if (typeof text !== "string" || text === "") {
    throw new HttpError(Status.BadRequest, "Missing or invalid field");
  }
  return allowedTarget(allowlist, parseAddress(text)).address;
}

/**
 * Runs the request path's side-effect-free parts once (a body read through
 * the body reader, JSON parsing, a request id, a version, an answer), so
 * that the first real request does not pay their first-run cost alone. Endpoints call it in
 * the background when they are created.
 *
 * @example
 * ```ts
 * import { warmRequestPath } from "./request.ts";
 * await warmRequestPath();
 * ```
 */
export async function warmRequestPath(): Promise<void> {
  const body = JSON.stringify({ collection: "c", key: "k", field: "f" });
  for (let i = 0; i < 5; i++) {
    const req = new Request("http://localhost/", {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body,
    });
    requestIdOf(req);
    const value = await readJsonObject(req, 1024);
    contentVersion(String(value.field));
    new Response(null, { status: 204, headers: { "X-Warm": "1" } });
  }
}
