/**
 * The model's shared state and its field rules: adding a field, the bar's
 * summary, setting a value (draft and `cms:dirty` kept in step), moving the
 * stored value along, restoring drafts, forgetting a failure and its
 * scheduled retry, and stopping. `model_save.ts` sends and answers on top
 * of it; `model.ts` puts both together.
 *
 * @module
 */

import type {
  Clock,
  DraftStore,
  Field,
  FieldInit,
  ModelOptions,
  ModelStatus,
} from "./model_types.ts";

/** What the model's parts share (one per `createModel`). */
export interface State {
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

/** Whether `f` has unsaved edits: its value differs from the stored one. */
export const isDirty = (f: Field) => f.value !== f.base;

// --- fields and values -----------------------------------------------------

/** Adds the field `i` stored as `value`, or returns the one of its id. */
export function addField(m: State, i: FieldInit, value: string): Field {
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
export function statusOf(fields: Field[]): ModelStatus {
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
export function edit(m: State, id: string, value: string): void {
  const f = m.by.get(id);
  if (f && f.value !== value) set(m, f, value, isDirty(f));
}

/** Sets `f`'s value (`was`: dirty before); keeps its draft and events. */
export function set(m: State, f: Field, value: string, was: boolean): void {
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
export function rebase(
  m: State,
  f: Field,
  base: string,
  version?: string,
): void {
  m.drafts?.clear(f);
  f.base = base;
  if (version) f.version = version;
}

// --- drafts ----------------------------------------------------------------

/** `Model.restoreDrafts`: the stored drafts that still apply, as edits. */
export function restoreDrafts(m: State): Field[] {
  const draft = m.drafts?.read();
  return draft
    ? m.fields.filter((f) => {
      const d = draft(f);
      if (d !== undefined) edit(m, f.id, d);
      return d !== undefined;
    })
    : [];
}

// --- a failure's retry, and stopping -------------------------------------

/** Forgets a failure and a scheduled retry. */
export function forget(m: State, f: Field): void {
  if (f.saving) return;
  f.error = f.retryAt = undefined;
  unschedule(m, f);
  m.attempts.delete(f);
}

/** Cancels `f`'s scheduled retry, if any. */
export function unschedule(m: State, f: Field): void {
  if (!m.timers.has(f)) return;
  m.clock.clearTimeout(m.timers.get(f));
  m.timers.delete(f);
}

/** `Model.destroy`: timers cleared, the queue emptied, waiters released. */
export function destroy(m: State): void {
  m.alive = false;
  for (const f of m.timers.keys()) unschedule(m, f);
  m.queue.length = 0;
  m.drafts?.flush?.();
  for (const r of m.idle) r();
  m.idle = [];
}
