/**
 * The replay buffer of the editor event stream: the latest content events
 * (by count and by bytes of values), numbered within this instance's epoch,
 * so a reconnect that sends `Last-Event-ID` gets what it missed, or
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
  /** This instance's random id prefix. */
  readonly epoch: string = randomHex(4);
  readonly #limits: ReplayLimits;
  readonly #events: Buffered[] = [];
  #bytes = 0;
  #seq = 0;

  /** A buffer within `limits` (an options object; read at each push). */
  constructor(limits: ReplayLimits) {
    this.#limits = limits;
  }

  /** Numbers and keeps `event`, dropping the oldest past the limits. */
  push(event: ContentEvent): Buffered {
    const kept: Buffered = { seq: ++this.#seq, ...event };
    this.#events.push(kept);
    this.#bytes += kept.bytes;
    const maxEvents = this.#limits.bufferEvents ?? 256;
    const maxBytes = this.#limits.bufferBytes ?? 4 * 1024 * 1024;
    while (
      this.#events.length > maxEvents ||
      (this.#bytes > maxBytes && this.#events.length > 1)
    ) {
      this.#bytes -= this.#events.shift()!.bytes;
    }
    return kept;
  }

  /** The `id:` of `event`. */
  idOf(event: Buffered): string {
    return `${this.epoch}-${event.seq}`;
  }

  /** The `id:` of a `resync`: the newest number given so far. */
  resyncId(): string {
    return `${this.epoch}-${this.#seq}`;
  }

  /**
   * The kept events after `lastId`, oldest first; `null` when `lastId` is
   * not ours, from the future, or older than what is kept (→ `resync`).
   */
  after(lastId: string): Buffered[] | null {
    const match = /^([\da-f]+)-(\d+)$/.exec(lastId);
    const seq = match && match[1] === this.epoch ? Number(match[2]) : -1;
    const first = this.#events[0]?.seq ?? this.#seq + 1;
    if (seq < 0 || seq > this.#seq || seq < first - 1) return null;
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
