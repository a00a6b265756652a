/**
 * Schedules in Deno KV, one entry per schedule, and an index by time (one
 * small entry per schedule, keyed by its time and id, whose value says
 * whether it failed) that pages and the due ones are read from. Firing one
 * is ONE atomic commit that checks the schedule entry (so only one
 * instance's commit can succeed) with the publish it makes; every change
 * of a schedule changes its index entry in the same commit.
 *
 * @module
 */
import {
  checkSchedule,
  failureOf,
  isDue,
  type Schedule,
  type ScheduleFailure,
  type ScheduleFiring,
  type ScheduleQuery,
} from "../schedule.ts";
import { PublishTooLargeError } from "./_errors.ts";
import {
  AGAIN,
  commit,
  type KvAt,
  listAll,
  reading,
  retry,
  SCHEDULES,
} from "./_layout.ts";
import { pruneAll } from "./_history.ts";
import { commitPublish, type KvPublish, planKvPublish } from "./_publish.ts";

/** Key part of the index by time (a string: apart from the numbered parts). */
const BY_TIME = "schedule_at";
/** Key part of the mark that the index holds every schedule. */
const INDEXED = "schedule_at_built";

/** The key of a schedule. */
function scheduleKey(at: KvAt, id: string): Deno.KvKey {
  return [...at.prefix, SCHEDULES, id];
}

/** The index key of a schedule: its time in ms, then its id. */
function timeKey(at: KvAt, s: { at: string; id: string }): Deno.KvKey {
  return [...at.prefix, BY_TIME, Date.parse(s.at), s.id];
}

/** Sets a schedule and its index entry in `op`. */
function put(at: KvAt, op: Deno.AtomicOperation, s: Schedule) {
  return op.set(scheduleKey(at, s.id), s).set(timeKey(at, s), !!s.failed);
}

/** Deletes a schedule and its index entry in `op`. */
function drop(at: KvAt, op: Deno.AtomicOperation, s: Schedule) {
  return op.delete(scheduleKey(at, s.id)).delete(timeKey(at, s));
}

/** Stores made before the index have their schedules indexed, once. */
const built = new WeakMap<Deno.Kv, Map<string, Promise<void>>>();

/** Indexes the schedules stored before the index existed (once per KV). */
function indexed(at: KvAt): Promise<void> {
  const byPrefix = built.get(at.kv) ?? new Map<string, Promise<void>>();
  built.set(at.kv, byPrefix);
  const name = JSON.stringify(at.prefix);
  let done = byPrefix.get(name);
  if (!done) {
    done = buildIndex(at).catch((err) => {
      byPrefix.delete(name);
      throw err;
    });
    byPrefix.set(name, done);
  }
  return done;
}

async function buildIndex(at: KvAt): Promise<void> {
  const mark = [...at.prefix, INDEXED];
  if ((await reading(() => at.kv.get(mark))).value) return;
  const all = await listAll<Schedule>(at, [...at.prefix, SCHEDULES]);
  for (const e of all) {
    await commit(
      at.kv.atomic().check(e).set(timeKey(at, e.value), !!e.value.failed),
    );
  }
  await commit(at.kv.atomic().set(mark, true));
}

/** Stores a new pending schedule (refused when its id is taken). */
export async function addSchedule(at: KvAt, schedule: Schedule): Promise<void> {
  const s = checkSchedule(schedule);
  await indexed(at);
  const key = scheduleKey(at, s.id);
  const op = put(at, at.kv.atomic().check({ key, versionstamp: null }), s);
  if (!await commit(op)) throw new Error("schedule id taken");
}

