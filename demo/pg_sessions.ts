/**
 * The demo's session storage on PostgreSQL, for several instances on one
 * database: the three Deno KV calls `Sessions` makes (`get`, `set` with
 * `expireIn`, `delete`), over a table of its own.
 *
 * @module
 */
import type postgres from "postgres";

/**
 * A Deno-KV-shaped key-value table in PostgreSQL (`<table>`: key as JSON
 * text, value as `jsonb`, optional expiry). It creates its table on first
 * use. Enough for `new Sessions(kv)`; not a general KV.
 *
 * @example
 * ```ts ignore
 * import postgres from "postgres";
 * import { PostgresSessionKv } from "./pg_sessions.ts";
 * import { Sessions } from "./session.ts";
 * const sql = postgres("postgres://cms@127.0.0.1/cms");
 * const sessions = new Sessions(new PostgresSessionKv(sql));
 * ```
 */
export class PostgresSessionKv {
  readonly #sql: postgres.Sql;
  readonly #table: string;
  #ready: Promise<void> | null = null;

  /** @param sql A `postgres` client (the caller ends it). */
  constructor(sql: postgres.Sql, table = "demo_sessions") {
    this.#sql = sql;
    this.#table = table;
  }

  /** The live value under `key`, Deno KV style. */
  async get<T = unknown>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
    await this.#init();
    const sql = this.#sql;
    const rows = await sql`SELECT value, md5(value::text) AS stamp
      FROM ${sql(this.#table)}
      WHERE key = ${JSON.stringify(key)}
        AND (expires_at IS NULL OR expires_at > now())`;
    return rows.length
      ? { key, value: rows[0].value as T, versionstamp: rows[0].stamp }
      : { key, value: null, versionstamp: null };
  }

  /**
   * Stores `value` under `key` (no expiry) only while the entry's
   * versionstamp (a digest of its value) is still `versionstamp`, or, for
   * `null`, while there is no entry; resolves whether it wrote.
   */
  async setIf(
    key: Deno.KvKey,
    value: unknown,
    versionstamp: string | null,
  ): Promise<boolean> {
    await this.#init();
    const sql = this.#sql;
    const k = JSON.stringify(key);
    const v = sql.json(value as postgres.JSONValue);
    const rows = versionstamp === null
      ? await sql`INSERT INTO ${sql(this.#table)} (key, value, expires_at)
          VALUES (${k}, ${v}, NULL)
          ON CONFLICT (key) DO UPDATE
            SET value = EXCLUDED.value, expires_at = NULL
            WHERE ${sql(this.#table)}.expires_at <= now()
          RETURNING key`
      : await sql`UPDATE ${sql(this.#table)}
          SET value = ${v}, expires_at = NULL
          WHERE key = ${k} AND md5(value::text) = ${versionstamp}
          RETURNING key`;
    return rows.length === 1;
  }

  /** Stores `value` under `key`, expiring after `expireIn` ms if given. */
  async set(
    key: Deno.KvKey,
    value: unknown,
    options: { expireIn?: number } = {},
  ): Promise<Deno.KvCommitResult> {
    await this.#init();
    const sql = this.#sql;
    const expires = options.expireIn === undefined
      ? null
      : new Date(Date.now() + options.expireIn);
    await sql`INSERT INTO ${sql(this.#table)} (key, value, expires_at)
      VALUES (${JSON.stringify(key)}, ${sql.json(value as postgres.JSONValue)},
        ${expires})
      ON CONFLICT (key) DO UPDATE
        SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`;
    return { ok: true, versionstamp: "1" };
  }

  /** Removes `key` (and, on the way, sessions that expired). */
  async delete(key: Deno.KvKey): Promise<void> {
    await this.#init();
    const sql = this.#sql;
    await sql`DELETE FROM ${sql(this.#table)}
      WHERE key = ${JSON.stringify(key)} OR expires_at <= now()`;
  }

  #init(): Promise<void> {
    const sql = this.#sql;
    this.#ready ??= sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext(${this.#table}))`;
      await tx`CREATE TABLE IF NOT EXISTS ${tx(this.#table)} (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        expires_at timestamptz)`;
    }).then(() => {}, (err) => {
      this.#ready = null;
      throw err;
    });
    return this.#ready;
  }
}
