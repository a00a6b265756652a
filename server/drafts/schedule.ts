/**
 * Scheduled publishes: the `at` branch of the publish endpoint
 * ({@linkcode schedulePublish}), the schedule listing
 * (`GET /api/cms/schedule`) and its cancel endpoint
 * (`POST /api/cms/schedule/cancel`). The `Scheduler` that fires them is
 * in `scheduler.ts`.
 *
 * @module
 */
import { parseAddress } from "../../core/address.ts";
import { storedAddress } from "../../core/stored_address.ts";
import {
  type ScheduleAnswer,
  SCHEDULED,
  type ScheduleEntry,
  type ScheduleListing,
  Status,
} from "../../core/protocol/mod.ts";
import {
  type Editor,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
} from "../http/mod.ts";
import { isScheduleStore, type Schedule } from "../store/mod.ts";
import {
  draftEndpoint,
  type DraftHandlerOptions,
  mayEdit,
  publishRefs,
  readDraftBody,
} from "./_shared.ts";

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

/** The most schedules (pending and failed) one site keeps. */
export const MAX_SCHEDULES = 500;
/** The most fields one schedule publishes. */
export const MAX_SCHEDULE_FIELDS = 100;
/** The most schedules one page of `GET /api/cms/schedule` lists. */
const PAGE = 100;

/** An ISO 8601 date-time with a zone, its parts captured. */
const ISO_AT =
  /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.\d{1,9})?)?(?:Z|[+-](\d\d):(\d\d))$/i;

/** Whether the parts of an {@linkcode ISO_AT} match name a real time. */
function isRealTime(parts: RegExpExecArray): boolean {
  const [, y, mo, d, h, mi, s, zh, zm] = parts.map((x) => Number(x ?? 0));
  // Day 0 of the next month is the last day of this one (years < 100 map
  // to 19xx here; they are long past, and refused as such).
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h <= 23 &&
    mi <= 59 && s <= 59 && zh <= 23 && zm <= 59;
}

/**
 * `at` of a scheduling publish: an ISO 8601 date-time with a zone (`Z` or
 * `±hh:mm`) that names a real time (no February 30, no 24:00), no more
 * than a minute past and at most ten years ahead.
 */
function parseAt(value: unknown, now: number): Date {
  const parts = typeof value === "string" ? ISO_AT.exec(value) : null;
  if (!parts || Number.isNaN(Date.parse(value as string))) {
    throw new HttpError(
      Status.BadRequest,
      "at must be an ISO 8601 time with a zone, e.g. 2030-01-01T09:00:00Z",
    );
  }
  if (!isRealTime(parts)) {
    throw new HttpError(
      Status.BadRequest,
      `at is not a real date and time: ${value}`,
    );
  }
  const at = Date.parse(value as string);
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
    fields: s.fields.map(storedAddress),
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

/**
 * The page `?cursor=&limit=` asks for: `limit` 1–100 (default 100), and
 * `cursor` the `next` of the page before; 400 for anything else.
 */
function listingPage(params: URLSearchParams) {
  const limitText = params.get("limit");
  const limit = limitText === null ? PAGE : Number(limitText);
  if (!/^\d{1,3}$/.test(limitText ?? "1") || limit < 1 || limit > PAGE) {
    throw new HttpError(
      Status.BadRequest,
      `limit must be a whole number from 1 to ${PAGE}`,
    );
  }
  const cursor = params.get("cursor");
  if (cursor === null) return { limit };
  const m = /^(\d{1,15})_([\w-]{1,100})$/.exec(cursor);
  const ms = m ? Number(m[1]) : NaN;
  if (!m || Number.isNaN(new Date(ms).getTime())) {
    throw new HttpError(
      Status.BadRequest,
      "cursor must be the next of an earlier page",
    );
  }
  return { limit, after: { at: new Date(ms).toISOString(), id: m[2] } };
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
    const address = parseAddress(storedAddress(ref));
    if (typeof address === "string") return false;
    if (!await mayEdit(options, req, address, editor, call)) return false;
  }
  return true;
}

/**
 * The `at` branch of the publish endpoint (`publish.ts`): a schedule of
 * the drafts the body names (as a publish would), to fire at `at`.
 * 202 {@linkcode ScheduleAnswer}; 400 for a bad `at`, no drafts, or a
 * store that keeps no schedules.
 */
export async function schedulePublish(
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
  if (refs.length > MAX_SCHEDULE_FIELDS) {
    throw new HttpError(
      Status.ContentTooLarge,
      `A schedule publishes at most ${MAX_SCHEDULE_FIELDS} fields; this one has ${refs.length}`,
    );
  }
  if (await store.scheduleCount() >= MAX_SCHEDULES) {
    throw new HttpError(
      Status.Conflict,
      `This site already keeps ${MAX_SCHEDULES} schedules, the most it may; cancel or dismiss some first`,
    );
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
    fields: schedule.fields.map(storedAddress),
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
      const { after, limit } = listingPage(new URL(req.url).searchParams);
      const page = await store.schedules({ after, limit });
      const out: ScheduleListing = { schedules: [] };
      for (const s of page) {
        if (await mayEditAll(options, req, s, editor, call)) {
          out.schedules.push(scheduleEntry(s));
        }
      }
      const last = page.at(-1);
      if (page.length === limit && last) {
        out.next = `${Date.parse(last.at)}_${last.id}`;
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
      const body = await readDraftBody(req);
      if (typeof body.id !== "string" || !/^[\w-]{1,100}$/.test(body.id)) {
        throw new HttpError(Status.BadRequest, "id must be a schedule id");
      }
      const found = await store.schedule(body.id);
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
