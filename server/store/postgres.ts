/**
 * A {@linkcode HistoryStore} over PostgreSQL (the `postgres` npm package),
 * for sites that run several instances on a database they already operate.
 *
 * @module
 */
import postgres from "postgres";
import type {
  ContentRecord,
  HistoryStore,
  Retention,
  Revision,
  RevisionInput,
  StoreLine,
} from "../types.ts";
import {
  checkRetention,
  checkRevision,
  expired,
  newRevisions,
} from "./revision.ts";
import { RecordQueue } from "./queue.ts";

/** Options of {@linkcode PostgresContentStore}. */
export interface PostgresContentStoreOptions {
  /**
   * Table name prefix: tables `<prefix>_records` and `<prefix>_revisions`.
   * Lowercase letters, digits and `_`. Default `"cms"`.
   */
  prefix?: string;
  /** How many times `update` tries before it gives up. Default 64. */
  maxAttempts?: number;
  /** How long history is kept. Default: everything. */
  retention?: Retention;
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

type Sql = postgres.Sql;
type Tx = postgres.TransactionSql;

/** Marks a transaction that lost a race and must be retried. */
const RETRY = Symbol("retry");

/**
 * Content in PostgreSQL: one row per record (`jsonb`, with a `version`
 * counter) and one row per revision. It creates its tables on first use.
 *
 * `update` runs in one transaction: it reads the record and its version
 * (`SELECT … FOR UPDATE`, so other instances wait instead of racing), runs
 * `mutate`, and writes only if the version is still the one it read
 * (`UPDATE … WHERE version = $read`, or an `INSERT` that finds no row). A
 * writer that lost the race (two first inserts) rolls back and retries on a
 * fresh read, so concurrent saves from any number of instances never lose an
 * update. The revision is inserted in the same transaction while the record
 * row is locked, so a field's revision numbers follow its writes.
 *
 * @example
 * ```ts ignore
 * import { PostgresContentStore } from "@inplace/cms";
 * const store = PostgresContentStore.connect("postgres://cms@127.0.0.1/cms");
 * await store.update("pages", "home", (r) => ({ ...r, title: "Hello" }), {
 *   field: "title",
 *   editor: "Ada",
 * });
 * (await store.revisions("pages", "home", "title"))[0].value; // "Hello"
 * await store.close();
 * ```
 */
export class PostgresContentStore implements HistoryStore {
  readonly #sql: Sql;
  readonly #records: string;
  readonly #revisions: string;
  readonly #maxAttempts: number;
  readonly #retention: Retention | undefined;
  readonly #queue = new RecordQueue();
  #ready: Promise<void> | null = null;

  /** Wraps a `postgres` client; `close()` ends it. */
  constructor(sql: Sql, options: PostgresContentStoreOptions = {}) {
    const prefix = options.prefix ?? "cms";
    if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
      throw new RangeError("prefix: lowercase letters, digits and _ only");
    }
    checkRetention(options.retention);
    this.#sql = sql;
    this.#records = `${prefix}_records`;
    this.#revisions = `${prefix}_revisions`;
    this.#maxAttempts = options.maxAttempts ?? 64;
    this.#retention = options.retention;
  }

  /** Connects to `url` (`postgres://user:pass@host:port/db`); `close()` ends it. */
  static connect(
    url: string,
    options: PostgresContentStoreOptions & { max?: number } = {},
  ): PostgresContentStore {
    const sql = postgres(url, { max: options.max ?? 10, onnotice: () => {} });
    return new PostgresContentStore(sql, options);
  }

