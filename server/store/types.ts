/**
 * The contract of a content store: records and their values, history
 * (revisions and retention), drafts and publish. Memory, Deno KV and
 * PostgreSQL implement it; `tests/server/store/contract_test.ts` holds them to it.
 *
 * @module
 */
import type { Approval, Comment } from "../../core/protocol/review.ts";
/** A stored field value: a string, or a list of strings. */
export type ContentValue = string | string[];

/** A host record: field name → value. */
export type ContentRecord = Record<string, ContentValue>;

/**
 * Where content records live. Implement it for your own database; the
 * package ships a Deno KV store and an in-memory store.
 */
export interface ContentStore {
  /** Reads one record, or `null` when it does not exist. */
  get(collection: string, key: string): Promise<ContentRecord | null>;
  /**
   * Atomically replaces one record with what `mutate` returns. `mutate` gets
   * the current record (or `null`) and returns the new record, or `null` to
   * write nothing. It may run more than once under contention, so it must be
   * free of side effects other than recording its last decision.
   * Resolves to the record written, or `null` when nothing was written.
   *
   * With `revision`, a {@linkcode HistoryStore} also records the written
   * value of `revision.field` as a new revision, in the same atomic
   * operation; a store without history ignores it.
   */
  update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision?: RevisionInput,
  ): Promise<ContentRecord | null>;
}

/**
 * What a save asks the store to record in a field's history. The store takes
 * the value from the record it writes, so the revision always holds exactly
 * what was stored.
 */
export interface RevisionInput {
  /** The field written: `name`, or `name.index` for a list item. */
  field: string;
  /** Who saved it: the session's editor name. */
  editor: string;
  /**
   * Whether the value went public with this write. Default `true` (every
   * save is live); a draft save passes `false` and a later publish marks it.
   */
  published?: boolean;
}

/** One stored value of one field, newest first in a history. */
export interface Revision {
  /** Unique across the store (a UUID). */
  id: string;
  /** The record's collection. */
  collection: string;
  /** The record's key. */
  key: string;
  /** The field: `name` or `name.index`. */
  field: string;
  /** When it was written, ISO 8601. */
  at: string;
  /**
   * Who wrote it; `null` for the value a field held before its first
   * recorded save (kept so the first save can be undone).
   */
  editor: string | null;
  /** The value as stored (sanitized for rich fields). */
  value: ContentValue;
  /** Size of `value` in UTF-8 bytes (a list: of its JSON). */
  bytes: number;
  /** When this value went public, ISO 8601; absent while it is a draft. */
  published?: string;
}

/**
 * How long history is kept. Both limits may be set; a revision goes when it
 * is outside either. The newest revision of a field (its current value) is
 * never pruned. Unset: keep everything.
 */
export interface Retention {
  /** Keep at most this many revisions per field (at least 1). */
  keep?: number;
  /** Drop revisions older than this many days. */
  days?: number;
}

/**
 * One line of an export: a record (its published values), a revision, an
 * unpublished draft (publish mode `draft`), a comment or a review verdict.
 */
export type StoreLine =
  | { type: "record"; collection: string; key: string; record: ContentRecord }
  | { type: "revision"; revision: Revision }
  | { type: "draft"; draft: Draft }
  | { type: "comment"; comment: Comment }
  | { type: "approval"; approval: Approval };

/**
 * A {@linkcode ContentStore} that keeps every field's history: `update` with
 * a `revision` writes the record and the revision in one atomic operation.
 * The memory, Deno KV and PostgreSQL stores implement it.
 */
export interface HistoryStore extends ContentStore {
  /** A field's revisions, newest first (the first is its current value). */
  revisions(
    collection: string,
    key: string,
    field: string,
    limit?: number,
  ): Promise<Revision[]>;
  /** One revision by id, or `null`. */
  revision(id: string): Promise<Revision | null>;
  /**
   * Every record, then every revision (oldest first per field), then every
   * unpublished draft, then (a review store) every comment and
   * review verdict, for backups. Import them with `load`.
   */
  dump(): AsyncIterable<StoreLine>;
  /**
   * Loads the lines of a `dump` into this store. It refuses (throws before
   * writing anything) when the store already holds a record, revision or
   * draft.
   * Revisions keep their ids, times and order.
   */
  load(lines: AsyncIterable<StoreLine> | Iterable<StoreLine>): Promise<void>;
}

/**
 * How saves go public: `direct` (default) makes every save live at once;
 * `draft` makes a save the field's draft, which visitors never see until a
 * publish.
 */
export type PublishMode = "direct" | "draft";

/** An unpublished value of one field (publish mode `draft`). */
export interface Draft {
  /** The record's collection. */
  collection: string;
  /** The record's key. */
  key: string;
  /** The field: `name` or `name.index`. */
  field: string;
  /** The draft value (sanitized like any save). */
  value: ContentValue;
  /** When it was saved, ISO 8601. */
  at: string;
  /** Who saved it. */
  editor: string;
}

/** A field to publish, with the version of its draft the editor saw. */
export interface DraftRef {
  /** The record's collection. */
  collection: string;
  /** The record's key. */
  key: string;
  /** The field: `name` or `name.index`. */
  field: string;
  /**
   * `contentVersion` of the draft as the editor saw it; when the stored
   * draft differs, the publish is refused with a conflict.
   */
  version?: string;
}

/** A field whose draft changed since the editor saw it. */
export interface DraftConflict {
  /** The record's collection. */
  collection: string;
  /** The record's key. */
  key: string;
  /** The field: `name` or `name.index`. */
  field: string;
  /** The draft stored now. */
  value: ContentValue;
  /** Its version. */
  version: string;
}

/**
 * What {@linkcode DraftStore.publish} did: with any conflict nothing was
 * published (`published` is empty); otherwise every field in `published`
 * went public in one atomic operation.
 */
export interface PublishResult {
  /** The drafts that went public. */
  published: Draft[];
  /** Fields that another editor changed after the caller saw them. */
  conflicts: DraftConflict[];
}

/**
 * A {@linkcode HistoryStore} that also keeps drafts beside the published
 * values (publish mode `draft`). `get` always returns the published values
 * (what visitors see); `getDrafted` returns them with the drafts written
 * over (edit mode and preview links).
 */
export interface DraftStore extends HistoryStore {
  /** One record with its drafts written over it, or `null`. */
  getDrafted(collection: string, key: string): Promise<ContentRecord | null>;
  /**
   * Saves a draft: `mutate` gets the record as {@linkcode getDrafted} reads
   * it and returns the record to show (`null`: write nothing); the value of
   * `revision.field` in it becomes that field's draft, with an unpublished
   * revision, in one atomic operation. The published values do not change.
   */
  updateDraft(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
    revision: RevisionInput,
  ): Promise<ContentRecord | null>;
  /** Every draft of the store, oldest first. */
  drafts(): Promise<Draft[]>;
  /**
   * Publishes `fields` (`null`: every draft) for `editor`, all or none, in
   * one atomic operation: the drafts become the published values and each
   * field gets a revision marked published. Fields without a draft are left
   * out. When any field's draft is not the `version` given, nothing is
   * published and the conflicts are returned.
   */
  publish(fields: DraftRef[] | null, editor: string): Promise<PublishResult>;
  /** Drops one field's draft (the published value stays); `false`: none. */
  discard(collection: string, key: string, field: string): Promise<boolean>;
}
