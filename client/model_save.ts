/**
 * Saving, for the model: the queue under the concurrency limit, sending a
 * field's value and handling the answer (saved, failed, conflict), the
 * automatic retry after a retryable failure, and conflicts, whether a 409
 * or a value another editor stored. The field rules it builds on are in
 * `model_fields.ts`.
 *
 * @module
 */

import type { ListSaveBody, SaveBody } from "../core/protocol/mod.ts";
import {
  forget,
  isDirty,
  rebase,
  set,
  type State,
  unschedule,
} from "./model_fields.ts";
import type { Field, SaveAnswer } from "./model_types.ts";

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

// --- the queue and sending -------------------------------------------------

/** Queues `list` for sending; resolves once the queue has drained. */
export function enqueue(m: State, list: Field[]): Promise<void> {
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
export function storedElsewhere(
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
export async function resolve(
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
