/**
 * The draft endpoints of publish mode `draft`: list the drafts, publish
 * them (all or none), discard one. Web-standard handlers
 * `(req, call?) => Promise<Response>` on the shared pipeline, with the save
 * endpoint's session, origin, allowlist and `canEdit` rules.
 *
 * @module
 */
import {
  type FieldAddress,
  fieldPath,
  formatAddress,
  parseAddress,
} from "../../core/address.ts";
import {
  type DraftsListing,
  type PublishAnswer,
  type PublishConflictBody,
  type ScheduleAnswer,
  SCHEDULED,
  type ScheduleEntry,
  type ScheduleListing,
  Status,
} from "../../core/wire.ts";
import { localesOf } from "../../core/content.ts";
import { localeOfAddress } from "../../core/locale.ts";
import {
  admitEditor,
  allowedField,
  type Editor,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
  parseJsonObject,
  readBody,
} from "../http/mod.ts";
import { draftStore, type SaveHandlerOptions } from "../save/mod.ts";
import type { Scheduler } from "./scheduler.ts";
import {
  type Draft,
  type DraftRef,
  type DraftStore,
  isScheduleStore,
  type Schedule,
} from "../store/mod.ts";

/** Options of the draft endpoints: the save endpoint's, with a draft store. */
export type DraftHandlerOptions =
  & Omit<SaveHandlerOptions, "store" | "publishMode" | "onSave">
  & {
    /** Where records, revisions and drafts live. */
    store: DraftStore;
    /**
     * Called after a publish, e.g. to purge a cache of the published pages.
     * An error it throws is logged; the publish still succeeds.
     */
    onPublish?: (published: Draft[], editor: Editor) => void | Promise<void>;
    /**
     * Called after a draft was discarded, with its address (e.g. to tell
     * other editors, `EditorEvents.onDiscard`). An error it throws is
     * logged; the discard still succeeds.
     */
    onDiscard?: (field: string, editor: Editor) => void | Promise<void>;
    /**
     * Fires scheduled publishes (`POST /api/cms/publish` with `at`); woken
     * when a schedule is made here. Without it, schedules are kept and
     * fired by whichever instance runs a {@linkcode Scheduler} on the store.
     */
    scheduler?: Scheduler;
  };

/** Largest publish or discard body (a page's addresses fit easily). */
const MAX_BODY_BYTES = 256 * 1024;
/** Most fields one publish names. */
const MAX_FIELDS = 1000;

/**
 * The shared front of the draft endpoints: {@linkcode admitEditor}, then
 * `handle` with the editor.
 */
function draftEndpoint(
  name: string,
  options: DraftHandlerOptions,
  methods: string[],
  handle: (
    req: Request,
    editor: Editor,
    call: EndpointCall | undefined,
  ) => Promise<Response>,
): Handler<EndpointCall> {
  draftStore(options.store);
  return endpoint<EndpointCall>(name, async (req, _ctx, call) => {
    const editor = await admitEditor(req, methods, options, call);
    return await handle(req, editor, call);
  });
}

/** Whether `canEdit` lets `editor` change `address` (no rule: yes). */
async function mayEdit(
  options: DraftHandlerOptions,
  req: Request,
  address: FieldAddress,
  editor: Editor,
  call: EndpointCall | undefined,
): Promise<boolean> {
  return !options.canEdit ||
    await options.canEdit(req, address, editor, call?.context);
}

/** Reads a JSON object body (at most 256 KiB); throws 400/413 otherwise. */
async function readObject(req: Request): Promise<Record<string, unknown>> {
  const bytes = await readBody(req, MAX_BODY_BYTES);
  return bytes.byteLength === 0 ? {} : parseJsonObject(bytes);
}

/** A draft's address as the wire writes it. */
function addressOf(d: { collection: string; key: string; field: string }) {
  return `${d.collection}:${d.key}:${d.field}`;
}

/**
 * The fields a publish names (`fields`, with their `versions`), checked
 * against the allowlist and `canEdit`; without `fields`, every draft the
 * editor may edit (`null`: every draft, when no `canEdit` rule applies and
 * `listAll` is not asked).
 */