/** The schedules `query` selects, soonest first, read through the index. */
export async function schedules(
  at: KvAt,
  query: ScheduleQuery = {},
): Promise<Schedule[]> {
  await indexed(at);
  const { dueBy, after, limit = Infinity } = query;
  const pending = query.pending || dueBy !== undefined;
  const prefix = [...at.prefix, BY_TIME];
  // Just after `after` (a longer key sorts after its prefix); up to dueBy.
  const start = after ? [...timeKey(at, after), ""] : undefined;
  const end = dueBy !== undefined
    ? [...prefix, Math.floor(dueBy) + 1]
    : undefined;
  const selector: Deno.KvListSelector = start && end
    ? { start, end }
    : start
    ? { prefix, start }
    : end
    ? { prefix, end }
    : { prefix };
  const out: Schedule[] = [];
  const iter = at.kv.list<boolean>(selector, { batchSize: 100 });
  let ids: string[] = [];
  const flush = async () => {
    const got = await reading(() =>
      at.kv.getMany<Schedule[]>(ids.map((id) => scheduleKey(at, id)))
    );
    for (const e of got) if (e.value) out.push(e.value);
    ids = [];
  };
  await reading(async () => {
    for await (const e of iter) {
      if (pending && e.value) continue;
      ids.push(e.key[e.key.length - 1] as string);
      if (ids.length === 10) await flush();
      if (out.length + ids.length >= limit) break;
    }
  });
  if (ids.length) await flush();
  return out.slice(0, limit);
}

/** Schedule `id`, pending or failed; `null` when there is none. */
export async function getSchedule(
  at: KvAt,
  id: string,
): Promise<Schedule | null> {
  return (await reading(() => at.kv.get<Schedule>(scheduleKey(at, id)))).value;
}

/** How many schedules are kept (counted on the index's small entries). */
export async function scheduleCount(at: KvAt): Promise<number> {
  await indexed(at);
  return (await listAll(at, [...at.prefix, BY_TIME])).length;
}

/** Removes a pending or failed schedule; `false` when there is none. */
export async function cancelSchedule(at: KvAt, id: string): Promise<boolean> {
  await indexed(at);
  const key = scheduleKey(at, id);
  return retry(at, "cancel", async () => {
    const entry = await at.kv.get<Schedule>(key);
    if (entry.value === null) return false;
    const op = drop(at, at.kv.atomic().check(entry), entry.value);
    return await commit(op) ? true : AGAIN;
  });
}

/** Marks pending schedule `id` failed; `null` when it is not pending. */
export async function failSchedule(
  at: KvAt,
  id: string,
  failure: ScheduleFailure,
): Promise<Schedule | null> {
  await indexed(at);
  const key = scheduleKey(at, id);
  return retry(at, "schedule", async () => {
    const entry = await at.kv.get<Schedule>(key);
    if (!entry.value || entry.value.failed) return null;
    const next = { ...entry.value, failed: failure };
    return await commit(put(at, at.kv.atomic().check(entry), next))
      ? next
      : AGAIN;
  });
}

/**
 * Fires schedule `id` if pending and due: ONE atomic commit checks the
 * schedule entry and every record and drafts entry it read, publishes, and
 * removes the schedule (or marks it failed when it cannot publish).
 */
export async function fireSchedule(
  at: KvAt,
  id: string,
  now: number,
): Promise<ScheduleFiring | null> {
  await indexed(at);
  const key = scheduleKey(at, id);
  return retry(at, "schedule", async () => {
    const entry = await at.kv.get<Schedule>(key);
    const schedule = entry.value;
    if (!schedule || !isDue(schedule, now)) return null;
    const planned = await planOrTooLarge(at, schedule);
    const failed = planned
      ? failureOf(planned.result)
      : { at: new Date().toISOString(), reason: "Too many fields" };
    const result = planned && !failed
      ? planned.result
      : { published: [], conflicts: planned?.result.conflicts ?? [] };
    const op = failed
      ? put(at, at.kv.atomic().check(entry), { ...schedule, failed })
      : drop(at, planned!.op.check(entry), schedule);
    if (!await (failed ? commit(op) : commitPublish(at, planned!, op))) {
      return AGAIN;
    }
    if (!failed) await pruneAll(at, planned!.pruned);
    return { schedule, result, failed };
  });
}

/** The schedule's publish, planned; `null` when it is too large for KV. */
async function planOrTooLarge(
  at: KvAt,
  schedule: Schedule,
): Promise<KvPublish | null> {
  try {
    return await planKvPublish(at, schedule.fields, schedule.editor);
  } catch (err) {
    if (!(err instanceof PublishTooLargeError)) throw err;
    return null;
  }
}
