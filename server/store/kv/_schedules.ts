/**
 * Schedules in Deno KV, one entry per schedule. Firing one is ONE atomic
 * commit that checks the schedule entry (so only one instance's commit can
 * succeed) with the publish it makes.
 *
 * @module
 */
import {
  bySchedule,
  checkSchedule,
  failureOf,
  isDue,
  type Schedule,
  type ScheduleFiring,
} from "../schedule.ts";
import { PublishTooLargeError } from "./_errors.ts";
import {
  AGAIN,
  commit,
  type KvAt,
  listAll,
  retry,
  SCHEDULES,
} from "./_layout.ts";
import { pruneAll } from "./_history.ts";
import { commitPublish, type KvPublish, planKvPublish } from "./_publish.ts";

/** The key of a schedule. */
function scheduleKey(at: KvAt, id: string): Deno.KvKey {
  return [...at.prefix, SCHEDULES, id];
}

/** Stores a new pending schedule (refused when its id is taken). */
export async function addSchedule(at: KvAt, schedule: Schedule): Promise<void> {
  const s = checkSchedule(schedule);
  const key = scheduleKey(at, s.id);
  const op = at.kv.atomic().check({ key, versionstamp: null }).set(key, s);
  if (!await commit(op)) throw new Error("schedule id taken");
}

/** Every pending and failed schedule, soonest first. */
export async function schedules(at: KvAt): Promise<Schedule[]> {
  const found = await listAll<Schedule>(at, [...at.prefix, SCHEDULES]);
  return found.map((e) => e.value).sort(bySchedule);
}

/** Removes a pending or failed schedule; `false` when there is none. */
export function cancelSchedule(at: KvAt, id: string): Promise<boolean> {
  const key = scheduleKey(at, id);
  return retry(at, "cancel", async () => {
    const entry = await at.kv.get<Schedule>(key);
    if (entry.value === null) return false;
    return await commit(at.kv.atomic().check(entry).delete(key)) ? true : AGAIN;
  });
}

/**
 * Fires schedule `id` if pending and due: ONE atomic commit checks the
 * schedule entry and every record and drafts entry it read, publishes, and
 * removes the schedule (or marks it failed when it cannot publish).
 */
export function fireSchedule(
  at: KvAt,
  id: string,
  now: number,
): Promise<ScheduleFiring | null> {
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
      ? at.kv.atomic().check(entry).set(key, { ...schedule, failed })
      : planned!.op.check(entry).delete(key);
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
