/**
 * Schedules in PostgreSQL, one row per schedule. Firing one claims its row
 * with `FOR UPDATE SKIP LOCKED` and publishes in the same transaction.
 *
 * @module
 */
import type postgres from "postgres";
import {
  bySchedule,
  checkSchedule,
  failureOf,
  type Schedule,
  type ScheduleFailure,
  type ScheduleFiring,
  type ScheduleQuery,
} from "../../server/store/mod.ts";
import { type PgAt, run } from "./_tables.ts";
import { publishIn } from "./_publish.ts";

/** Stores a new pending schedule. */
export async function addSchedule(at: PgAt, schedule: Schedule): Promise<void> {
  const s = checkSchedule(schedule);
  await run(at, (sql) =>
    sql`INSERT INTO ${sql(at.schedules)} (id, at, schedule)
        VALUES (${s.id}, ${new Date(s.at)}, ${
      sql.json(s as unknown as postgres.JSONValue)
    })`);
}

/**
 * The schedules `query` selects, soonest first (then by id, byte order as
 * JavaScript compares), read through the `(at, id)` index.
 */
export async function schedules(
  at: PgAt,
  query: ScheduleQuery = {},
): Promise<Schedule[]> {
  const { dueBy, after, limit } = query;
  const pending = query.pending || dueBy !== undefined;
  const rows = await run(
    at,
    (sql) =>
      sql`SELECT schedule FROM ${sql(at.schedules)}
        WHERE true ${pending ? sql`AND NOT failed` : sql``}
        ${dueBy !== undefined ? sql`AND at <= ${new Date(dueBy)}` : sql``}
        ${
        after
          ? sql`AND (at, id COLLATE "C") > (${new Date(after.at)}, ${after.id})`
          : sql``
      }
        ORDER BY at, id COLLATE "C"
        ${limit !== undefined ? sql`LIMIT ${limit}` : sql``}`,
  );
  return rows.map((r) => r.schedule as Schedule).sort(bySchedule);
}

/** Schedule `id`, pending or failed; `null` when there is none. */
export async function getSchedule(
  at: PgAt,
  id: string,
): Promise<Schedule | null> {
  const rows = await run(
    at,
    (sql) => sql`SELECT schedule FROM ${sql(at.schedules)} WHERE id = ${id}`,
  );
  return rows.length ? rows[0].schedule as Schedule : null;
}

/** How many schedules are kept. */
export async function scheduleCount(at: PgAt): Promise<number> {
  const rows = await run(
    at,
    (sql) => sql`SELECT count(*)::int AS n FROM ${sql(at.schedules)}`,
  );
  return rows[0].n as number;
}

/** Marks pending schedule `id` failed; `null` when it is not pending. */
export async function failSchedule(
  at: PgAt,
  id: string,
  failure: ScheduleFailure,
): Promise<Schedule | null> {
  const rows = await run(at, (sql) =>
    sql`UPDATE ${sql(at.schedules)}
        SET failed = true, schedule = schedule || ${
      sql.json({ failed: failure } as unknown as postgres.JSONValue)
    }
        WHERE id = ${id} AND NOT failed RETURNING schedule`);
  return rows.length ? rows[0].schedule as Schedule : null;
}

/** Removes a pending or failed schedule; `false` when there is none. */
export async function cancelSchedule(at: PgAt, id: string): Promise<boolean> {
  const gone = await run(
    at,
    (sql) => sql`DELETE FROM ${sql(at.schedules)} WHERE id = ${id}`,
  );
  return gone.count > 0;
}

/**
 * One attempt to fire schedule `id` if pending and due, in one
 * transaction: the row is claimed (an instance that finds it locked leaves
 * it to the one firing it), the publish runs, and the row is deleted (or
 * marked failed) before the commit.
 */
export function fireOnce(
  at: PgAt,
  id: string,
  now: number,
): Promise<ScheduleFiring | null> {
  return run(at, (sql) =>
    sql.begin(async (tx) => {
      const rows = await tx`SELECT schedule FROM ${tx(at.schedules)}
              WHERE id = ${id} AND NOT failed AND at <= ${new Date(now)}
              FOR UPDATE SKIP LOCKED`;
      if (!rows.length) return null;
      const schedule = rows[0].schedule as Schedule;
      const result = await publishIn(
        at,
        tx,
        schedule.fields,
        schedule.editor,
      );
      const failed = failureOf(result);
      if (failed) {
        const next = { ...schedule, failed };
        await tx`UPDATE ${tx(at.schedules)}
                SET failed = true,
                  schedule = ${tx.json(next as unknown as postgres.JSONValue)}
                WHERE id = ${id}`;
      } else {
        await tx`DELETE FROM ${tx(at.schedules)} WHERE id = ${id}`;
      }
      return { schedule, result, failed };
    }));
}
