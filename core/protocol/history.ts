/**
 * The history endpoint: a field's revisions, one revision's value, and a
 * restore.
 *
 * - `GET ?field=…[&limit=N]` → {@linkcode HistoryListing} (each entry a
 *   {@linkcode RevisionSummary});
 * - `GET ?field=…&revision=…` → {@linkcode RevisionBody};
 * - `POST` a {@linkcode RestoreBody} → `204` like a save.
 *
 * @module
 */

/** One entry of a {@linkcode HistoryListing}. */
export interface RevisionSummary {
  /** The revision's id. */
  id: string;
  /** When it was written, ISO 8601. */
  at: string;
  /** Who wrote it; `null` for the value from before history began. */
  editor: string | null;
  /** Size of the value in UTF-8 bytes. */
  bytes: number;
  /** When this value went public, ISO 8601; absent for a draft. */
  published?: string;
}

/** History endpoint, `GET ?field=…[&limit=N]`: the field's revisions. */
export interface HistoryListing {
  /** The field's address, as asked. */
  field: string;
  /**
   * Newest first; the first is the field's current value. A draft that a
   * publish right after it repeats is listed once, as the published one.
   */
  revisions: RevisionSummary[];
}

/** History endpoint, `GET ?field=…&revision=…`: one revision with its value. */
export interface RevisionBody {
  /** The revision's id. */
  id: string;
  /** When it was written, ISO 8601. */
  at: string;
  /** Who wrote it; `null` for the value from before history began. */
  editor: string | null;
  /** The stored value. */
  value: string | string[];
}

/**
 * History endpoint, `POST`: restore a revision of a field (answered like a
 * save: `204` with `VERSION_HEADER`, `409` on a stale `version`).
 */
export interface RestoreBody {
  /** The field's address, e.g. `pages:home:title`. */
  field: string;
  /** The revision to restore. */
  revision: string;
  /** The field's version the editor saw; a mismatch is a 409. */
  version?: string;
}
