/**
 * Presence and live changes, the state part (no DOM): who else is on the
 * page and which field each has focused or changed, this editor's own
 * focus and unsaved fields (reported to the server, at most one report in
 * flight: changes meanwhile are gathered into the next). What a
 * `saved` event does to a field is the model's rule (`Model.stored`).
 * `presence_view.ts` wires both to the page.
 *
 * @module
 */

import type { PresenceBody, PresenceEntry } from "../core/protocol/mod.ts";

/** Options of {@linkcode createPresence}. */
export interface PresenceOptions {
  /**
   * Sends a presence report (the view POSTs it); resolves when answered.
   * One report is in flight at a time: changes meanwhile go in the next.
   */
  report(body: PresenceBody): Promise<unknown>;
  /** Called when the other editors or their fields changed. */
  changed(): void;
}

/** The presence state of one page. */
export interface Presence {
  /**
   * Everybody else on the page (other streams; the same editor elsewhere
   * too), kept from `presence` events: the whole board, then changes.
   */
  readonly others: PresenceEntry[];
  /** Handles an event of the stream by name, with its parsed data. */
  receive(event: string, data: unknown): void;
  /** This editor focused `field` (or left every field: `null`). */
  focus(field: string | null): void;
  /** This editor's unsaved state of `field`. */
  dirty(field: string, dirty: boolean): void;
  /** The names of others with `field` focused or changed. */
  editing(field: string): string[];
  /** Stops reporting. */
  destroy(): void;
}

/**
 * Up to two initials of a name, e.g. "Ada Lovelace" → "AL", "ada" → "A".
 *
 * @example
 * ```ts
 * import { initials } from "./presence.ts";
 * initials("Ada Lovelace"); // "AL"
 * ```
 */
export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const first = [...parts[0] ?? "?"][0];
  const last = parts.length > 1 ? [...parts[parts.length - 1]][0] : "";
  return (first + last).toUpperCase();
}

/**
 * Creates the presence state of a page.
 *
 * @example
 * ```ts
 * import { createPresence } from "./presence.ts";
 * const p = createPresence({
 *   report: (b) => fetch("/api/cms/events", { method: "POST", body: JSON.stringify(b) }),
 *   changed() {},
 * });
 * p.receive("hello", { stream: "s1" });
 * p.focus("pages:home:title"); // reported at the end of this task
 * ```
 */
export function createPresence(options: PresenceOptions): Presence {
  let me: string | undefined;
  let focused: string | null = null;
  const unsaved = new Set<string>();
  let others: PresenceEntry[] = [];
  // No timers (a background tab's are throttled for seconds): changes in
  // one task go as one report, and while one is in flight, the rest wait
  // for its answer and go as one more.
  let queued = false, inFlight = false, again = false;

  function report() {
    queued = false;
    if (!me) return;
    if (inFlight) return void (again = true);
    inFlight = true;
    const body = { stream: me, focus: focused, dirty: [...unsaved] };
    options.report(body).catch(() => {}).finally(() => {
      inFlight = false;
      if (again) (again = false, report());
    });
  }
  function soon() {
    if (!queued) (queued = true, queueMicrotask(report));
  }

  return {
    get others() {
      return others;
    },
    receive(event, data) {
      const d = data as Record<string, unknown>;
      if (event === "hello" && typeof d.stream === "string") {
        me = d.stream;
        // A new stream (a reconnect): tell it where we are.
        if (focused || unsaved.size) soon();
      } else if (event === "presence") {
        // The whole board (`editors`), or what changed (`set`, `gone`).
        const set = (d.editors ?? d.set ?? []) as PresenceEntry[];
        const drop = new Set(d.gone as string[] ?? []);
        for (const e of set) drop.add(e.stream);
        others = (d.editors ? [] : others).filter((e) => !drop.has(e.stream))
          .concat(set.filter((e) => e.stream !== me));
        options.changed();
      }
    },
    focus(field) {
      if (focused !== field) (focused = field, soon());
    },
    dirty(field, dirty) {
      if (unsaved.has(field) !== dirty) {
        if (dirty) unsaved.add(field);
        else unsaved.delete(field);
        soon();
      }
    },
    editing: (field) =>
      others.filter((e) => e.focus === field || e.dirty.includes(field))
        .map((e) => e.name),
    destroy() {
      me = undefined;
    },
  };
}
