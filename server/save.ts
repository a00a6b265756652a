/**
 * The save endpoint: one request per changed field, as a Web-standard
 * handler `(req: Request) => Promise<Response>`.
 *
 * @module
 */
import { type ResolvedField, resolveField } from "./allowlist.ts";
import { readBody } from "./body.ts";
import { json, text } from "./http.ts";
import { isCrossSite } from "./origin.ts";
import { sanitizeHtml } from "./sanitize.ts";
import type {
  Allowlist,
  Authorize,
  ContentRecord,
  ContentStore,
  ContentValue,
  Editor,
} from "./types.ts";
import { contentVersion } from "./version.ts";

/** What {@linkcode SaveHandlerOptions.onSave} gets after a write. */
export interface SaveEvent {
  /** The record's collection. */
  collection: string;
  /** The record's key. */
  key: string;
  /** The field as sent, e.g. `title` or `features.2`. */
  field: string;
  /** The value as stored (sanitized for rich fields). */
  value: string;
  /** Who saved it. */
  editor: Editor;
}

/** Options of {@linkcode createSaveHandler}. */
export interface SaveHandlerOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /** Which fields are writable, and how (plain, rich, list). */
  allowlist: Allowlist;
  /** Where records live. */
  store: ContentStore;
  /** Origins besides the request's own that may call (proxies, CDNs). */
  allowedOrigins?: readonly string[];
  /** Largest accepted body in bytes (→ 413). Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Called after a successful write, before the 204 goes out, e.g. to purge
   * a cache. An error it throws is logged; the save still succeeds.
   */
  onSave?: (event: SaveEvent) => void | Promise<void>;
}

/** Longest accepted `collection` and `key`, in UTF-16 code units. */
const MAX_ID_LENGTH = 512;

/**
 * Creates the save endpoint handler.
 *
 * - `PATCH` (what the client sends) and `POST`; others get 405.
 * - 403 when cross-site or no editor is authorized (before the body is read).
 * - Body: JSON `{collection, key, field, value, version?}`, at most
 *   `maxBodyBytes` (413). Bad JSON or fields → 400.
 * - `field` must be allowlisted (400 otherwise, nothing reaches the store);
 *   `features.2` addresses an existing item of a list field.
 * - Plain fields and list items store `String(value)` (strings, finite
 *   numbers, booleans; anything else is 400). Rich fields store
 *   `sanitizeHtml(value)`.
 * - With `version`, a stored value whose {@linkcode contentVersion} differs
 *   gets 409 `{error: "conflict", value, version}` and nothing is written.
 * - Success: 204 with `CMS-Version: <contentVersion(stored value)>`.
 *
 * @example
 * ```ts
 * import { createSaveHandler, MemoryContentStore } from "@inplace/cms";
 * const save = createSaveHandler({
 *   authorize: (req) =>
 *     req.headers.get("Cookie")?.includes("session=ok") ? { name: "Ada" } : null,
 *   allowlist: { pages: { title: "plain", body: "rich", features: "list" } },
 *   store: new MemoryContentStore(),
 * });
 * Deno.serve((req) =>
 *   new URL(req.url).pathname === "/api/cms/save"
 *     ? save(req)
 *     : new Response("Not found", { status: 404 })
 * );
 * ```
 */
export function createSaveHandler(
  options: SaveHandlerOptions,
): (req: Request) => Promise<Response> {
  const { authorize, allowlist, store, allowedOrigins, onSave } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  return async (req) => {
    if (req.method !== "PATCH" && req.method !== "POST") {
      return text(405, "Method not allowed", { Allow: "PATCH, POST" });
    }
    if (isCrossSite(req, allowedOrigins)) {
      return text(403, "Cross-site request");
    }
    try {
      const editor = await authorize(req);
      if (!editor) return text(403, "Not authorized");
      const body = await readBody(req, maxBodyBytes);
      if (body instanceof Response) return body;
      const input = parseSave(body);
      if (typeof input === "string") return text(400, input);
      const target = resolveField(allowlist, input.collection, input.field);
      if (typeof target === "string") return text(400, target);
      const value = await cleanValue(target, input.value);
      if (value === undefined) return text(400, "Invalid value");

      let outcome: Outcome = "missing";
      await store.update(input.collection, input.key, (current) => {
        const result = apply(current, target, value, input.version);
        outcome = result.outcome;
        return result.record;
      });
      if (typeof outcome === "string") {
        return text(400, "List item does not exist");
      }
      if ("conflict" in outcome) {
        const { current } = outcome;
        return json(409, {
          error: "conflict",
          value: current,
          version: contentVersion(current),
        });
      }
      if (onSave) {
        const { collection, key, field } = input;
        try {
          await onSave({ collection, key, field, value, editor });
        } catch (err) {
          console.error("cms: onSave failed", err);
        }
      }
      return new Response(null, {
        status: 204,
        headers: { "CMS-Version": contentVersion(value) },
      });
    } catch (err) {
      return serverFault(err);
    }
  };
}

interface SaveInput {
  collection: string;
  key: string;
  field: string;
  value: unknown;
  version?: string;
}

/** Parses and checks the JSON body; a string is the 400 reason. */
function parseSave(body: Uint8Array): SaveInput | string {
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return "Malformed JSON";
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return "Body must be a JSON object";
  }
  const { collection, key, field, value, version } = data as Record<
    string,
    unknown
  >;
  for (const [name, v] of Object.entries({ collection, key, field })) {
    if (typeof v !== "string" || v === "" || !v.isWellFormed()) {
      return `Missing or invalid ${name}`;
    }
    if (v.length > MAX_ID_LENGTH) return `${name} too long`;
  }
  if (!Object.hasOwn(data, "value")) return "Missing value";
  if (version !== undefined && typeof version !== "string") {
    return "Invalid version";
  }
  return { collection, key, field, value, version } as SaveInput;
}

/** The string to store, or `undefined` when `value` is not acceptable. */
async function cleanValue(
  target: ResolvedField,
  value: unknown,
): Promise<string | undefined> {
  if (typeof value === "string") {
    if (!value.isWellFormed()) return undefined;
    if (target.kind !== "rich") return value;
    return await sanitizeHtml(value);
  }
  if (target.kind === "rich") return undefined;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** What the mutation decided: written, conflict, or a missing list item. */
type Outcome = "missing" | { written: true } | {
  conflict: true;
  current: string;
};

/** The pure read-modify-write step run inside `store.update`. */
function apply(
  current: ContentRecord | null,
  target: ResolvedField,
  value: string,
  version: string | undefined,
): { outcome: Outcome; record: ContentRecord | null } {
  const stored: ContentValue | undefined =
    current && Object.hasOwn(current, target.name)
      ? current[target.name]
      : undefined;
  let previous: ContentValue | undefined = stored;
  let next: ContentValue = value;
  if (target.index !== undefined) {
    if (!Array.isArray(stored) || target.index >= stored.length) {
      return { outcome: "missing", record: null };
    }
    previous = stored[target.index];
    next = stored.with(target.index, value);
  }
  if (
    version !== undefined && typeof previous === "string" &&
    contentVersion(previous) !== version
  ) {
    return { outcome: { conflict: true, current: previous }, record: null };
  }
  return {
    outcome: { written: true },
    record: { ...current, [target.name]: next },
  };
}

/**
 * Store failures are server faults (500), except errors that carry their own
 * 4xx `status` (e.g. the KV store's "record too large" 413).
 */
function serverFault(err: unknown): Response {
  const status = (err as { status?: unknown })?.status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return text(status, (err as Error).message || "Bad request");
  }
  console.error("cms: save failed", err);
  return text(500, "Internal error");
}
