/**
 * The save endpoint ({@linkcode createSaveHandler}): one request per
 * changed field, as a Web-standard handler
 * `(req: Request, call?: EndpointCall) => Promise<Response>`. The body's
 * shape is checked here, its address by the front's allowlist check; the
 * value checks are in `_value.ts`, the atomic writes in `_write.ts`.
 *
 * @module
 */
import { checkAddress, fieldPath, formatAddress } from "../../core/address.ts";
import { fieldSpec } from "../../core/content.ts";
import {
  type ConflictBody,
  type ListConflictBody,
  REMOVED_HEADER,
  type SaveBody,
  Status,
  VERSION_HEADER,
} from "../../core/protocol/mod.ts";
import {
  admitEditor,
  allowedTarget,
  type Allowlist,
  type Authorize,
  type CanEdit,
  type Editor,
  endpoint,
  type EndpointCall,
  type EndpointContext,
  type Handler,
  HttpError,
  json,
  mayEdit,
  type OriginOptions,
  readJsonObject,
  type ResolvedField,
  warmRequestPath,
} from "../http/mod.ts";
import { type SanitizeOptions, warmSanitizer } from "../sanitize/mod.ts";
import type {
  ContentStore,
  ContentValue,
  DraftStore,
  PublishMode,
} from "../store/mod.ts";
import type { MediaStorage } from "../media/mod.ts";
import { contentVersion } from "../../core/version.ts";
import { cleanValue } from "./_value.ts";
import { type Outcome, saveValue } from "./_write.ts";

/** What {@linkcode SaveHandlerOptions.onSave} gets after a write. */
export interface SaveEvent {
  /** The record's collection. */
  collection: string;
  /** The record's key. */
  key: string;
  /**
   * The field, e.g. `title`, `features.2`, or `features` (a whole list);
   * with its locale, when not the default: `title@de`, `features@de.2`.
   */
  field: string;
  /** The value as stored (sanitized for rich fields; a list for a whole list). */
  value: ContentValue;
  /** Who saved it. */
  editor: Editor;
}

/** Options of {@linkcode createSaveHandler}. */
export interface SaveHandlerOptions extends OriginOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /**
   * Which fields are writable, and how: a `defineContent(...)` result
   * (with its limits), or a hand-written collection → field → kind map.
   */
  allowlist: Allowlist;
  /** Per-record rule, run once the field is known; `false` → 403. */
  canEdit?: CanEdit;
  /** Where records live. */
  store: ContentStore;
  /** Largest accepted body in bytes (→ 413). Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * The media storage's public base (e.g. `/media/`): an `<img srcset>` in
   * a rich field is kept only when every URL in it starts with this base.
   * Default: `storage.url("")` when `storage` is given; without either,
   * `srcset` and `sizes` are removed.
   */
  mediaBase?: string;
  /**
   * The media storage the media endpoint writes to (the same options
   * object can feed both factories): its public base is the default
   * `mediaBase`, so the editor's own uploads keep `srcset` and `sizes`.
   */
  storage?: Pick<MediaStorage, "url">;
  /**
   * The sanitizer's limits and deadline for rich fields (see
   * `sanitizeHtml`): past a limit a value is refused with 400 or 413.
   */
  sanitize?: Pick<SanitizeOptions, "limits" | "deadlineMs">;
  /**
   * `direct` (default): a save goes live at once. `draft`: a save writes the
   * field's draft (the store must be a {@linkcode DraftStore}); visitors
   * keep the published value until a publish (`server/drafts/publish.ts`).
   */
  publishMode?: PublishMode;
  /**
   * Called after a successful write, before the 204 goes out, e.g. to purge
   * a cache. An error it throws is logged; the save still succeeds.
   */
  onSave?: (event: SaveEvent) => void | Promise<void>;
}

