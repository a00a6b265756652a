/**
 * The save endpoint: one request per changed field, as a Web-standard
 * handler `(req: Request, call?: EndpointCall) => Promise<Response>`.
 *
 * @module
 */
import {
  checkAddress,
  type FieldAddress,
  fieldPath,
  formatAddress,
} from "../../core/address.ts";
import {
  type FieldSpec,
  fieldSpec,
  fitsLimit,
  isImageValue,
  listLengthError,
} from "../../core/content.ts";
import {
  type ConflictBody,
  type ListConflictBody,
  REMOVED_HEADER,
  type SaveBody,
  Status,
  VERSION_HEADER,
} from "../../core/wire.ts";
import { fallbackNames } from "../../core/locale.ts";
import {
  admitEditor,
  type Allowlist,
  type Authorize,
  type CanEdit,
  type Editor,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
  type OriginOptions,
  readJsonObject,
  type ResolvedField,
  resolveField,
  warmRequestPath,
} from "../http/mod.ts";
import {
  type SanitizeOptions,
  sanitizeRich,
  warmSanitizer,
} from "../sanitize/mod.ts";
import type {
  ContentRecord,
  ContentStore,
  ContentValue,
  DraftStore,
  PublishMode,
  RevisionInput,
} from "../store/mod.ts";
import type { MediaStorage } from "../media/mod.ts";
import { contentVersion } from "../../core/version.ts";

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
   * keep the published value until a publish (`server/drafts/handlers.ts`).
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
  const { allowlist, canEdit, store, onSave } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const drafts = options.publishMode === "draft" ? draftStore(store) : null;
  const mediaBase = options.mediaBase ?? options.storage?.url("");
  // Warm start: the first save need not pay for cold code paths.
  if (hasRichField(allowlist)) warmSanitizer();
  setTimeout(() => void warmRequestPath().catch(() => {}), 0);
  return endpoint<EndpointCall>("save", async (req, ctx, call) => {
    const editor = await admitEditor(req, ["PATCH", "POST"], options, call);
    const context = call?.context;
    const input = parseSave(await readJsonObject(req, maxBodyBytes));
    const parsed = checkAddress(
      input.collection,
      input.key,
      input.field,
      input.locale,
    );
    if (typeof parsed === "string") {
      throw new HttpError(Status.BadRequest, parsed);
    }
    ctx.annotate?.({
      collection: parsed.collection,
      field: formatAddress(parsed),
    });
    const target = resolveField(allowlist, parsed);
    if (typeof target === "string") {
      throw new HttpError(Status.BadRequest, target);
    }
    const { address } = target;
    if (canEdit && !await canEdit(req, address, editor, context)) {
      throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
    }
    const { value, removed } = await cleanValue(target, input.value, {
      ...options.sanitize,
      mediaBase,
    });
    const into = drafts ?? store;
    const base = await untranslatedList(
      into,
      drafts !== null,
      allowlist,
      target,
    );
    const outcome = base === undefined
      ? await write(
        into,
        drafts !== null,
        address,
        target,
        value,
        input.version,
        {
          field: fieldPath(address),
          editor: editor.name,
        },
      )
      : await translateList(
        into,
        drafts !== null,
        target,
        base,
        value as string,
        input.version,
        editor.name,
      );
    if (outcome === "missing") {
      throw new HttpError(Status.BadRequest, "List item does not exist");
    }
    if (outcome !== "written") {
      // A list item's or field's text; a whole list's items.
      const conflict = {
        error: "conflict",
        value: outcome.current,
        version: contentVersion(outcome.current),
      } as ConflictBody | ListConflictBody;
      return json(Status.Conflict, conflict);
    }
    if (onSave) {
      const { collection, key } = input;
      // As stored: the locale in it (`title@de`), so listeners tell locales apart.
      const field = fieldPath(address);
      try {
        await onSave({ collection, key, field, value, editor });
      } catch (err) {
        console.error("cms: onSave failed", err);
      }
    }
    return new Response(null, {
      status: Status.NoContent,
      headers: {
        [VERSION_HEADER]: contentVersion(value),
        ...(removed > 0 ? { [REMOVED_HEADER]: String(removed) } : {}),
      },
    });
  });
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
 * The string to store and how many things the sanitizer removed from it;
 * throws 400 when `value` is not acceptable.
 */
async function cleanValue(
  target: ResolvedField,
  value: unknown,
  sanitize: SanitizeOptions,
): Promise<{ value: ContentValue; removed: number }> {
  if (target.kind === "list" && target.index === undefined) {
    return { value: cleanList(target.spec, value), removed: 0 };
  }
  const { kind, spec } = target;
  let clean: string | undefined;
  let removed = 0;
  if (typeof value === "string") {
    if (value.isWellFormed()) {
      if (kind === "rich") {
        ({ html: clean, removed } = await sanitizeRich(value, sanitize));
      } else if (kind !== "image" || isImageValue(value)) clean = value;
    }
  } else if (kind !== "rich" && kind !== "image") {
    if (typeof value === "boolean") clean = String(value);
    if (typeof value === "number" && Number.isFinite(value)) {
      clean = String(value);
    }
  }
  if (clean === undefined) {
    throw new HttpError(
      Status.BadRequest,
      kind === "image" ? "Invalid image URL" : "Invalid value",
    );
  }
  if (!fitsLimit(spec, clean)) {
    throw new HttpError(
      Status.BadRequest,
      `Value too long (limit ${spec.maxLength} characters)`,
    );
  }
  return { value: clean, removed };
}

