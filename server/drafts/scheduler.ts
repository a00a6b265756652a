/**
 * The scheduler: fires due schedules of a {@linkcode ScheduleStore}. One
 * precise timer waits for the soonest schedule this instance knows of; it
 * never waits longer than `pollMs`, so schedules made on other instances
 * (and ones missed while every instance was down) are found by the next
 * poll, and at `start()`. The store makes each firing exactly-once, so any
 * number of instances may run a scheduler on one store.
 *
 * @module
 */
import { errorFacts, log } from "../ops/mod.ts";
import {
  type Draft,
  isDue,
  type Schedule,
  type ScheduleFiring,
  type ScheduleStore,
} from "../store/mod.ts";
import type { Editor } from "../http/mod.ts";

/** Options of {@linkcode Scheduler}. */
export interface SchedulerOptions {
  /** Where schedules, drafts and records live. */
  store: ScheduleStore;
  /**
   * Longest wait between two looks at the store, in ms: how late a
   * schedule made on another instance can fire at worst. Default 5000.
   */
  pollMs?: number;
  /**
   * Called after a schedule published, as the publish endpoint's
   * `onPublish` (e.g. to purge a cache); the editor is the one who
   * scheduled it. An error it throws is logged.
   */
  onPublish?: (published: Draft[], editor: Editor) => void | Promise<void>;
  /**
   * Called after each firing (published or failed), e.g. for metrics, or
   * `EditorEvents.onFire` to tell editors. An error it throws is logged.
   */
  onFire?: (firing: ScheduleFiring) => void | Promise<void>;
}

/** Longest `setTimeout` delay. */
const MAX_DELAY = 2 ** 31 - 1;

/**
 * Fires the schedules of a store at their time.
 *
 * @example
 * ```ts
 * import { MemoryContentStore, Scheduler } from "@inplace/cms";
 * const scheduler = new Scheduler({ store: new MemoryContentStore() });
 * await scheduler.start();
 * // … serve; after a new schedule, `scheduler.wake()` re-arms the timer.
 * await scheduler.stop();
 * ```
 */
export class Scheduler {
  readonly #store: ScheduleStore;
  readonly #pollMs: number;
  readonly #onPublish: SchedulerOptions["onPublish"];
  readonly #onFire: SchedulerOptions["onFire"];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = true;

  /** A scheduler over `options.store`; it does nothing until `start()`. */
  constructor(options: SchedulerOptions) {
    const pollMs = options.pollMs ?? 5000;
    if (!(Number.isFinite(pollMs) && pollMs >= 10)) {
      throw new RangeError("pollMs must be a number ≥ 10");
    }
    this.#store = options.store;
    this.#pollMs = pollMs;
    this.#onPublish = options.onPublish;
    this.#onFire = options.onFire;
  }

  /** The store this scheduler fires. */
  get store(): ScheduleStore {
    return this.#store;
  }

  /**
   * Fires every schedule due now (those missed while no instance ran,
   * too) and arms the timer. Resolves once that first round is done.
   */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.wake();
    await this.#running;
  }

  /** Looks at the store again now (call it after making a schedule). */
  wake(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#round().finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Stops the timer and waits for a firing in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#again = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /**
   * Fires every schedule due at `now`, soonest first; resolves to what
   * fired here (a schedule another instance fired is not in it).
   */
  async runDue(now: number = Date.now()): Promise<ScheduleFiring[]> {
    const fired: ScheduleFiring[] = [];
    for (const s of await this.#store.schedules()) {
      if (!isDue(s, now)) continue;
      const firing = await this.#store.fireSchedule(s.id, now);
      if (firing) {
        fired.push(firing);
        await this.#report(firing);
      }
    }
    return fired;
  }

  /** One round: fire what is due, then wait for the soonest or a poll. */
  async #round(): Promise<void> {
    let pending: Schedule[] = [];
    try {
      await this.runDue();
      pending = (await this.#store.schedules()).filter((s) => !s.failed);
    } catch (err) {
      log({
        level: "error",
        msg: "schedule round failed",
        error: errorFacts(err),
      });
    }
    if (this.#stopped || this.#again) return;
    // A due one left pending is being fired by another instance (or its
    // store failed): look again after a second, not in a busy loop.
    const soonest = pending.length ? Date.parse(pending[0].at) : Infinity;
    const wait = soonest - Date.now();
    const delay = Math.min(wait > 0 ? wait : 1000, this.#pollMs);
    this.#timer = setTimeout(() => this.wake(), Math.min(delay, MAX_DELAY));
  }

  async #report(firing: ScheduleFiring): Promise<void> {
    const { schedule, result, failed } = firing;
    // One info line per firing, published or not (a conflict is an
    // expected outcome, shown to editors, like a 409).
    log({
      level: "info",
      msg: failed ? "schedule failed" : "schedule published",
      route: "schedule",
      editor: schedule.editor,
      reason: failed?.reason,
    });
    try {
      if (!failed && this.#onPublish) {
        await this.#onPublish(result.published, { name: schedule.editor });
      }
    } catch (err) {
      log({ level: "error", msg: "onPublish failed", error: errorFacts(err) });
    }
    try {
      await this.#onFire?.(firing);
    } catch (err) {
      log({ level: "error", msg: "onFire failed", error: errorFacts(err) });
    }
  }
}