async function publishRefs(
  options: DraftHandlerOptions,
  req: Request,
  editor: Editor,
  call: EndpointCall | undefined,
  body: Record<string, unknown>,
  listAll = false,
): Promise<DraftRef[] | null> {
  const versions = body.versions ?? {};
  if (
    typeof versions !== "object" || versions === null ||
    Array.isArray(versions) ||
    !Object.values(versions).every((v) => typeof v === "string")
  ) {
    throw new HttpError(Status.BadRequest, "Invalid versions");
  }
  const given = versions as Record<string, string>;
  let refs: DraftRef[] | null = null;
  if (body.fields !== undefined) {
    if (!Array.isArray(body.fields) || body.fields.length > MAX_FIELDS) {
      throw new HttpError(
        Status.BadRequest,
        `fields must be a list of at most ${MAX_FIELDS} addresses`,
      );
    }
    if (body.locale !== undefined) {
      throw new HttpError(Status.BadRequest, "Give fields or locale, not both");
    }
    refs = [];
    const seen = new Set<string>();
    for (const text of body.fields) {
      const address = allowedField(options.allowlist, text);
      if (!await mayEdit(options, req, address, editor, call)) {
        throw new HttpError(
          Status.Forbidden,
          `Not allowed to edit ${formatAddress(address)}`,
        );
      }
      const id = formatAddress(address);
      if (seen.has(id)) continue;
      seen.add(id);
      refs.push({
        collection: address.collection,
        key: address.key,
        field: fieldPath(address),
        version: Object.hasOwn(given, text as string)
          ? given[text as string]
          : undefined,
      });
    }
  } else if (options.canEdit || listAll || body.locale !== undefined) {
    // "All" is every draft this editor may edit (of one locale, if named).
    const locale = publishLocale(options, body.locale);
    refs = [];
    for (const d of await options.store.drafts()) {
      const address = parseAddress(addressOf(d));
      if (typeof address === "string") continue;
      if (
        locale !== undefined &&
        localeOfAddress(options.allowlist, address) !== locale
      ) continue;
      if (await mayEdit(options, req, address, editor, call)) {
        refs.push({ collection: d.collection, key: d.key, field: d.field });
      }
    }
  }
  return refs;
}

/** A publish body's `locale`: a declared one, or 400. */
function publishLocale(
  options: DraftHandlerOptions,
  locale: unknown,
): string | undefined {
  if (locale === undefined) return undefined;
  if (
    typeof locale !== "string" ||
    !localesOf(options.allowlist)?.locales.includes(locale)
  ) {
    throw new HttpError(Status.BadRequest, "Unknown locale");
  }
  return locale;
}

