/**
 * The editing session's model, apart from the DOM: fields (stored value,
 * current value, version), dirty state, drafts, saving with a concurrency
 * limit, conflicts and automatic retry. It talks to the world only through
 * what it is given (`send`, a draft store, a clock, `emit`), so tests drive
 * it without a browser; `cms.ts` wires the page to it.
 *
 * Retry: a save answered 0 (no answer), 429, 502, 503 or 504 keeps the
 * field dirty and is sent again after `Retry-After` when the server gave
 * one, else after a jittered exponential backoff (1 s, 2 s, 4 s… capped at
 * 30 s), at most 6 attempts in all. Any other answer is final until the
 * editor saves again.
 *
 * @module
 */

import type { ListSaveBody, SaveBody } from "../core/wire.ts";

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

/** Milliseconds to wait for a `Retry-After` value, if it is one. */
export function retryAfterMs(
  value: string | undefined,
  now: number,
): number | undefined {
  if (!value) return;
  const s = value.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const at = Date.parse(s);
  if (!Number.isNaN(at)) return Math.max(0, at - now);
}

const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as number),
  random: Math.random,
};

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

/** The editing session's state machine, made by {@linkcode createModel}. */
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

/**
 * Starts a session on `init`, whose stored values are `values` (same
 * order). The `init` objects become the fields (no copy).
 *
 * @example
 * ```ts
 * import { createModel } from "./model.ts";
 * const model = createModel(
 *   [{ id: "pages:home:title", collection: "pages", key: "home", field: "title", rich: false }],
 *   ["Hello"],
 *   { send: async () => ({ status: 204, text: "", version: "v2" }) },
 * );
 * model.edit("pages:home:title", "Hello!");
 * await model.save();
 * model.status().dirty; // 0
 * ```
 */
export function createModel(
  init: FieldInit[],
  values: string[],
  options: ModelOptions,
): Model {
  const m: State = {
    options,
    drafts: options.drafts,
    clock: options.clock ?? realClock,
    changed: options.onChange ?? (() => {}),
    fields: [],
    by: new Map(),
    queue: [],
    timers: new Map(),
    attempts: new Map(),
    idle: [],
    active: 0,
    alive: true,
  };
  init.forEach((i, n) => addField(m, i, values[n]));
  const { fields, by, drafts } = m;
  return {
    fields,
    get: (id) => by.get(id),
    add: (i, value) => addField(m, i, value),
    status: () => statusOf(fields),
    edit: (id, value) => edit(m, id, value),
    revert(id) {
      const f = by.get(id);
      if (f) edit(m, id, f.base);
    },
    rebase(id, base, version) {
      const f = by.get(id);
      if (f && !isDirty(f) && !f.saving) {
        rebase(m, f, base, version);
        set(m, f, base, false);
      }
    },
    restoreDrafts: () => restoreDrafts(m),
    dropDrafts() {
      for (const f of fields) if (isDirty(f)) drafts?.clear(f);
      drafts?.flush?.();
    },
    save() {
      const todo = fields.filter((f) => isDirty(f) && !f.saving && !f.conflict);
      for (const f of todo) m.attempts.delete(f);
      return enqueue(m, todo);
    },
    retryNow() {
      void enqueue(m, [...m.timers.keys()]);
    },
    stored: (id, value, version) => storedElsewhere(m, id, value, version),
    resolve: (id, choice) => resolve(m, id, choice),
    destroy: () => destroy(m),
  };
}

/** What the model's parts share (one per {@linkcode createModel}). */
interface State {
  options: ModelOptions;
  drafts?: DraftStore;
  clock: Clock;
  changed(f: Field): void;
  fields: Field[];
  by: Map<string, Field>;
  /** Fields waiting to be sent, in order. */
  queue: Field[];
  /** Scheduled retries. */
  timers: Map<Field, unknown>;
  /** Attempts so far, per field, since the editor last saved it. */
  attempts: Map<Field, number>;
  /** Resolvers of `save()` calls, run once the queue has drained. */
  idle: (() => void)[];
  /** Requests in flight. */
  active: number;
  alive: boolean;
}

const isDirty = (f: Field) => f.value !== f.base;

// --- fields and values -----------------------------------------------------

/** Adds the field `i` stored as `value`, or returns the one of its id. */
function addField(m: State, i: FieldInit, value: string): Field {
  let f = m.by.get(i.id);
  if (f) return f;
  f = i as Field;
  f.base = f.value = value;
  f.saving = false;
  m.fields.push(f);
  m.by.set(f.id, f);
  return f;
}

