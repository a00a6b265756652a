/**
 * A {@linkcode HistoryStore} over PostgreSQL (the `postgres` npm package),
 * for sites that run several instances on a database they already operate.
 *
 * @module
 */
import postgres from "postgres";
import type {
  ContentRecord,
  Draft,
  DraftRef,
  DraftStore,
  HistoryStore,
  PublishResult,
  Retention,
  Revision,
  RevisionInput,
  StoreLine,
} from "./types.ts";
import {
  checkRetention,
  checkRevision,
  expired,
  newRevisions,
} from "./_revision.ts";
import { backoff, RecordQueue } from "./_queue.ts";
import {
  byRecord,
  checkDraft,
  draftLines,
  draftOf,
  draftSlot,
  listDrafts,
  overlay,
  planPublish,
  type RecordDrafts,
  type RecordPublish,
} from "./draft.ts";
import {
  bySchedule,
  checkSchedule,
  failureOf,
  type Schedule,
  type ScheduleFiring,
  type ScheduleStore,
} from "./schedule.ts";

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
 * import { PostgresContentStore } from "@inplace/cms/postgres";
 * const store = PostgresContentStore.connect("postgres://cms@127.0.0.1/cms");
 * await store.update("pages", "home", (r) => ({ ...r, title: "Hello" }), {
 *   field: "title",
 *   editor: "Ada",
 * });
 * (await store.revisions("pages", "home", "title"))[0].value; // "Hello"
 * await store.close();
 * ```
 */
export class PostgresContentStore
  implements HistoryStore, DraftStore, ScheduleStore {
  readonly #sql: Sql;
  readonly #records: string;
  readonly #revisions: string;
  readonly #drafts: string;
  readonly #schedules: string;
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
    this.#drafts = `${prefix}_drafts`;
    this.#schedules = `${prefix}_schedules`;
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
    const json = tx.json(next as postgres.JSONValue);
    if (!rows.length) {
      // First write of the record: two first inserts can race, so the
      // revision waits for the insert to win.
      const written = await tx`INSERT INTO ${tx(this.#records)}
        (collection, key, record, version)
        VALUES (${collection}, ${key}, ${json}, 1)
        ON CONFLICT DO NOTHING`;
      if (written.count !== 1) return RETRY;
      if (revision) {
        await this.#addRevisions(tx, collection, key, revision, current, next);
      }
      return next;
    }
    const update = tx`UPDATE ${tx(this.#records)}
      SET record = ${json}, version = version + 1
      WHERE collection = ${collection} AND key = ${key}
        AND version = ${rows[0].version}`;
    if (!revision) {
      return (await update).count === 1 ? next : RETRY;
    }
    // The update and the revisions in ONE statement, so a save with history
    // takes the round trips of one without. The row is locked, so this
    // statement's snapshot (taken after the lock) sees every revision of
    // the field: it numbers the new ones after the newest, and keeps the
    // value the field held before only when the field has no history yet.
    // The revisions are made first, so a bad field throws before anything
    // is sent.
    const revs = newRevisions(collection, key, revision, current, next, false)
      .map((rev, i, all) => ({
        ...rev,
        published: rev.published ?? null,
        ord: i,
        prior: all.length > 1 && i === 0,
      }));
    const [written] = await tx`WITH u AS (${update} RETURNING 1),
      h AS (SELECT coalesce(max(seq), 0) AS last
        FROM ${tx(this.#revisions)}
        WHERE collection = ${collection} AND key = ${key}
          AND field = ${revision.field}),
      i AS (INSERT INTO ${tx(this.#revisions)}
        (id, collection, key, field, seq, at, editor, value, bytes, published)
        SELECT r.id, r.collection, r.key, r.field,
          h.last + row_number() OVER (ORDER BY r.ord),
          r.at, r.editor, r.value, r.bytes, r.published
        FROM jsonb_to_recordset(${
      tx.json(revs as unknown as postgres.JSONValue)
    }) AS r(id text, collection text, key text, field text, at text,
          editor text, value jsonb, bytes integer, published text, ord integer,
          prior boolean), h
        WHERE EXISTS (SELECT 1 FROM u) AND NOT (r.prior AND h.last > 0)
        RETURNING seq)
      SELECT (SELECT count(*) FROM u)::int AS count,
        (SELECT max(seq) FROM i)::float8 AS seq`;
    // Unreachable while the row lock holds; nothing was written then.
    if (written.count !== 1) return RETRY;
    if (this.#retention) {
      await this.#prune(tx, collection, key, revision.field, written.seq);
    }
    return next;
  }

  /**
   * Inserts one save's revisions after the field's newest, then prunes what
   * retention lets go.
   */
  async #addRevisions(
    tx: Tx,
    collection: string,
    key: string,
    revision: RevisionInput,
    current: ContentRecord | null,
    next: ContentRecord,
  ) {
    let seq = await this.#lastSeq(tx, collection, key, revision.field);
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
  }

  /** One record with its drafts written over it (one snapshot), or `null`. */
  async getDrafted(
    collection: string,
    key: string,
  ): Promise<ContentRecord | null> {
    await this.#init();
    const [row] = await this.#run((sql) =>
      sql`SELECT
        (SELECT record FROM ${sql(this.#records)}
          WHERE collection = ${collection} AND key = ${key}) AS record,
        (SELECT jsonb_object_agg(field, jsonb_build_object(
            'value', value, 'at', at, 'editor', editor))
          FROM ${sql(this.#drafts)}
          WHERE collection = ${collection} AND key = ${key}) AS drafts`
    );
    return overlay(row.record ?? null, row.drafts ?? null);
  }

  /**
   * Saves the draft of `revision.field` from what `mutate` returns, with an
   * unpublished revision, in one transaction. Drafts and publishes of one
   * record are serialized by a transaction-scoped advisory lock.
   */
  async updateDraft(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision: RevisionInput,
  ): Promise<ContentRecord | null> {
    await this.#init();
    return this.#queue.run(
      collection,
      key,
      () =>
        this.#run((sql) =>
          sql.begin(async (tx) => {
            const [record, drafts] = await this.#lockRecord(
              tx,
              collection,
              key,
            );
            const before = overlay(record, drafts);
            const next = mutate(
              before === null ? null : structuredClone(before),
            );
            if (next === null) return null;
            let seq = await this.#lastSeq(tx, collection, key, revision.field);
            const revs = newRevisions(
              collection,
              key,
              { ...revision, published: false },
              before,
              next,
              seq > 0,
            );
            const slot = draftSlot(drafts, revision.field);
            const draft = draftOf(
              next,
              slot.field,
              revision.editor,
              revs.at(-1)!.at,
            );
            if (slot.drop.length) {
              await tx`DELETE FROM ${tx(this.#drafts)}
              WHERE collection = ${collection} AND key = ${key}
                AND field IN ${tx(slot.drop)}`;
            }
            await tx`INSERT INTO ${tx(this.#drafts)}
            (collection, key, field, value, at, editor)
            VALUES (${collection}, ${key}, ${slot.field},
              ${tx.json(draft.value)}, ${draft.at}, ${draft.editor})
            ON CONFLICT (collection, key, field) DO UPDATE
            SET value = EXCLUDED.value, at = EXCLUDED.at,
              editor = EXCLUDED.editor`;
            for (const rev of revs) await this.#insertRevision(tx, rev, ++seq);
            if (this.#retention) {
              await this.#prune(tx, collection, key, revision.field, seq);
            }
            return next;
          })
        ) as Promise<ContentRecord | null>,
    );
  }

  /** Every draft, oldest first. */
  async drafts(): Promise<Draft[]> {
    await this.#init();
    const rows = await this.#run((sql) =>
      sql`SELECT collection, key, field, value, at, editor
        FROM ${sql(this.#drafts)}`
    );
    const byId = new Map<string, [string, string, RecordDrafts]>();
    for (const r of rows) {
      const id = JSON.stringify([r.collection, r.key]);
      const entry: [string, string, RecordDrafts] = byId.get(id) ??
        [r.collection, r.key, {}];
      entry[2][r.field] = { value: r.value, at: r.at, editor: r.editor };
      byId.set(id, entry);
    }
    return listDrafts(byId.values());
  }

  /**
   * Publishes `fields` (`null`: all drafts) in ONE transaction: each record
   * is locked (in a fixed order, so publishes never deadlock), its drafts
   * are checked against the versions given, written over the published
   * values, and each field gets a published revision. Any conflict: nothing
   * is written. A crash anywhere leaves all or none published.
   */
  async publish(
    fields: DraftRef[] | null,
    editor: string,
  ): Promise<PublishResult> {
    await this.#init();
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      try {
        return await this.#run((sql) =>
          sql.begin((tx) => this.#publish(tx, fields, editor))
        );
      } catch (err) {
        if (err !== RETRY) throw err;
      }
      await backoff(attempt);
    }
    throw new Error(
      `PostgreSQL publish lost ${this.#maxAttempts} races; giving up`,
    );
  }

  async #publish(
    tx: Tx,
    fields: DraftRef[] | null,
    editor: string,
  ): Promise<PublishResult> {
    let groups: [string, string, "all" | DraftRef[]][];
    if (fields) groups = byRecord(fields);
    else {
      const rows = await tx`SELECT DISTINCT collection, key
        FROM ${tx(this.#drafts)}`;
      groups = byRecord(
        rows.map((r) => ({ collection: r.collection, key: r.key, field: "" })),
      ).map(([c, k]) => [c, k, "all"]);
    }
    const plans: [string, string, boolean, RecordPublish, number[]][] = [];
    for (const [collection, key, selection] of groups) {
      const [record, drafts, exists] = await this.#lockRecord(
        tx,
        collection,
        key,
      );
      const touched = selection === "all"
        ? Object.keys(drafts ?? {})
        : selection.map((r) => r.field);
      const heads = new Map<string, number>();
      if (touched.length) {
        const rows = await tx`SELECT field, max(seq)::float8 AS seq
          FROM ${tx(this.#revisions)}
          WHERE collection = ${collection} AND key = ${key}
            AND field IN ${tx(touched)}
          GROUP BY field`;
        for (const r of rows) heads.set(r.field, r.seq);
      }
      const plan = planPublish(
        collection,
        key,
        record,
        drafts,
        selection,
        editor,
        (f) => heads.has(f),
      );
      const seqs = plan.revisions.map((rev) => {
        const seq = (heads.get(rev.field) ?? 0) + 1;
        heads.set(rev.field, seq);
        return seq;
      });
      plans.push([collection, key, exists, plan, seqs]);
    }
    const conflicts = plans.flatMap(([, , , p]) => p.conflicts);
    if (conflicts.length) return { published: [], conflicts };
    for (const [collection, key, exists, plan, seqs] of plans) {
      if (!plan.published.length) continue;
      const record = tx.json(plan.record as postgres.JSONValue);
      const written = exists
        ? await tx`UPDATE ${tx(this.#records)}
            SET record = ${record}, version = version + 1
            WHERE collection = ${collection} AND key = ${key}`
        : await tx`INSERT INTO ${tx(this.#records)}
            (collection, key, record, version)
            VALUES (${collection}, ${key}, ${record}, 1)
            ON CONFLICT DO NOTHING`;
      // A direct save created the record meanwhile: start over.
      if (written.count !== 1) throw RETRY;
      await tx`DELETE FROM ${tx(this.#drafts)}
        WHERE collection = ${collection} AND key = ${key}
          AND field IN ${tx(plan.published.map((p) => p.field))}`;
      const last = new Map<string, number>();
      for (const [i, rev] of plan.revisions.entries()) {
        await this.#insertRevision(tx, rev, seqs[i]);
        last.set(rev.field, seqs[i]);
      }
      if (this.#retention) {
        for (const [field, seq] of last) {
          await this.#prune(tx, collection, key, field, seq);
        }
      }
    }
    return {
      published: plans.flatMap(([, , , p]) => p.published),
      conflicts: [],
    };
  }

  /** Stores a new pending schedule. */
  async addSchedule(schedule: Schedule): Promise<void> {
    await this.#init();
    const s = checkSchedule(schedule);
    await this.#run((sql) =>
      sql`INSERT INTO ${sql(this.#schedules)} (id, at, schedule)
        VALUES (${s.id}, ${new Date(s.at)}, ${
        sql.json(s as unknown as postgres.JSONValue)
      })`
    );
  }

  /** Every pending and failed schedule, soonest first. */
  async schedules(): Promise<Schedule[]> {
    await this.#init();
    const rows = await this.#run((sql) =>
      sql`SELECT schedule FROM ${sql(this.#schedules)} ORDER BY at, id`
    );
    return rows.map((r) => r.schedule as Schedule).sort(bySchedule);
  }

  /** Removes a pending or failed schedule; `false` when there is none. */
  async cancelSchedule(id: string): Promise<boolean> {
    await this.#init();
    const gone = await this.#run((sql) =>
      sql`DELETE FROM ${sql(this.#schedules)} WHERE id = ${id}`
    );
    return gone.count > 0;
  }

  /**
   * Fires schedule `id` if pending and due, in ONE transaction: the
   * schedule row is claimed with `FOR UPDATE SKIP LOCKED` (an instance that
   * finds it locked leaves it to the one firing it), the publish runs as
   * {@linkcode publish} does, and the row is deleted (or marked failed)
   * before the commit. A crash rolls all of it back: the schedule stays
   * pending and fires at the next start.
   */
  async fireSchedule(
    id: string,
    now: number = Date.now(),
  ): Promise<ScheduleFiring | null> {
    await this.#init();
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      try {
        return await this.#run((sql) =>
          sql.begin(async (tx) => {
            const rows = await tx`SELECT schedule FROM ${tx(this.#schedules)}
              WHERE id = ${id} AND NOT failed AND at <= ${new Date(now)}
              FOR UPDATE SKIP LOCKED`;
            if (!rows.length) return null;
            const schedule = rows[0].schedule as Schedule;
            const result = await this.#publish(
              tx,
              schedule.fields,
              schedule.editor,
            );
            const failed = failureOf(result);
            if (failed) {
              const next = { ...schedule, failed };
              await tx`UPDATE ${tx(this.#schedules)}
                SET failed = true,
                  schedule = ${tx.json(next as unknown as postgres.JSONValue)}
                WHERE id = ${id}`;
            } else {
              await tx`DELETE FROM ${tx(this.#schedules)} WHERE id = ${id}`;
            }
            return { schedule, result, failed };
          })
        );
      } catch (err) {
        if (err !== RETRY) throw err;
      }
      await backoff(attempt);
    }
    throw new Error(
      `PostgreSQL schedule lost ${this.#maxAttempts} races; giving up`,
    );
  }

  /** Drops one field's draft; `false` when it had none. */
  async discard(
    collection: string,
    key: string,
    field: string,
  ): Promise<boolean> {
    await this.#init();
    return await this.#run((sql) =>
      sql.begin(async (tx) => {
        await this.#lock(tx, collection, key);
        const gone = await tx`DELETE FROM ${tx(this.#drafts)}
          WHERE collection = ${collection} AND key = ${key}
            AND field = ${field}`;
        return gone.count > 0;
      })
    );
  }

  /** Serializes drafts and publishes of one record across instances. */
  async #lock(tx: Tx, collection: string, key: string) {
    const name = JSON.stringify([this.#records, collection, key]);
    await tx`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
  }

  /** Locks a record (advisory lock and row) and reads it with its drafts. */
  async #lockRecord(
    tx: Tx,
    collection: string,
    key: string,
  ): Promise<[ContentRecord | null, RecordDrafts | null, boolean]> {
    await this.#lock(tx, collection, key);
    const rows = await tx`SELECT record FROM ${tx(this.#records)}
      WHERE collection = ${collection} AND key = ${key} FOR UPDATE`;
    const draftRows = await tx`SELECT field, value, at, editor
      FROM ${tx(this.#drafts)}
      WHERE collection = ${collection} AND key = ${key}`;
    const drafts: RecordDrafts = {};
    for (const r of draftRows) {
      drafts[r.field] = { value: r.value, at: r.at, editor: r.editor };
    }
    return [
      rows.length ? rows[0].record as ContentRecord : null,
      draftRows.length ? drafts : null,
      rows.length > 0,
    ];
  }

  /** The newest revision number of a field (0: no history). */
  async #lastSeq(
    tx: Tx,
    collection: string,
    key: string,
    field: string,
  ): Promise<number> {
    const [{ seq }] = await tx`SELECT coalesce(max(seq), 0)::float8 AS seq
      FROM ${tx(this.#revisions)}
      WHERE collection = ${collection} AND key = ${key} AND field = ${field}`;
    return seq as number;
  }

  /** The query that inserts a revision; sent when first awaited. */
  #insertRevision(sql: Tx, rev: Revision, seq: number) {
    return sql`INSERT INTO ${sql(this.#revisions)}
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

  /**
   * Every record, then every revision (oldest first per field), then every
   * draft; in byte order of their keys, as Deno KV lists them.
   */
  async *dump(): AsyncIterable<StoreLine> {
    await this.#init();
    const sql = this.#sql;
    const records = sql`SELECT collection, key, record
      FROM ${sql(this.#records)}
      ORDER BY collection COLLATE "C", key COLLATE "C"`.cursor(200);
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
      ORDER BY collection COLLATE "C", key COLLATE "C", field COLLATE "C", seq`
      .cursor(200);
    for await (const rows of revisions) {
      for (const row of rows) {
        yield { type: "revision", revision: toRevision(row) };
      }
    }
    const drafts = sql`SELECT collection, key, field, value, at, editor
      FROM ${sql(this.#drafts)}
      ORDER BY collection COLLATE "C", key COLLATE "C", field COLLATE "C"`
      .cursor(200);
    for await (const rows of drafts) {
      const byRecord = new Map<string, [string, string, RecordDrafts]>();
      for (const r of rows) {
        const id = JSON.stringify([r.collection, r.key]);
        const entry: [string, string, RecordDrafts] = byRecord.get(id) ??
          [r.collection, r.key, {}];
        entry[2][r.field] = { value: r.value, at: r.at, editor: r.editor };
        byRecord.set(id, entry);
      }
      yield* draftLines(byRecord.values());
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
        await tx`LOCK TABLE ${tx(this.#records)}, ${tx(this.#revisions)},
          ${tx(this.#drafts)} IN EXCLUSIVE MODE`;
        const [{ used }] = await tx`SELECT
          EXISTS (SELECT 1 FROM ${tx(this.#records)}) OR
          EXISTS (SELECT 1 FROM ${tx(this.#revisions)}) OR
          EXISTS (SELECT 1 FROM ${tx(this.#drafts)}) AS used`;
        if (used) throw new Error("store is not empty");
        const seqs = new Map<string, number>();
        for await (const line of lines) {
          if (line.type === "record") {
            await tx`INSERT INTO ${tx(this.#records)}
              (collection, key, record, version)
              VALUES (${line.collection}, ${line.key}, ${
              tx.json(line.record as postgres.JSONValue)
            }, 1)`;
          } else if (line.type === "draft") {
            const d = checkDraft(line.draft);
            await tx`INSERT INTO ${tx(this.#drafts)}
              (collection, key, field, value, at, editor)
              VALUES (${d.collection}, ${d.key}, ${d.field},
                ${tx.json(d.value)}, ${d.at}, ${d.editor})`;
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
        await tx`CREATE TABLE IF NOT EXISTS ${tx(this.#drafts)} (
          collection text NOT NULL,
          key text NOT NULL,
          field text NOT NULL,
          value jsonb NOT NULL,
          at text NOT NULL,
          editor text NOT NULL,
          PRIMARY KEY (collection, key, field))`;
        await tx`CREATE TABLE IF NOT EXISTS ${tx(this.#schedules)} (
          id text PRIMARY KEY,
          at timestamptz NOT NULL,
          failed boolean NOT NULL DEFAULT false,
          schedule jsonb NOT NULL)`;
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