/**
 * `GET` the drafts an editor may publish:
 * 200 `{"drafts": [{"field", "at", "editor"}]}`, oldest first. Drafts of
 * fields that `canEdit` refuses to this editor are left out.
 * 403 without a session or from another site; 405 for other methods.
 *
 * @example
 * ```ts
 * import { createDraftsHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const drafts = createDraftsHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createDraftsHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "drafts",
    options,
    ["GET", "HEAD"],
    async (req, editor, call) => {
      const out: DraftsListing = { drafts: [] };
      for (const d of await options.store.drafts()) {
        const address = parseAddress(addressOf(d));
        if (typeof address === "string") continue;
        if (!await mayEdit(options, req, address, editor, call)) continue;
        out.drafts.push({ field: addressOf(d), at: d.at, editor: d.editor });
      }
      return json(Status.OK, out, { "Cache-Control": "no-store" });
    },
  );
}

/**
 * `POST` JSON `{"fields": [ADDRESS, …], "versions": {ADDRESS: VERSION}}`
 * publishes those fields' drafts; without `fields`, every draft the editor
 * may edit, or with `{"locale": "de"}` every such draft of that locale's
 * values (shared fields' drafts go only with a publish of all). All or
 * none, in one atomic store operation; each field gets a revision marked
 * published.
 *
 * - 200 {@linkcode PublishAnswer}: the addresses that went public (fields
 *   without a draft are left out).
 * - 409 {@linkcode PublishConflictBody}: a field's draft is not the
 *   `versions` entry the editor sent (another editor changed it); nothing
 *   was published.
 * - 400: malformed JSON, `fields` not a list of allowlisted addresses (at
 *   most 1000), `versions` not an object of strings, an undeclared
 *   `locale`, or `locale` with `fields`; 403 without a session,
 *   from another site, or when `canEdit` refuses a named field; 405 for
 *   other methods; 413 for a publish too large for the store.
 *
 * @example
 * ```ts
 * import { createPublishHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const publish = createPublishHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createPublishHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "publish",
    options,
    ["POST"],
    async (req, editor, call) => {
      const body = await readObject(req);
      if (body.at !== undefined) {
        return await schedulePublish(options, req, editor, call, body);
      }
      const refs = await publishRefs(options, req, editor, call, body);
      const result = await options.store.publish(refs, editor.name);
      if (result.conflicts.length) {
        const conflict: PublishConflictBody = {
          error: "conflict",
          conflicts: result.conflicts.map((c) => ({
            field: addressOf(c),
            value: c.value,
            version: c.version,
          })),
        };
        return json(Status.Conflict, conflict);
      }
      if (options.onPublish && result.published.length) {
        try {
          await options.onPublish(result.published, editor);
        } catch (err) {
          console.error("cms: onPublish failed", err);
        }
      }
      const answer: PublishAnswer = {
        published: result.published.map(addressOf),
      };
      return json(Status.OK, answer);
    },
  );
}

/**
 * `POST` JSON `{"field": ADDRESS}` drops that field's draft; the published
 * value stays. 204 (also when the field had no draft: nothing to drop);
 * 400 for malformed JSON or a malformed or non-allowlisted field; 403
 * without a session, from another site, or when `canEdit` refuses; 405 for
 * other methods.
 *
 * @example
 * ```ts
 * import { createDiscardHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const discard = createDiscardHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createDiscardHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "discard",
    options,
    ["POST"],
    async (req, editor, call) => {
      const body = await readObject(req);
      const address = allowedField(options.allowlist, body.field);
      if (!await mayEdit(options, req, address, editor, call)) {
        throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
      }
      await options.store.discard(
        address.collection,
        address.key,
        fieldPath(address),
      );
      try {
        await options.onDiscard?.(formatAddress(address), editor);
      } catch (err) {
        console.error("cms: onDiscard failed", err);
      }
      return new Response(null, { status: Status.NoContent });
    },
  );
}

/** How far in the past `at` may be (clock skew); it then fires at once. */
const PAST_SLACK_MS = 60_000;
/** How far ahead a publish may be scheduled: 10 years. */
const MAX_AHEAD_MS = 10 * 366 * 24 * 60 * 60 * 1000;

/** The store of `options` as a schedule store; 400 when it keeps none. */
function scheduleStore(options: DraftHandlerOptions) {
  const { store } = options;
  if (!isScheduleStore(store)) {
    throw new HttpError(
      Status.BadRequest,
      "This site's store does not keep schedules",
    );
  }
  return store;
}

/**
 * `at` of a scheduling publish: an ISO 8601 date-time with a zone (`Z` or
 * `±hh:mm`), no more than a minute past and at most ten years ahead.
 */
function parseAt(value: unknown, now: number): Date {
  if (
    typeof value !== "string" ||
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/i
      .test(value) ||
    Number.isNaN(Date.parse(value))
  ) {
    throw new HttpError(
      Status.BadRequest,
      "at must be an ISO 8601 time with a zone, e.g. 2030-01-01T09:00:00Z",
    );
  }
  const at = Date.parse(value);
  if (at < now - PAST_SLACK_MS) {
    throw new HttpError(Status.BadRequest, "at is in the past");
  }
  if (at > now + MAX_AHEAD_MS) {
    throw new HttpError(Status.BadRequest, "at is more than 10 years ahead");
  }
  return new Date(at);
}

/** A schedule as the wire lists it. */
function scheduleEntry(s: Schedule): ScheduleEntry {
  const entry: ScheduleEntry = {
    id: s.id,
    at: s.at,
    fields: s.fields.map(addressOf),
    editor: s.editor,
    created: s.created,
    state: s.failed ? "failed" : "pending",
  };
  if (s.failed) {
    entry.reason = s.failed.reason;
    if (s.failed.conflicts) entry.conflicts = s.failed.conflicts;
  }
  return entry;
}