/** The edit bar's summary of `fields`. */
function statusOf(fields: Field[]): ModelStatus {
  let dirty = 0, saving = false, failed: Field | undefined, removed = 0;
  for (const f of fields) {
    if (isDirty(f)) dirty++;
    saving ||= f.saving;
    failed ??= f.error && f;
    removed += f.removed ?? 0;
  }
  return { dirty, saving, failed, removed };
}

/** `Model.edit`: sets the field's value when it changes. */
function edit(m: State, id: string, value: string): void {
  const f = m.by.get(id);
  if (f && f.value !== value) set(m, f, value, isDirty(f));
}

/** Sets `f`'s value (`was`: dirty before); keeps its draft and events. */
function set(m: State, f: Field, value: string, was: boolean): void {
  f.value = value;
  const dirty = isDirty(f);
  if (!dirty) forget(m, f);
  m.drafts?.write(f);
  if (dirty !== was) {
    m.options.emit?.("cms:dirty", { field: f.id, value, dirty });
  }
  m.changed(f);
}

/** The stored value is now `base` (at `version`): move the draft along. */
function rebase(m: State, f: Field, base: string, version?: string): void {
  m.drafts?.clear(f);
  f.base = base;
  if (version) f.version = version;
}

// --- drafts ----------------------------------------------------------------

/** `Model.restoreDrafts`: the stored drafts that still apply, as edits. */
function restoreDrafts(m: State): Field[] {
  const draft = m.drafts?.read();
  return draft
    ? m.fields.filter((f) => {
      const d = draft(f);
      if (d !== undefined) edit(m, f.id, d);
      return d !== undefined;
    })
    : [];
}

// --- the queue and sending -------------------------------------------------

/** Queues `list` for sending; resolves once the queue has drained. */
function enqueue(m: State, list: Field[]): Promise<void> {
  const added: Field[] = [];
  for (const f of list) {
    unschedule(m, f);
    f.retryAt = undefined;
    if (!f.saving) {
      f.saving = true;
      m.queue.push(f);
      added.push(f);
    }
  }
  const done = new Promise<void>((r) => m.idle.push(r));
  pump(m);
  // The requests are out first; the page shows them as saving meanwhile.
  for (const f of added) m.changed(f);
  return done;
}

/** Sends queued fields up to the concurrency limit; settles when drained. */
function pump(m: State): void {
  const most = Math.max(1, m.options.concurrency ?? 64);
  while (m.active < most && m.queue[0]) {
    m.active++;
    void send(m, m.queue.shift()!).finally(() => {
      m.active--;
      pump(m);
    });
  }
  if (!m.active && !m.queue[0]) {
    // The drafts of saved fields go in one batch once the queue is
    // drained: a storage write per answer, between network tasks, costs
    // Chromium about ten times more than the same writes in a row.
    m.drafts?.flush?.();
    for (const r of m.idle) r();
    m.idle = [];
  }
}

/** Sends `f`'s value once and handles the answer. */
async function send(m: State, f: Field): Promise<void> {
  const { collection, key, field, version, value } = f;
  const body: SaveBody | ListSaveBody = {
    collection,
    key,
    field,
    value: f.list ? JSON.parse(value) : value,
  };
  if (version !== undefined) body.version = version;
  const attempt = (m.attempts.get(f) ?? 0) + 1;
  m.attempts.set(f, attempt);
  const r: SaveAnswer = await m.options.send(body).catch((e) => ({
    status: 0,
    text: String(e?.message ?? e),
  }));
  if (!m.alive) return;
  f.saving = false;
  answered(m, f, r, attempt, value, version !== undefined);
}

/**
 * Handles the answer `r` to attempt `attempt` at storing `value` (sent with
 * a version when `versioned`).
 */
function answered(
  m: State,
  f: Field,
  r: SaveAnswer,
  attempt: number,
  value: string,
  versioned: boolean,
): void {
  const c = conflictOf(f, r);
  if (r.status >= 200 && r.status < 300) {
    f.removed = r.removed;
    saved(m, f, value, r.version, versioned);
  } else if (c && c.stored === value) {
    // Ours was stored, but its answer got lost (then retried): saved.
    saved(m, f, value, c.version, versioned);
  } else if (c) {
    m.attempts.delete(f);
    conflicted(m, f, c.stored, c.version);
  } else failed(m, f, r, attempt, value);
}

/** `value` is stored (at `version`; an unversioned field stays so). */
function saved(
  m: State,
  f: Field,
  value: string,
  version: string | undefined,
  keep: boolean,
): void {
  rebase(m, f, value, keep ? version : undefined);
  forget(m, f);
  // Edited while in flight: the rest is a draft on the new base.
  if (isDirty(f)) m.drafts?.write(f);
  m.options.emit?.("cms:saved", { field: f.id, value, version });
  m.changed(f);
}

// --- failures and retries --------------------------------------------------