/**
 * A whole list's items as stored; throws 400 when it is not a list of
 * texts, its length is outside `min`..`max`, or an item fails its checks.
 */
function cleanList(spec: FieldSpec, value: unknown): string[] {
  if (!Array.isArray(value)) {
    throw new HttpError(Status.BadRequest, "List value must be an array");
  }
  const tooMany = listLengthError(spec, value.length);
  if (tooMany) throw new HttpError(Status.BadRequest, tooMany);
  const item = spec.item!;
  for (const [i, text] of value.entries()) {
    if (typeof text !== "string" || !text.isWellFormed()) {
      throw new HttpError(Status.BadRequest, `Invalid list item ${i}`);
    }
    if (!fitsLimit(item, text)) {
      throw new HttpError(
        Status.BadRequest,
        `List item ${i} too long (limit ${item.maxLength} characters)`,
      );
    }
  }
  return value;
}

/** What a write decided: written, a conflict, or a missing list item. */
type Outcome = "written" | "missing" | { current: ContentValue };

/**
 * One atomic read-modify-write of the record, with the field's new revision
 * in the same operation (a history store); nothing partial is stored.
 */
async function write(
  store: ContentStore,
  draft: boolean,
  address: FieldAddress,
  target: ResolvedField,
  value: ContentValue,
  version: string | undefined,
  revision: RevisionInput,
): Promise<Outcome> {
  let outcome: Outcome = "missing";
  const mutate = (current: ContentRecord | null) => {
    const result = apply(current, target, value, version);
    outcome = result.outcome;
    return result.record;
  };
  // A draft store given here means draft mode: the save is the field's
  // draft, checked against the value the editor sees (the draft, if any).
  if (draft) {
    await (store as DraftStore).updateDraft(
      address.collection,
      address.key,
      mutate,
      revision,
    );
  } else await store.update(address.collection, address.key, mutate, revision);
  return outcome;
}

/**
 * For an item of a list in a locale that has no list of its own yet: the
 * list it reads now (its first fallback's), from which the edit makes the
 * locale's list. `undefined` for every other write.
 */
async function untranslatedList(
  store: ContentStore,
  draft: boolean,
  allowlist: Allowlist,
  target: ResolvedField,
): Promise<string[] | undefined> {
  if (target.index === undefined) return undefined;
  const names = fallbackNames(allowlist, target.address);
  if (names.length === 0) return undefined;
  const { collection, key } = target.address;
  const record = draft
    ? await (store as DraftStore).getDrafted(collection, key)
    : await store.get(collection, key);
  if (!record || Object.hasOwn(record, target.name)) return undefined;
  const from = names.find((name) => Array.isArray(record[name]));
  return from === undefined ? undefined : [...record[from] as string[]];
}

/**
 * Writes item `target.index` of a list the locale reads from a fallback
 * (`base`) as the locale's own whole list, with the item changed: one
 * atomic write of the list (its revision and draft are the whole list's).
 * `version` is checked against the item the editor saw; when another save
 * made the locale's list in between, it is a conflict.
 */
async function translateList(
  store: ContentStore,
  draft: boolean,
  target: ResolvedField,
  base: string[],
  value: string,
  version: string | undefined,
  editor: string,
): Promise<Outcome> {
  const index = target.index!;
  if (index >= base.length) return "missing";
  if (version !== undefined && contentVersion(base[index]) !== version) {
    return { current: base[index] };
  }
  const whole: ResolvedField = { ...target, index: undefined };
  const list = base.with(index, value);
  let outcome: Outcome = "written";
  const mutate = (current: ContentRecord | null) => {
    const mine = current?.[target.name];
    if (current && Object.hasOwn(current, target.name)) {
      outcome = { current: Array.isArray(mine) ? mine[index] ?? "" : mine! };
      return null;
    }
    return apply(current, whole, list, undefined).record;
  };
  const { collection, key } = target.address;
  const revision = { field: target.name, editor };
  if (draft) {
    await (store as DraftStore).updateDraft(collection, key, mutate, revision);
  } else await store.update(collection, key, mutate, revision);
  return outcome;
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

/** The pure read-modify-write step run inside `store.update`. */
function apply(
  current: ContentRecord | null,
  target: ResolvedField,
  value: ContentValue,
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
    next = stored.with(target.index, value as string);
  }
  if (
    version !== undefined && previous !== undefined &&
    contentVersion(previous) !== version
  ) {
    return { outcome: { current: previous }, record: null };
  }
  return { outcome: "written", record: { ...current, [target.name]: next } };
}

/** Whether the allowlist declares a rich field (so the sanitizer will run). */
function hasRichField(allowlist: Allowlist): boolean {
  return Object.keys(allowlist).some((collection) =>
    Object.keys(allowlist[collection] ?? {}).some((field) =>
      fieldSpec(allowlist, collection, field)?.kind === "rich"
    )
  );
}
