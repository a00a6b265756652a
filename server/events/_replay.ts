/**
 * The replay buffer of the editor event stream: the latest content events
 * (by count and by bytes of values), numbered within this instance's epoch
 * (or, over a bus with a shared log, by the log's epoch and positions, the
 * same on every process), so a reconnect that sends `Last-Event-ID` gets what it missed, or
 * `resync` when it missed more than is kept or the id is from elsewhere.
 *
 * @module
 */
import { randomHex } from "../http/mod.ts";
import type { ContentValue } from "../store/mod.ts";

/** The names of the content events (the ones with an `id:`). */
export type ContentEventName =
  | "saved"
  | "published"
  | "drafts"
  | "schedule"
  | "comments";

/** A content event before it is numbered. */
export interface ContentEvent {
  /** The event name. */
  readonly name: ContentEventName;
  /** The addresses the listener must be allowed to edit (any of them). */
  readonly fields: string[];
  /** The data, built once for all (values filtered per listener). */
  readonly data: object;
  /** Bytes of values it holds, for the buffer's byte budget. */
  readonly bytes: number;
}

/** A content event kept for reconnects. */
export interface Buffered extends ContentEvent {
  /** Its number within the epoch. */
  readonly seq: number;
  /** The encoded frame of a `saved` event, made on first delivery. */
  frame?: Uint8Array;
}

/** The limits of a {@linkcode ReplayBuffer}, read at each push. */
export interface ReplayLimits {
  /** Content events kept. Default 256. */
  bufferEvents?: number;
  /** Bytes of values kept at most. Default 4 MiB. */
  bufferBytes?: number;
}

/**
 * The content events kept for `Last-Event-ID` reconnects. Ids are
 * `EPOCH-SEQ`: the epoch is random per instance, so an id from another
 * instance (or before a restart) is never mistaken for one of ours.
 *
 * @example
 * ```ts
 * import { ReplayBuffer } from "./_replay.ts";
 * const buffer = new ReplayBuffer({});
 * const event = buffer.push({ name: "drafts", fields: [], data: {}, bytes: 0 });
 * buffer.after(buffer.idOf(event)); // []
 * buffer.after("elsewhere-1"); // null: resync
 * ```
 */
export class ReplayBuffer {
  #epoch: string = randomHex(4);
  readonly #limits: ReplayLimits;
  #events: Buffered[] = [];
  #bytes = 0;
  #seq = 0;
  /** The oldest id after which every event is kept (or was never made). */
  #floor = 0;

  /** A buffer within `limits` (an options object; read at each push). */
  constructor(limits: ReplayLimits) {
    this.#limits = limits;
  }

  /** The id prefix: random per instance, or a shared log's epoch. */
  get epoch(): string {
    return this.#epoch;
  }

  /**
   * Starts afresh in `epoch` after number `seq`: what is kept is dropped,
   * and only ids from `seq` on are answered (a shared log's position).
   */
  restart(epoch: string, seq: number): void {
    this.#epoch = epoch;
    this.#events = [];
    this.#bytes = 0;
    this.#seq = this.#floor = seq;
  }

  /**
   * Notes that every event up to number `seq` was made (a shared log's
   * message that made none here still moves the numbering on).
   */
  reach(seq: number): void {
    this.#seq = Math.max(this.#seq, seq);
  }

  /**
   * Numbers (next, or `seq` when given: a shared log's numbering, rising)
   * and keeps `event`, dropping the oldest past the limits.
   */
  push(event: ContentEvent, seq?: number): Buffered {
    const kept: Buffered = { seq: seq ?? this.#seq + 1, ...event };
    this.#seq = Math.max(this.#seq, kept.seq);
    this.#events.push(kept);
    this.#bytes += kept.bytes;
    const maxEvents = this.#limits.bufferEvents ?? 256;
    const maxBytes = this.#limits.bufferBytes ?? 4 * 1024 * 1024;
    while (
      this.#events.length > maxEvents ||
      (this.#bytes > maxBytes && this.#events.length > 1)
    ) {
      const dropped = this.#events.shift()!;
      this.#bytes -= dropped.bytes;
      this.#floor = dropped.seq;
    }
    return kept;
  }

  /** The `id:` of `event`. */
  idOf(event: Buffered): string {
    return `${this.#epoch}-${event.seq}`;
  }

  /** The `id:` of a `resync`: the newest number given so far. */
  resyncId(): string {
    return `${this.#epoch}-${this.#seq}`;
  }

  /**
   * The kept events after `lastId`, oldest first; `null` when `lastId` is
   * not ours, from the future, or older than what is kept (→ `resync`).
   */
  after(lastId: string): Buffered[] | null {
    const match = /^([\da-f]+)-(\d+)$/.exec(lastId);
    const seq = match && match[1] === this.#epoch ? Number(match[2]) : -1;
    if (seq < this.#floor || seq > this.#seq) return null;
    return this.#events.filter((event) => event.seq > seq);
  }
}

/**
 * UTF-16 length of a value in bytes: what the buffer's byte budget counts.
 *
 * @example
 * ```ts
 * import { byteSize } from "./_replay.ts";
 * byteSize(["ab", "c"]); // 6
 * ```
 */
export function byteSize(value: ContentValue): number {
  return typeof value === "string"
    ? value.length * 2
    : value.reduce((n, v) => n + v.length * 2, 0);
}