/** Statuses after which a save is retried automatically. */
const RETRY = new Set([0, 429, 502, 503, 504]);

/** A failed save (not a conflict): reported, and retried if it may be. */
function failed(
  m: State,
  f: Field,
  r: SaveAnswer,
  attempt: number,
  value: string,
): void {
  const reason = r.text.trim().slice(0, 200) || `HTTP ${r.status}`;
  m.options.emit?.("cms:error", {
    field: f.id,
    value,
    status: r.status,
    reason,
  });
  // Reverted meanwhile: nothing is left to save or to report.
  if (isDirty(f)) {
    f.error = { status: r.status, reason };
    schedule(m, f, attempt, r);
  }
  m.changed(f);
}

/** Forgets a failure and a scheduled retry. */
function forget(m: State, f: Field): void {
  if (f.saving) return;
  f.error = f.retryAt = undefined;
  unschedule(m, f);
  m.attempts.delete(f);
}

/** Cancels `f`'s scheduled retry, if any. */
function unschedule(m: State, f: Field): void {
  if (!m.timers.has(f)) return;
  m.clock.clearTimeout(m.timers.get(f));
  m.timers.delete(f);
}

/** Schedules the next attempt after a retryable failure, if one is left. */
function schedule(m: State, f: Field, attempt: number, r: SaveAnswer): void {
  const { clock, options } = m;
  const { base = 1000, max = 30_000, attempts: most = 6 } = options.retry ??
    {};
  if (!RETRY.has(r.status) || attempt >= most) {
    m.attempts.delete(f);
    return;
  }
  const now = clock.now();
  const told = retryAfterMs(r.retryAfter, now);
  const step = Math.min(max, base * 2 ** (attempt - 1));
  // Equal jitter: half the step, plus up to the other half at random. A
  // server-given Retry-After is a floor; up to 10% is added to spread.
  const wait = told !== undefined
    ? told * (1 + clock.random() / 10)
    : step / 2 + clock.random() * step / 2;
  f.retryAt = now + wait;
  m.timers.set(
    f,
    clock.setTimeout(() => {
      m.timers.delete(f);
      if (isDirty(f)) void enqueue(m, [f]);
    }, wait),
  );
}

// --- conflicts -------------------------------------------------------------

/** The stored value and version a 409 answer names (else `undefined`). */
function conflictOf(
  f: Field,
  r: SaveAnswer,
): { stored: string; version?: string } | undefined {
  let c: { value?: unknown; version?: string } | undefined;
  try {
    if (r.status === 409) c = JSON.parse(r.text);
  } catch { /* not the conflict JSON: a plain error */ }
  if (!c) return;
  const stored = typeof c.value === "string"
    ? c.value
    : f.list && Array.isArray(c.value)
    ? JSON.stringify(c.value)
    : "";
  return { stored, version: c.version };
}

/** Another value is stored (at `version`): ask which to keep. */
function conflicted(
  m: State,
  f: Field,
  stored: string,
  version?: string,
): void {
  f.error = { status: 409, reason: "conflict" };
  f.conflict = { stored, version };
  m.options.emit?.("cms:conflict", {
    field: f.id,
    value: f.value,
    stored,
    version,
  });
  m.changed(f);
  m.options.onConflict?.(f);
}

/** `Model.stored`: another editor stored `value` at `version`. */
function storedElsewhere(
  m: State,
  id: string,
  value: string,
  version?: string,
): void {
  const f = m.by.get(id);
  if (!f || !m.alive || f.saving || f.conflict || f.version === version) {
    return;
  }
  if (isDirty(f) && f.value !== value) {
    return conflicted(m, f, value, version);
  }
  const was = isDirty(f);
  rebase(m, f, value, version);
  set(m, f, value, was);
}

/** `Model.resolve`: settles `id`'s pending conflict with `choice`. */
async function resolve(
  m: State,
  id: string,
  choice: "mine" | "stored" | "cancel",
): Promise<void> {
  const f = m.by.get(id);
  const c = f?.conflict;
  if (!f || !c || !m.alive) return;
  f.conflict = undefined;
  if (choice === "cancel") return m.changed(f);
  const was = isDirty(f);
  rebase(m, f, c.stored, c.version);
  f.error = undefined;
  set(m, f, choice === "mine" ? f.value : c.stored, was);
  if (isDirty(f)) await enqueue(m, [f]);
  else m.drafts?.flush?.();
}

/** `Model.destroy`: timers cleared, the queue emptied, waiters released. */
function destroy(m: State): void {
  m.alive = false;
  for (const f of m.timers.keys()) unschedule(m, f);
  m.queue.length = 0;
  m.drafts?.flush?.();
  for (const r of m.idle) r();
  m.idle = [];
}