/** Whether `canEdit` lets `editor` change every field of a schedule. */
async function mayEditAll(
  options: DraftHandlerOptions,
  req: Request,
  s: Schedule,
  editor: Editor,
  call: EndpointCall | undefined,
): Promise<boolean> {
  for (const ref of s.fields) {
    const address = parseAddress(addressOf(ref));
    if (typeof address === "string") return false;
    if (!await mayEdit(options, req, address, editor, call)) return false;
  }
  return true;
}

/** The `at` branch of the publish endpoint: 202 {@linkcode ScheduleAnswer}. */
async function schedulePublish(
  options: DraftHandlerOptions,
  req: Request,
  editor: Editor,
  call: EndpointCall | undefined,
  body: Record<string, unknown>,
): Promise<Response> {
  const store = scheduleStore(options);
  const now = Date.now();
  const at = parseAt(body.at, now);
  const refs = await publishRefs(options, req, editor, call, body, true);
  if (!refs?.length) {
    throw new HttpError(Status.BadRequest, "No drafts to schedule");
  }
  const schedule: Schedule = {
    id: crypto.randomUUID(),
    at: at.toISOString(),
    // JSON stores drop `version: undefined`; leave it out everywhere.
    fields: refs.map(({ version, ...ref }) =>
      version === undefined ? ref : { ...ref, version }
    ),
    editor: editor.name,
    created: new Date(now).toISOString(),
  };
  await store.addSchedule(schedule);
  options.scheduler?.wake();
  const answer: ScheduleAnswer = {
    id: schedule.id,
    at: schedule.at,
    fields: schedule.fields.map(addressOf),
  };
  return json(SCHEDULED, answer);
}

/**
 * `GET /api/cms/schedule`: 200 {@linkcode ScheduleListing}, the pending
 * and failed schedules whose every field `canEdit` lets this editor change,
 * soonest first. 400 when the store keeps no schedules; 403 without a
 * session or from another site; 405 for other methods.
 *
 * @example
 * ```ts
 * import { createScheduleHandler, MemoryContentStore } from "@inplace/cms";
 * const schedule = createScheduleHandler({
 *   authorize: (req) =>
 *     req.headers.get("Cookie")?.includes("session=ok") ? { name: "Ada" } : null,
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createScheduleHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "schedule",
    options,
    ["GET", "HEAD"],
    async (req, editor, call) => {
      const store = scheduleStore(options);
      const out: ScheduleListing = { schedules: [] };
      for (const s of await store.schedules()) {
        if (await mayEditAll(options, req, s, editor, call)) {
          out.schedules.push(scheduleEntry(s));
        }
      }
      return json(Status.OK, out, { "Cache-Control": "no-store" });
    },
  );
}

/**
 * `POST /api/cms/schedule/cancel` with JSON `{"id": ID}` removes a pending
 * schedule (or dismisses a failed one): 204. 404 when there is no such
 * schedule (it fired, or was cancelled); 403 when `canEdit` refuses one of
 * its fields, without a session or from another site; 400 for a malformed
 * body; 405 for other methods.
 *
 * @example
 * ```ts
 * import { createCancelScheduleHandler, MemoryContentStore } from "@inplace/cms";
 * const cancel = createCancelScheduleHandler({
 *   authorize: (req) =>
 *     req.headers.get("Cookie")?.includes("session=ok") ? { name: "Ada" } : null,
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createCancelScheduleHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "schedule_cancel",
    options,
    ["POST"],
    async (req, editor, call) => {
      const store = scheduleStore(options);
      const body = await readObject(req);
      if (typeof body.id !== "string" || !/^[\w-]{1,100}$/.test(body.id)) {
        throw new HttpError(Status.BadRequest, "id must be a schedule id");
      }
      const found = (await store.schedules()).find((s) => s.id === body.id);
      if (!found) throw new HttpError(404, "No such schedule");
      if (!await mayEditAll(options, req, found, editor, call)) {
        throw new HttpError(Status.Forbidden, "Not allowed to edit its fields");
      }
      if (!await store.cancelSchedule(found.id)) {
        throw new HttpError(404, "No such schedule");
      }
      return new Response(null, { status: Status.NoContent });
    },
  );
}