  /** Ends the client's connections. */
  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 });
  }

  /** Reads one record, or `null` when it does not exist. */
  async get(collection: string, key: string): Promise<ContentRecord | null> {
    await this.#init();
    const rows = await this.#run((sql) =>
      sql`SELECT record FROM ${sql(this.#records)}
          WHERE collection = ${collection} AND key = ${key}`
    );
    return rows.length ? rows[0].record as ContentRecord : null;
  }

  /**
   * Replaces one record with what `mutate` returns (`null`: write nothing),
   * in one transaction with the field's new revision. Retries when another
   * writer changed the record in between; throws after `maxAttempts`.
   */
  async update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision?: RevisionInput,
  ): Promise<ContentRecord | null> {
    await this.#init();
    return this.#queue.run(collection, key, async () => {
      for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
        const result = await this.#run((sql) =>
          sql.begin((tx) => this.#write(tx, collection, key, mutate, revision))
        );
        if (result !== RETRY) return result;
        await backoff(attempt);
      }
      throw new Error(
        `PostgreSQL update of ${collection}:${key} lost ${this.#maxAttempts} races; giving up`,
      );
    });
  }

  async #write(
    tx: Tx,
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision: RevisionInput | undefined,
  ): Promise<ContentRecord | null | typeof RETRY> {
    const rows = await tx`SELECT record, version::text AS version
      FROM ${tx(this.#records)}
      WHERE collection = ${collection} AND key = ${key}
      FOR UPDATE`;
    const current = rows.length ? rows[0].record as ContentRecord : null;
    const next = mutate(current === null ? null : structuredClone(current));
    if (next === null) return null;
    const written = rows.length
      ? await tx`UPDATE ${tx(this.#records)}
          SET record = ${tx.json(next as postgres.JSONValue)},
              version = version + 1
          WHERE collection = ${collection} AND key = ${key}
            AND version = ${rows[0].version}`
      : await tx`INSERT INTO ${tx(this.#records)}
          (collection, key, record, version)
          VALUES (${collection}, ${key}, ${
        tx.json(next as postgres.JSONValue)
      }, 1)
          ON CONFLICT DO NOTHING`;
    if (written.count !== 1) return RETRY;
    if (!revision) return next;
    // The record row is locked by this transaction: no other writer of this
    // record can insert a revision until it ends.
    const [{ seq: last }] = await tx`SELECT coalesce(max(seq), 0)::float8 AS seq
      FROM ${tx(this.#revisions)}
      WHERE collection = ${collection} AND key = ${key}
        AND field = ${revision.field}`;
    let seq = last as number;
    const revs = newRevisions(
      collection,
      key,
      revision,
      current,
      next,
      seq > 0,
    );
    for (const rev of revs) await this.#insertRevision(tx, rev, ++seq);
    if (this.#retention) {
      await this.#prune(tx, collection, key, revision.field, seq);
    }
    return next;
  }

  async #insertRevision(sql: Tx, rev: Revision, seq: number) {
    await sql`INSERT INTO ${sql(this.#revisions)}
      (id, collection, key, field, seq, at, editor, value, bytes, published)
      VALUES (${rev.id}, ${rev.collection}, ${rev.key}, ${rev.field}, ${seq},
        ${rev.at}, ${rev.editor}, ${sql.json(rev.value)}, ${rev.bytes},
        ${rev.published ?? null})`;
  }

  /** Deletes what retention lets go (the newest revision always stays). */
  async #prune(
    tx: Tx,
    collection: string,
    key: string,
    field: string,
    seq: number,
  ) {
    const old = await tx`SELECT id, seq::float8 AS seq, at
      FROM ${tx(this.#revisions)}
      WHERE collection = ${collection} AND key = ${key} AND field = ${field}
        AND seq < ${seq}
      ORDER BY seq LIMIT 100`;
    const now = Date.now();
    const gone: string[] = [];
    for (const row of old) {
      if (!expired(seq - row.seq, row.at, this.#retention, now)) break;
      gone.push(row.id);
    }
    if (gone.length) {
      await tx`DELETE FROM ${tx(this.#revisions)} WHERE id IN ${tx(gone)}`;
    }
  }

  /** A field's revisions, newest first, at most `limit`. */
  async revisions(
    collection: string,
    key: string,
    field: string,
    limit?: number,
  ): Promise<Revision[]> {
    await this.#init();
    if (limit !== undefined && limit <= 0) return [];
    const rows = await this.#run((sql) =>
      sql`SELECT * FROM ${sql(this.#revisions)}
        WHERE collection = ${collection} AND key = ${key} AND field = ${field}
        ORDER BY seq DESC
        ${limit === undefined ? sql`` : sql`LIMIT ${limit}`}`
    );
    return rows.map(toRevision);
  }

  /** One revision by id, or `null`. */
  async revision(id: string): Promise<Revision | null> {
    await this.#init();
    const rows = await this.#run((sql) =>
      sql`SELECT * FROM ${sql(this.#revisions)} WHERE id = ${id}`
    );
    return rows.length ? toRevision(rows[0]) : null;
  }

  /** Every record, then every revision, oldest first per field. */
  async *dump(): AsyncIterable<StoreLine> {
    await this.#init();
    const sql = this.#sql;
    const records = sql`SELECT collection, key, record
      FROM ${sql(this.#records)} ORDER BY collection, key`.cursor(200);
    for await (const rows of records) {
      for (const row of rows) {
        yield {
          type: "record",
          collection: row.collection,
          key: row.key,
          record: row.record as ContentRecord,
        };
      }
    }
    const revisions = sql`SELECT * FROM ${sql(this.#revisions)}
      ORDER BY collection, key, field, seq`.cursor(200);
    for await (const rows of revisions) {
      for (const row of rows) {
        yield { type: "revision", revision: toRevision(row) };
      }
    }
  }

  /**
   * Loads a dump into this empty store, in one transaction: on any error
   * nothing is written. Throws on a non-empty store.
   */
  async load(
    lines: AsyncIterable<StoreLine> | Iterable<StoreLine>,
  ): Promise<void> {
    await this.#init();
    await this.#run((sql) =>
      sql.begin(async (tx) => {
        await tx`LOCK TABLE ${tx(this.#records)}, ${tx(this.#revisions)}
          IN EXCLUSIVE MODE`;
        const [{ used }] = await tx`SELECT
          EXISTS (SELECT 1 FROM ${tx(this.#records)}) OR
          EXISTS (SELECT 1 FROM ${tx(this.#revisions)}) AS used`;
        if (used) throw new Error("store is not empty");
        const seqs = new Map<string, number>();
        for await (const line of lines) {
          if (line.type === "record") {
            await tx`INSERT INTO ${tx(this.#records)}
              (collection, key, record, version)
              VALUES (${line.collection}, ${line.key}, ${
              tx.json(line.record as postgres.JSONValue)
            }, 1)`;
          } else {
            const rev = checkRevision(line.revision);
            const field = JSON.stringify([rev.collection, rev.key, rev.field]);
            const seq = (seqs.get(field) ?? 0) + 1;
            seqs.set(field, seq);
            await this.#insertRevision(tx, rev, seq);
          }
        }
      })
    );
  }

  /** Creates the tables once (serialized across instances by a lock). */
  #init(): Promise<void> {
    this.#ready ??= this.#run((sql) =>
      sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${this.#records}))`;
        await tx`CREATE TABLE IF NOT EXISTS ${tx(this.#records)} (
          collection text NOT NULL,
          key text NOT NULL,
          record jsonb NOT NULL,
          version bigint NOT NULL,
          PRIMARY KEY (collection, key))`;
        await tx`CREATE TABLE IF NOT EXISTS ${tx(this.#revisions)} (
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
      })
    ).then(() => {}, (err) => {
      this.#ready = null;
      throw err;
    });
    return this.#ready;
  }

  /** Runs a query, mapping text PostgreSQL cannot hold to a 400 error. */
  async #run<T>(query: (sql: Sql) => Promise<T>): Promise<T> {
    try {
      return await query(this.#sql);
    } catch (err) {
      const code = (err as { code?: unknown })?.code;
      if (code === "22021" || code === "22P05") {
        throw new UnstorableTextError("text cannot be stored", { cause: err });
      }
      throw err;
    }
  }
}

function toRevision(row: postgres.Row): Revision {
  const rev: Revision = {
    id: row.id,
    collection: row.collection,
    key: row.key,
    field: row.field,
    at: row.at,
    editor: row.editor,
    value: row.value,
    bytes: row.bytes,
  };
  if (row.published !== null) rev.published = row.published;
  return rev;
}

/** Sleeps a random 0..min(2^attempt, 50) ms, so racing writers spread out. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(2 ** attempt, 50);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
