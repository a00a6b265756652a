/**
 * The heartbeat of the editor event stream: a timer at a quarter of the
 * heartbeat interval (so an instance that is gone has its editors leave
 * within 1.75 heartbeats), with a beat every fourth tick.
 *
 * @module
 */

/** The comment line every stream gets on each beat. */
export const HEARTBEAT_LINE = ": \n\n";

/** What a {@linkcode Heartbeat} does on its ticks. */
export interface HeartbeatTasks {
  /** Every quarter interval, with `performance.now()`. */
  quarter(now: number): void;
  /** Every interval, after that quarter's task. */
  beat(): Promise<void>;
}

/**
 * A timer that runs {@linkcode HeartbeatTasks.quarter} every quarter of
 * `intervalMs` and {@linkcode HeartbeatTasks.beat} every `intervalMs` (the
 * first tick beats too). It does not keep the process alive.
 *
 * @example
 * ```ts
 * import { Heartbeat } from "./_heartbeat.ts";
 * const heartbeat = new Heartbeat(15_000, {
 *   quarter: () => {},
 *   beat: () => Promise.resolve(),
 * });
 * heartbeat.start();
 * heartbeat.stop();
 * ```
 */
export class Heartbeat {
  readonly #intervalMs: number;
  readonly #tasks: HeartbeatTasks;
  #timer: ReturnType<typeof setInterval> | undefined;
  #ticks = 0;

  /** A heartbeat every `intervalMs`, not started yet. */
  constructor(intervalMs: number, tasks: HeartbeatTasks) {
    this.#intervalMs = intervalMs;
    this.#tasks = tasks;
  }

  /** Starts the timer. */
  start(): void {
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs / 4);
    Deno.unrefTimer(this.#timer);
  }

  /** Stops the timer. */
  stop(): void {
    clearInterval(this.#timer);
  }

  /** One quarter tick; every fourth one beats. */
  async #tick(): Promise<void> {
    this.#tasks.quarter(performance.now());
    if (this.#ticks++ % 4 !== 0) return;
    await this.#tasks.beat();
  }
}
