/**
 * The event bus behind the editor event stream (`server/events/streams.ts`): how
 * one instance tells every instance (itself included) that a field was
 * saved, drafts were published, a schedule fired, or an editor's presence
 * changed.
 *
 * A bus carries {@linkcode BusMessage}s: addresses, versions, ids and
 * names, never a field's value. Each instance reads values from its own
 * store when a message arrives, and only for listeners who may see them.
 * That keeps every message far below PostgreSQL's 8000-byte `NOTIFY`
 * limit ({@linkcode MAX_BUS_MESSAGE_BYTES}).
 *
 * - {@linkcode MemoryEventBus}: one process (the memory and Deno KV stores).
 * - `PostgresEventBus` (`postgres/bus.ts`): `LISTEN`/`NOTIFY` on
 *   one channel, so editors on different instances see each other.
 * - `KvEventBus` (`kv_bus.ts`): an ordered log in Deno KV, for every
 *   process sharing one KV database; it numbers each message
 *   ({@linkcode LogPosition}) so event ids mean the same on every process.
 *
 * @module
 */

/** A field was saved (or restored): its address, by whom. */
export interface SavedMessage {
  /** Kind. */
  type: "saved";
  /** The field address, `collection:key:field`. */
  field: string;
  /** Who saved it: the editor's display name. */
  by: string;
}

/** Drafts went live (draft mode): their addresses, by whom. */
export interface PublishedMessage {
  /** Kind. */
  type: "published";
  /** Field addresses that went live (a long list comes in several messages). */
  fields: string[];
  /** Who published: the editor's display name. */
  by: string;
}

/** The set of drafts changed (a draft discarded): listeners re-read it. */
export interface DraftsMessage {
  /** Kind. */
  type: "drafts";
}

/** A schedule fired (published, or failed and kept with its reason). */
export interface ScheduleMessage {
  /** Kind. */
  type: "schedule";
  /** The schedule's id. */
  id: string;
  /** Its field addresses (a long list comes in several messages). */
  fields: string[];
  /** `true` when it could not publish. */
  failed: boolean;
}

/** One editor's stream on a page: here, focused, dirty; or gone. */
export interface PresenceMessage {
  /** Kind. */
  type: "presence";
  /** The stream's id (unique across instances). */
  stream: string;
  /** The page path. */
  page: string;
  /** The editor's id (or name when the host gives no id). */
  editor: string;
  /** The editor's display name. */
  name: string;
  /** The field address focused, or `null`. */
  focus: string | null;
  /** Field addresses changed but not saved. */
  dirty: string[];
  /** `true` when the stream ended. */
  gone?: boolean;
  /**
   * A report too large for one message comes in `parts` messages (default
   * 1), in order, numbered by `part` from 0; the later parts carry more
   * `dirty` fields, and the report counts once all parts arrived.
   */
  parts?: number;
  /** This message's place among `parts` (default 0). */
  part?: number;
}

/**
 * An editor's presence report for a stream, sent on by the process that
 * took the `POST` (the stream may be held by another): the process holding
 * the stream applies it when `owner` proves the report comes from the
 * stream's own session and editor, and ignores it otherwise.
 */
export interface ReportMessage {
  /** Kind. */
  type: "report";
  /** The stream's id. */
  stream: string;
  /**
   * A digest of the stream id, the reporting session and editor: equal to
   * the stream's own only when the same session and editor report.
   */
  owner: string;
  /** The field address focused, or `null`. */
  focus: string | null;
  /** Field addresses changed but not saved. */
  dirty: string[];
  /** A report too large for one message: as in {@linkcode PresenceMessage}. */
  parts?: number;
  /** This message's place among `parts` (default 0). */
  part?: number;
}

/** A page's comments or approvals changed: its listeners re-read them. */
export interface CommentsMessage {
  /** Kind. */
  type: "comments";
  /** The page's path. */
  page: string;
}

/** What travels on an {@linkcode EventBus}. */
export type BusMessage =
  | SavedMessage
  | PublishedMessage
  | DraftsMessage
  | ScheduleMessage
  | PresenceMessage
  | ReportMessage
  | CommentsMessage;

/**
 * Largest JSON of one message in UTF-8 bytes: PostgreSQL refuses `NOTIFY`
 * payloads of 8000 bytes or more.
 */
export const MAX_BUS_MESSAGE_BYTES = 7900;

