/**
 * The scheduler: fires due schedules of a {@linkcode ScheduleStore}. One
 * precise timer waits for the soonest schedule this instance knows of; it
 * never waits longer than `pollMs`, so schedules made on other instances
 * (and ones missed while every instance was down) are found by the next
 * poll, and at `start()`. Without a process that stays up (Deno Deploy),
 * `tick()` fires what is due from a job scheduler such as `Deno.cron`
 * instead. The store makes each firing exactly-once, so any number of
 * instances may run a scheduler (or tick) on one store.
 *
 * A firing that throws never holds up the others: a failure that cannot
 * pass (the store refuses the publish with a 4xx error, e.g. too large; a
 * field the allowlist no longer has) marks the schedule failed at once; any
 * other (a lost race, the network) is tried again with backoff, at most
 * {@linkcode MAX_TRIES} times in all, then marked failed. Every schedule
 * marked failed reaches `onFire` (editors hear of it) with its reason.
 *
 * @module
 */
import { errorFacts, log } from "../ops/mod.ts";
import type {
  Draft,
  Schedule,
  ScheduleCursor,
  ScheduleFailure,
  ScheduleFiring,
  ScheduleStore,
} from "../store/mod.ts";
import { allowedField, type Editor } from "../http/mod.ts";
import type { Allowlist } from "../../core/content.ts";
import { storedAddress } from "../../core/stored_address.ts";

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
  /**
   * The fields editors may change (the endpoints' allowlist): a schedule
   * naming a field it no longer has fails at once, publishing nothing.
   */
  allowlist?: Allowlist;
}

/** How many times a schedule is tried before it is marked failed. */
export const MAX_TRIES = 5;
/** The wait before try `n + 1` (after `n` tries): 1 s, 2 s, 4 s, 8 s. */
function retryDelay(n: number): number {
  return 1000 * 2 ** (n - 1);
}
/** How many due schedules one read of the store takes. */
const BATCH = 100;

/** Whether `err` is a refusal that trying again cannot change (a 4xx). */
function isRefusal(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === "number" && status >= 400 && status < 500;
}

/** The text of an error, for a reason editors read. */
function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
  readonly #allowlist: Allowlist | undefined;
  /** Schedules whose firing threw: tries so far, and when to try again. */
  readonly #retries = new Map<string, { tries: number; next: number }>();
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
    this.#allowlist = options.allowlist;
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
   * Fires every schedule due now, without a timer: the handler for a job
   * scheduler such as `Deno.cron`, where no process stays up between
   * requests (Deno Deploy). Any number of processes may tick at once: each
   * schedule still fires exactly once. A failure to read the store
   * rejects (the job runner may retry); failures of single schedules are
   * handled as in {@linkcode runDue}.
   *
   * @example
   * ```ts
   * import { KvContentStore, Scheduler } from "@inplace/cms";
   * const store = new KvContentStore(await Deno.openKv());
   * const scheduler = new Scheduler({ store });
   * Deno.cron("cms schedules", "* * * * *", () => scheduler.tick());
   * ```
   */
  async tick(): Promise<void> {
    await this.runDue();
  }

  /**
   * Fires every schedule due at `now`, soonest first, reading only the due
   * ones; resolves to what fired here (a schedule another instance fired is
   * not in it), failed ones too. One that throws is retried later or marked
   * failed (see the module doc); it holds up no other.
   */
  async runDue(now: number = Date.now()): Promise<ScheduleFiring[]> {
    const fired: ScheduleFiring[] = [];
    const seen = new Set<string>();
    let after: ScheduleCursor | undefined;
    for (;;) {
      const due = await this.#store.schedules({
        dueBy: now,
        after,
        limit: BATCH,
      });
      for (const s of due) {
        seen.add(s.id);
        const retry = this.#retries.get(s.id);
        if (retry && retry.next > now) continue;
        const firing = await this.#fire(s, now).catch((err) => {
          // Even marking it failed threw (the store is down): next round.
          log({
            level: "error",
            msg: "schedule round failed",
            error: errorFacts(err),
          });
          return null;
        });
        if (firing) {
          fired.push(firing);
          await this.#report(firing);
        }
      }
      if (due.length < BATCH) break;
      after = due[due.length - 1];
    }
    // Forget retries of schedules no longer due here (cancelled, fired).
    for (const id of this.#retries.keys()) {
      if (!seen.has(id)) this.#retries.delete(id);
    }
    return fired;
  }

  /** Fires one due schedule; a throw becomes a retry or a failure. */
  async #fire(s: Schedule, now: number): Promise<ScheduleFiring | null> {
    const refused = this.#refusedField(s);
    if (refused) return await this.#fail(s, now, refused);
    try {
      const firing = await this.#store.fireSchedule(s.id, now);
      this.#retries.delete(s.id);
      return firing;
    } catch (err) {
      if (isRefusal(err)) {
        return await this.#fail(
          s,
          now,
          `Refused by the store: ${messageOf(err)}`,
        );
      }
      const tries = (this.#retries.get(s.id)?.tries ?? 0) + 1;
      log({
        level: "warn",
        msg: "schedule firing failed",
        route: "schedule",
        reason: `try ${tries} of ${MAX_TRIES}`,
        error: errorFacts(err),
      });
      if (tries < MAX_TRIES) {
        this.#retries.set(s.id, { tries, next: now + retryDelay(tries) });
        return null;
      }
      return await this.#fail(
        s,
        now,
        `Failed ${tries} times: ${messageOf(err)}`,
      );
    }
  }

  /** The reason a field of `s` is no longer allowlisted; else `null`. */
  #refusedField(s: Schedule): string | null {
    if (!this.#allowlist) return null;
    for (const ref of s.fields) {
      const address = storedAddress(ref);
      try {
        allowedField(this.#allowlist, address);
      } catch (err) {
        return `No longer editable: ${address} (${messageOf(err)})`;
      }
    }
    return null;
  }

  /** Marks `s` failed with `reason`; its firing, or `null` if it is gone. */
  async #fail(
    s: Schedule,
    now: number,
    reason: string,
  ): Promise<ScheduleFiring | null> {
    const failed: ScheduleFailure = { at: new Date(now).toISOString(), reason };
    const schedule = await this.#store.failSchedule(s.id, failed);
    this.#retries.delete(s.id);
    if (!schedule) return null;
    const { failed: _, ...before } = schedule;
    return {
      schedule: before,
      result: { published: [], conflicts: [] },
      failed,
    };
  }

  /** One round: fire what is due, then wait for the soonest or a poll. */
  async #round(): Promise<void> {
    let soonest = Infinity;
    try {
      await this.runDue();
      const [next] = await this.#store.schedules({ pending: true, limit: 1 });
      if (next) soonest = Date.parse(next.at);
      for (const { next } of this.#retries.values()) {
        soonest = Math.min(soonest, next);
      }
    } catch (err) {
      log({
        level: "error",
        msg: "schedule round failed",
        error: errorFacts(err),
      });
    }
    if (this.#stopped || this.#again) return;
    // A due one left pending is being fired by another instance (or waits
    // for a retry): look again after a second, not in a busy loop.
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