/**
 * Creates the save endpoint handler.
 *
 * - `PATCH` (what the client sends) and `POST`; others get 405 with `Allow`.
 * - 421 when the Host is not in `allowedHosts`; 403 when cross-site or no
 *   editor is authorized (before the body is read).
 * - Body: JSON {@linkcode SaveBody}, at most `maxBodyBytes` (413). Bad JSON,
 *   an address outside the grammar (`core/address.ts`) or a field outside
 *   the allowlist → 400, and nothing reaches the store.
 * - `canEdit(req, address, editor)` → `false` is 403.
 * - Plain fields and list items store `String(value)` (strings, finite
 *   numbers, booleans; anything else is 400). Rich fields store
 *   `sanitizeRich(value, { mediaBase })`. Image fields store a URL (`isImageValue`).
 *   Over the field's `maxLength` is 400.
 * - A whole-list write (`field` is a list field's bare name, `value` a
 *   `string[]`, see `ListSaveBody`) replaces the list: its length must be
 *   within the field's `min` and `max`, each item passes the item's checks;
 *   else 400 with the reason, and nothing is stored.
 * - `locale` (a declared locale; the field part may say it too, as
 *   `name@locale`) saves that locale's value (`core/locale.ts`): an
 *   undeclared locale, or a locale on a shared field, is 400; a localized
 *   field saved without one is the default locale's.
 * - With `version`, a stored value whose {@linkcode contentVersion} differs
 *   gets 409 {@linkcode ConflictBody} and nothing is written (for a whole
 *   list: the list's version, and the stored list in the body).
 * - Success: 204 with `CMS-Version: <contentVersion(stored value)>`, and
 *   for a rich field from which the sanitizer removed something,
 *   `CMS-Removed: <count>` ({@linkcode REMOVED_HEADER}).
 * - A store fault is 500 with an error id (logged with the error).
 *
 * The optional second argument ({@linkcode EndpointCall}) carries what
 * differs per request: the public origin, and a context for the hooks.
 *
 * @example
 * ```ts
 * import { createSaveHandler, defineContent, list, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const save = createSaveHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: defineContent({ pages: { title: "plain", body: "rich", features: list() } }),
 *   store: new MemoryContentStore(),
 *   // Your public origin behind a proxy; unset (localhost), the request's own.
 *   publicOrigin: Deno.env.get("PUBLIC_ORIGIN") || undefined,
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
): Handler<EndpointCall> {
  const { allowlist, store } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const drafts = options.publishMode === "draft" ? draftStore(store) : null;
  const sanitize = {
    ...options.sanitize,
    mediaBase: options.mediaBase ?? options.storage?.url(""),
  };
  // Warm start: the first save need not pay for cold code paths.
  if (hasRichField(allowlist)) warmSanitizer();
  setTimeout(() => void warmRequestPath().catch(() => {}), 0);
  return endpoint<EndpointCall>("save", async (req, ctx, call) => {
    const editor = await admitEditor(req, ["PATCH", "POST"], options, call);
    const input = parseSave(await readJsonObject(req, maxBodyBytes));
    const target = saveTarget(allowlist, input, ctx);
    const { address } = target;
    if (!await mayEdit(options, req, address, editor, call)) {
      throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
    }
    const { value, removed } = await cleanValue(target, input.value, sanitize);
    const outcome = await saveValue({
      store: drafts ?? store,
      draft: drafts !== null,
      allowlist,
      target,
      value,
      version: input.version,
      editor: editor.name,
    });
    if (outcome !== "written") return refusal(outcome);
    // As stored: the locale in it (`title@de`), so listeners tell locales apart.
    await notifySave(options, input, fieldPath(address), value, editor);
    return new Response(null, {
      status: Status.NoContent,
      headers: {
        [VERSION_HEADER]: contentVersion(value),
        ...(removed > 0 ? { [REMOVED_HEADER]: String(removed) } : {}),
      },
    });
  });
}

/**
 * The field a save names, by the address grammar (`core/address.ts`) and
 * then the front's allowlist check: 400 with the reason otherwise. A
 * grammatical address is named in the request's log line either way.
 */
function saveTarget(
  allowlist: Allowlist,
  input: SaveBody,
  ctx: EndpointContext,
): ResolvedField {
  const parsed = checkAddress(
    input.collection,
    input.key,
    input.field,
    input.locale,
  );
  if (typeof parsed !== "string") {
    ctx.annotate?.({
      collection: parsed.collection,
      field: formatAddress(parsed),
    });
  }
  return allowedTarget(allowlist, parsed);
}

/**
 * A write that did not happen as a refusal: 400 for a missing list item,
 * 409 {@linkcode ConflictBody} (a list item's or field's text, or a whole
 * list's items) when the stored value is not the version the editor saw.
 */
function refusal(outcome: Exclude<Outcome, "written">): Response {
  if (outcome === "missing") {
    throw new HttpError(Status.BadRequest, "List item does not exist");
  }
  const conflict = {
    error: "conflict",
    value: outcome.current,
    version: contentVersion(outcome.current),
  } as ConflictBody | ListConflictBody;
  return json(Status.Conflict, conflict);
}

/** Runs `onSave`, if any; an error it throws is logged, never answered. */
async function notifySave(
  options: SaveHandlerOptions,
  input: SaveBody,
  field: string,
  value: ContentValue,
  editor: Editor,
): Promise<void> {
  if (!options.onSave) return;
  const { collection, key } = input;
  try {
    await options.onSave({ collection, key, field, value, editor });
  } catch (err) {
    console.error("cms: onSave failed", err);
  }
}

/** Checks the body's shape; throws 400 with a reason. */
function parseSave(data: Record<string, unknown>): SaveBody {
  const { collection, key, field, value, version, locale } = data;
  for (const [name, v] of Object.entries({ collection, key, field })) {
    if (typeof v !== "string" || v === "") {
      throw new HttpError(Status.BadRequest, `Missing or invalid ${name}`);
    }
  }
  if (locale !== undefined && typeof locale !== "string") {
    throw new HttpError(Status.BadRequest, "Invalid locale");
  }
  if (!Object.hasOwn(data, "value")) {
    throw new HttpError(Status.BadRequest, "Missing value");
  }
  if (version !== undefined && typeof version !== "string") {
    throw new HttpError(Status.BadRequest, "Invalid version");
  }
  return { collection, key, field, value, version, locale } as SaveBody;
}

/**
 * `store` as a {@linkcode DraftStore}; throws a `TypeError` at set-up when
 * publish mode `draft` is asked of a store without drafts.
 *
 * @example
 * ```ts
 * import { draftStore } from "./handler.ts";
 * import { MemoryContentStore } from "../store/memory.ts";
 * draftStore(new MemoryContentStore()); // ok
 * ```
 */
export function draftStore(store: ContentStore): DraftStore {
  const s = store as Partial<DraftStore>;
  if (
    typeof s.updateDraft !== "function" || typeof s.publish !== "function" ||
    typeof s.getDrafted !== "function"
  ) {
    throw new TypeError(
      'publishMode "draft" needs a store with drafts (memory, KV, PostgreSQL)',
    );
  }
  return store as DraftStore;
}

/** Whether the allowlist declares a rich field (so the sanitizer will run). */
function hasRichField(allowlist: Allowlist): boolean {
  return Object.keys(allowlist).some((collection) =>
    Object.keys(allowlist[collection] ?? {}).some((field) =>
      fieldSpec(allowlist, collection, field)?.kind === "rich"
    )
  );
}