/**
 * Where a message sits in a bus's shared log (buses that keep one, such as
 * `KvEventBus`): the same on every process, so the event stream numbers its
 * events by it and a `Last-Event-ID` from one process means the same on
 * another.
 */
export interface LogPosition {
  /** The log's random id (a new log, a new epoch). */
  epoch: string;
  /** The message's number in the log, from 1, without gaps. */
  seq: number;
  /**
   * `true` when messages before this one were missed (trimmed from the log
   * before this process read them): listeners start afresh.
   */
  gap?: boolean;
}

/** A subscriber: each message, with its log position when the bus has one. */
export type BusListener = (message: BusMessage, at?: LogPosition) => void;

/**
 * Carries {@linkcode BusMessage}s to every subscriber of every instance,
 * the sender's own included (an instance builds its events only from what
 * the bus delivers, so local and remote editors are treated alike).
 *
 * @example
 * ```ts
 * import { MemoryEventBus } from "./bus.ts";
 * const bus = new MemoryEventBus();
 * const stop = await bus.subscribe((m) => console.log(m.type));
 * await bus.publish({ type: "drafts" });
 * stop();
 * ```
 */
export interface EventBus {
  /**
   * Sends one message; rejects (never throws) when its JSON exceeds
   * {@linkcode MAX_BUS_MESSAGE_BYTES}.
   */
  publish(message: BusMessage): Promise<void>;
  /** Delivers every message to `listener` until the returned function runs. */
  subscribe(listener: BusListener): Promise<() => void>;
  /**
   * A bus with a shared log: the position read up to now (every later
   * message is delivered after it), or `null` before `subscribe`.
   */
  position?(): LogPosition | null;
  /** A bus with a shared log: delivers now what was appended so far. */
  catchUp?(): Promise<void>;
}

/**
 * An in-process bus: one instance only. Messages are delivered in a
 * microtask, in order.
 *
 * @example
 * ```ts
 * import { MemoryEventBus } from "./bus.ts";
 * const bus = new MemoryEventBus();
 * await bus.subscribe((m) => console.log(m));
 * await bus.publish({ type: "saved", field: "pages:home:title", by: "Ada" });
 * ```
 */
export class MemoryEventBus implements EventBus {
  readonly #listeners = new Set<(message: BusMessage) => void>();

  /**
   * Delivers `message` to every subscriber (a copy, as a remote bus would);
   * rejects, as a remote bus does, when it is too large.
   */
  async publish(message: BusMessage): Promise<void> {
    const text = encodeMessage(message);
    await null;
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener(JSON.parse(text));
    });
  }

  /** Adds `listener`; the returned function removes it. */
  subscribe(listener: (message: BusMessage) => void): Promise<() => void> {
    this.#listeners.add(listener);
    return Promise.resolve(() => this.#listeners.delete(listener));
  }
}

/**
 * A message as JSON; throws a `RangeError` past
 * {@linkcode MAX_BUS_MESSAGE_BYTES} (senders keep names and lists short).
 *
 * @example
 * ```ts
 * import { encodeMessage } from "./bus.ts";
 * encodeMessage({ type: "drafts" }); // '{"type":"drafts"}'
 * ```
 */
export function encodeMessage(message: BusMessage): string {
  const text = JSON.stringify(message);
  if (messageBytes(text) > MAX_BUS_MESSAGE_BYTES) {
    throw new RangeError("bus message too large");
  }
  return text;
}

/**
 * The UTF-8 size of a message's JSON text (its length in UTF-16 units when
 * even three bytes each would fit {@linkcode MAX_BUS_MESSAGE_BYTES}).
 *
 * @example
 * ```ts
 * import { messageBytes } from "./bus.ts";
 * messageBytes('{"type":"drafts"}'); // 17
 * ```
 */
export function messageBytes(text: string): number {
  // A UTF-16 unit is at most 3 UTF-8 bytes: measure only when it may matter.
  return text.length * 3 > MAX_BUS_MESSAGE_BYTES
    ? new TextEncoder().encode(text).length
    : text.length;
}

/**
 * A payload parsed, or `null` when it is not a bus message.
 *
 * @example
 * ```ts
 * import { decodeMessage } from "./bus.ts";
 * decodeMessage('{"type":"drafts"}'); // { type: "drafts" }
 * ```
 */
export function decodeMessage(payload: string): BusMessage | null {
  try {
    const data = JSON.parse(payload);
    return typeof data === "object" && data !== null &&
        typeof data.type === "string"
      ? data as BusMessage
      : null;
  } catch {
    return null;
  }
}
