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
      const body = await readDraftBody(req);
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
