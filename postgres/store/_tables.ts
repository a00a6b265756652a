/**
 * The tables of the PostgreSQL store and what every part of it shares:
 * their names, creating them, running a query (text PostgreSQL cannot hold
 * becomes a 400 error) and retrying a transaction that lost a race.
 *
 * @module
 */
import type postgres from "postgres";
import { backoff, type Retention } from "../../server/store/mod.ts";

/** A `postgres` client. */
export type Sql = postgres.Sql;
/** A `postgres` transaction. */
export type Tx = postgres.TransactionSql;

/** What every part of the PostgreSQL store works on. */
export interface PgAt {
  /** The client. */
  sql: Sql;
  /** Table of records: one row per record. */
  records: string;
  /** Table of revisions: one row per revision. */
  revisions: string;
  /** Table of drafts: one row per drafted field. */
  drafts: string;
  /** Table of schedules: one row per schedule. */
  schedules: string;
  /** Table of comments: one row per comment. */
  comments: string;
  /** Table of review verdicts: one row per verdict. */
  approvals: string;
  /** How many times a write tries before it gives up. */
  maxAttempts: number;
  /** How long history is kept (`undefined`: everything). */
  retention: Retention | undefined;
}

/**
 * Thrown when PostgreSQL cannot store a text, e.g. one with a NUL character.
 * Nothing is written. A save handler answers it with 400.
 */
export class UnstorableTextError extends Error {
  /** The HTTP status that fits this error. */
  readonly status = 400;
  /** Creates the error; `message` defaults to "text cannot be stored". */
  constructor(message = "text cannot be stored", options?: ErrorOptions) {
    super(message, options);
    this.name = "UnstorableTextError";
  }
}

/** Marks a transaction that lost a race and must be retried. */
export const RETRY: unique symbol = Symbol("retry");

/** Runs a query, mapping text PostgreSQL cannot hold to a 400 error. */
export async function run<T>(
  at: PgAt,
  query: (sql: Sql) => Promise<T>,
): Promise<T> {
  try {
    return await query(at.sql);
  } catch (err) {
    const code = (err as { code?: unknown })?.code;
    if (code === "22021" || code === "22P05") {
      throw new UnstorableTextError("text cannot be stored", { cause: err });
    }
    throw err;
  }
}

/**
 * Runs `attempt` until it answers (or throws) something other than
 * {@linkcode RETRY}, with a jittered backoff in between; throws
 * "PostgreSQL `what` lost N races" after `maxAttempts`.
 */
export async function retry<T>(
  at: PgAt,
  what: string,
  attempt: () => Promise<T | typeof RETRY>,
): Promise<T> {
  for (let n = 1; n <= at.maxAttempts; n++) {
    try {
      const result = await attempt();
      if (result !== RETRY) return result;
    } catch (err) {
      if (err !== RETRY) throw err;
    }
    await backoff(n);
  }
  throw new Error(
    `PostgreSQL ${what} lost ${at.maxAttempts} races; giving up`,
  );
}

/** Creates the tables when missing (serialized across instances by a lock). */
export async function createTables(at: PgAt): Promise<void> {
  await run(at, (sql) =>
    sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext(${at.records}))`;
      await tx`CREATE TABLE IF NOT EXISTS ${tx(at.records)} (
          collection text NOT NULL,
          key text NOT NULL,
          record jsonb NOT NULL,
          version bigint NOT NULL,
          PRIMARY KEY (collection, key))`;
      await tx`CREATE TABLE IF NOT EXISTS ${tx(at.revisions)} (
          id text PRIMARY KEY,
          collection text NOT NULL,
          key text NOT NULL,
          field text NOT NULL,
          seq bigint NOT NULL,
          at text NOT NULL,
          editor text,
          value jsonb NOT NULL,
          bytes integer NOT NULL,
          published text,
          UNIQUE (collection, key, field, seq))`;
      await tx`CREATE TABLE IF NOT EXISTS ${tx(at.drafts)} (
          collection text NOT NULL,
          key text NOT NULL,
          field text NOT NULL,
          value jsonb NOT NULL,
          at text NOT NULL,
          editor text NOT NULL,
          PRIMARY KEY (collection, key, field))`;
      await tx`CREATE TABLE IF NOT EXISTS ${tx(at.schedules)} (
          id text PRIMARY KEY,
          at timestamptz NOT NULL,
          failed boolean NOT NULL DEFAULT false,
          schedule jsonb NOT NULL)`;
      // The due ones and the pages are read by time.
      await tx`CREATE INDEX IF NOT EXISTS ${tx(`${at.schedules}_at`)} ON ${
        tx(at.schedules)
      } (at, id COLLATE "C")`;
      await tx`CREATE TABLE IF NOT EXISTS ${tx(at.comments)} (
          id text PRIMARY KEY,
          page text NOT NULL,
          thread text NOT NULL,
          created timestamptz NOT NULL,
          comment jsonb NOT NULL)`;
      // A page's comments, and a thread's, are read by page.
      await tx`CREATE INDEX IF NOT EXISTS ${tx(`${at.comments}_page`)} ON ${
        tx(at.comments)
      } (page, thread)`;
      await tx`CREATE TABLE IF NOT EXISTS ${tx(at.approvals)} (
          page text NOT NULL,
          id text NOT NULL,
          at timestamptz NOT NULL,
          approval jsonb NOT NULL,
          PRIMARY KEY (page, id))`;
    }));
}
