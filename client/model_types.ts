/**
 * The model's types: a field as the page declares it and as the session
 * holds it, a save request's answer, the injected draft store and clock,
 * the `cms:*` events, the options of `createModel` and the {@linkcode Model}
 * it returns. Types only; `model.ts` exports them all.
 *
 * @module
 */

import type { ListSaveBody, SaveBody } from "../core/protocol/mod.ts";

/** What a save request got back. */
export interface SaveAnswer {
  /** HTTP status; 0 when the request got no answer. */
  status: number;
  /** The body (a short reason, or the 409 JSON), or why there was no answer. */
  text: string;
  /** The `CMS-Version` header, if any. */
  version?: string;
  /** The `Retry-After` header, if any (seconds or an HTTP date). */
  retryAfter?: string;
  /** The `CMS-Removed` header: what the server's sanitizer removed. */
  removed?: number;
}

/** A field as the page declares it (a parsed marker, or its equivalent). */
export interface FieldInit {
  /** The address, `collection:key:field`; identifies the field. */
  id: string;
  collection: string;
  key: string;
  /** Field name, or `name.N` for a list item. */
  field: string;
  /** Whether the value is HTML (a rich field). */
  rich: boolean;
  /** The stored value's version, when the page gave one. */
  version?: string;
  /**
   * A whole list (a `data-cms-list` container): its value is the items as
   * JSON text, sent as a `string[]` (a whole-list write, `ListSaveBody`).
   */
  list?: boolean;
}

/** A field of the session. Read it; change it only through the model. */
export interface Field extends FieldInit {
  /** The stored value that edits are compared against. */
  base: string;
  /** The current value. Dirty when it differs from `base`. */
  value: string;
  /** A request for this field is in flight. */
  saving: boolean;
  /** Why the last save failed; cleared by a success or a revert. */
  error?: { status: number; reason: string };
  /** When the next automatic attempt goes out (clock time), if one will. */
  retryAt?: number;
  /** A 409 waiting for the editor's choice: the value stored now. */
  conflict?: { stored: string; version?: string };
  /** What the server's sanitizer removed from the last saved value. */
  removed?: number;
}

/** Drafts of unsaved values, kept where they survive a reload. */
export interface DraftStore {
  /**
   * The lookup of drafts, or `undefined` when none are stored. A draft only
   * counts for the field's current `base` and `version`.
   */
  read(): ((f: Field) => string | undefined) | undefined;
  /** Stores `f.value` as a draft of `f`, or removes it when `f` is clean. */
  write(f: Field): void;
  /**
   * Removes the draft of `f` at its current version. A store may defer the
   * removal until {@linkcode DraftStore.flush}; a later `write` of the same
   * draft cancels it.
   */
  clear(f: Field): void;
  /** Applies the removals `clear` deferred (the model calls it when idle). */
  flush?(): void;
}

/** Time, timers and randomness (injected so tests control them). */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  /** A number in [0, 1). */
  random(): number;
}

/** The `cms:*` events of the session, with their `detail`. */
export interface ModelEvents {
  "cms:dirty": { field: string; value: string; dirty: boolean };
  "cms:saved": { field: string; value: string; version?: string };
  "cms:error": { field: string; value: string; status: number; reason: string };
  "cms:conflict": {
    field: string;
    value: string;
    stored: string;
    version?: string;
  };
}

/** Options of {@linkcode Model}. */
export interface ModelOptions {
  /** Sends one save request; never rejects (status 0 = no answer). */
  send(body: SaveBody | ListSaveBody): Promise<SaveAnswer>;
  /** Where drafts live. Default: none kept. */
  drafts?: DraftStore;
  /** Default: the real clock, `setTimeout` and `Math.random`. */
  clock?: Clock;
  /**
   * Maximum requests in flight. Default 64: well above the browser's own
   * per-host connection cap (6 over HTTP/1.1), so its pool refills a freed
   * connection at once instead of waiting for script to send the next.
   */
  concurrency?: number;
  /** Backoff: first delay, cap (ms) and attempts in all. */
  retry?: { base?: number; max?: number; attempts?: number };
  /** Receives every `cms:*` event. */
  emit?<K extends keyof ModelEvents>(type: K, detail: ModelEvents[K]): void;
  /** Called after a field's state changed (its value, saving, error…). */
  onChange?(f: Field): void;
  /** Called once per 409, after `cms:conflict`: ask, then `resolve()`. */
  onConflict?(f: Field): void;
}

/** The summary the edit bar shows. */
export interface ModelStatus {
  /** Fields whose value differs from the stored one. */
  dirty: number;
  /** Some request is in flight. */
  saving: boolean;
  /** The first field whose last save failed, if any. */
  failed?: Field;
  /** What the sanitizer removed from the fields' last saved values. */
  removed: number;
}

/** The editing session's state machine, made by `createModel` (`model.ts`). */
export interface Model {
  /** Fields in page order (duplicates by `id` once). */
  readonly fields: Field[];
  /** The field with address `id`. */
  get(id: string): Field | undefined;
  /** Adds a field whose stored value is `value` (e.g. a list, once its
   * chunk is loaded); returns the field (the existing one for a known id). */
  add(init: FieldInit, value: string): Field;
  /** The edit bar's summary. */
  status(): ModelStatus;
  /**
   * Sets a field's current value (an edit, a revert, a restored draft).
   * Keeps the draft in step and emits `cms:dirty` when the field turns
   * dirty or clean. Back at the stored value, a failure is forgotten.
   */
  edit(id: string, value: string): void;
  /** Back to the stored value. */
  revert(id: string): void;
  /**
   * The stored value of a clean field is now `base` at `version` (learnt
   * another way than its own save, e.g. a list from its items' saves).
   */
  rebase(id: string, base: string, version?: string): void;
  /** Restores the stored drafts that still apply; returns their fields. */
  restoreDrafts(): Field[];
  /** Forgets the drafts of every dirty field (e.g. before leaving). */
  dropDrafts(): void;
  /**
   * Saves every dirty field that is not in flight or waiting for a conflict
   * choice, now (scheduled retries included, with a fresh attempt budget).
   * Resolves once the queue has drained.
   */
  save(): Promise<void>;
  /** Sends the scheduled retries now (e.g. when the browser is online again). */
  retryNow(): void;
  /**
   * Another editor stored `value` at `version` (a live `saved` event): a
   * clean field shows it; a field with unsaved edits gets the conflict
   * choice at once. Ignored while the field's own save is in flight (its
   * answer decides) or a conflict is pending.
   */
  stored(id: string, value: string, version?: string): void;
  /**
   * Settles a pending conflict: keep mine (saved again on top of the stored
   * version), use the stored value, or cancel (the field stays dirty and
   * failed; the next save asks again).
   */
  resolve(id: string, choice: "mine" | "stored" | "cancel"): Promise<void>;
  /** Stops: timers cleared, answers still in flight ignored. */
  destroy(): void;
}
