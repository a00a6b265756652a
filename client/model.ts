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

import {
  addField,
  destroy,
  edit,
  isDirty,
  rebase,
  restoreDrafts,
  set,
  type State,
  statusOf,
} from "./model_fields.ts";
import { enqueue, resolve, storedElsewhere } from "./model_save.ts";
import type { Clock, FieldInit, Model, ModelOptions } from "./model_types.ts";

export type {
  Clock,
  DraftStore,
  Field,
  FieldInit,
  Model,
  ModelEvents,
  ModelOptions,
  ModelStatus,
  SaveAnswer,
} from "./model_types.ts";
export { retryAfterMs } from "./model_save.ts";

const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as number),
  random: Math.random,
};

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
