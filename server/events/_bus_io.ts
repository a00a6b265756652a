/**
 * Bus I/O of the editor event stream: what one instance publishes on the
 * {@linkcode EventBus} (saves, publishes, schedules, discards, presence;
 * addresses and names only, in chunks that keep every message small) and
 * what a received message means as content events, with values read from
 * this instance's own store.
 *
 * @module
 */
import { parseAddress } from "../../core/address.ts";
import { storedAddress } from "../../core/stored_address.ts";
import type {
  SavedEventData,
  ScheduleEventData,
} from "../../core/protocol/mod.ts";
import { contentVersion } from "../../core/version.ts";
import { type Allowlist, type Editor, resolveField } from "../http/mod.ts";
import type { SaveEvent } from "../save/mod.ts";
import type {
  ContentStore,
  ContentValue,
  Draft,
  DraftStore,
  PublishMode,
  ScheduleFiring,
} from "../store/mod.ts";
import {
  type BusListener,
  type BusMessage,
  type EventBus,
  type LogPosition,
  MAX_BUS_MESSAGE_BYTES,
  MemoryEventBus,
  type PresenceMessage,
  type ReportMessage,
} from "./bus.ts";
import { allowlisted } from "./_access.ts";
import type { Stream } from "./_registry.ts";
import { byteSize, type ContentEvent } from "./_replay.ts";

const utf8 = new TextEncoder();

/** Longest name sent over the bus (keeps messages small). */
const MAX_NAME = 100;
/**
 * `fields` split into as few lists as fit, each with `make` around it, in
 * one bus message ({@linkcode MAX_BUS_MESSAGE_BYTES}); at least one list
 * (maybe empty). A field too long for any message (addresses are far
 * shorter) is left out rather than refused.
 *
 * @example
 * ```ts
 * import { pack } from "./_bus_io.ts";
 * pack(["pages:home:title"], (fields) => ({ type: "published", fields, by: "Ada" }));
 * ```
 */
export function pack<M extends BusMessage>(
  fields: string[],
  make: (fields: string[]) => M,
): M[] {
  const bytes = (value: unknown) => utf8.encode(JSON.stringify(value)).length;
  const base = bytes(make([]));
  const lists: string[][] = [[]];
  let size = base;
  for (const field of fields) {
    // A field costs its JSON text and a comma.
    const cost = bytes(field) + 1;
    if (base + cost > MAX_BUS_MESSAGE_BYTES) continue;
    if (size + cost > MAX_BUS_MESSAGE_BYTES) {
      lists.push([]);
      size = base;
    }
    lists[lists.length - 1].push(field);
    size += cost;
  }
  return lists.map(make);
}

/**
 * One instance's link to the bus: publishes what happened here, and
 * delivers every message (this instance's own too) to one listener.
 *
 * @example
 * ```ts
 * import { BusLink } from "./_bus_io.ts";
 * import { MemoryEventBus } from "./bus.ts";
 * const link = new BusLink(new MemoryEventBus());
 * await link.listen((m) => console.log(m.type));
 * await link.drafts();
 * link.stop();
 * ```
 */
export class BusLink {
  readonly #bus: EventBus;
  #unsubscribe: (() => void) | null = null;

  /** A link over `bus`. */
  constructor(bus: EventBus) {
    this.#bus = bus;
  }

  /** Subscribes `listener`; resolves once it is subscribed. */
  async listen(listener: BusListener): Promise<void> {
    this.#unsubscribe = await this.#bus.subscribe(listener);
  }

  /** The bus's shared-log position now, when it keeps a log. */
  position(): LogPosition | null {
    return this.#bus.position?.() ?? null;
  }

  /** Lets a bus with a shared log deliver what it has not yet. */
  async catchUp(): Promise<void> {
    await this.#bus.catchUp?.();
  }

  /**
   * Brings this instance up to date with the bus where it can: `true` when
   * every message published anywhere before this call has been delivered
   * here now (a shared log read now, or the in-process bus), `false` when
   * the bus cannot tell (messages from other instances may still be on
   * their way).
   */
  async current(): Promise<boolean> {
    if (this.#bus instanceof MemoryEventBus) return true;
    if (!this.#bus.catchUp || !this.position()) return false;
    await this.#bus.catchUp();
    return true;
  }

  /** Unsubscribes (when subscribed). */
  stop(): void {
    this.#unsubscribe?.();
  }

  /**
   * Announces a saved field. Not awaited: a save's answer never waits for
   * the bus (a failure is logged; the save stands either way, as with any
   * `onSave` error).
   */
  saved(event: SaveEvent): void {
    this.#bus.publish({
      type: "saved",
      field: storedAddress(event),
      by: clip(event.editor.name),
    }).catch((err) => console.error("cms: event not sent", err));
  }

  /** Announces drafts that went live, in as many messages as they take. */
  async published(published: Draft[], editor: Editor): Promise<void> {
    if (!published.length) return;
    const by = clip(editor.name);
    const messages = pack(
      published.map(storedAddress),
      (fields) => ({ type: "published" as const, fields, by }),
    );
    for (const message of messages) await this.#bus.publish(message);
  }

  /** Announces a schedule's firing (one message even without fields). */
  async schedule(firing: ScheduleFiring): Promise<void> {
    const { schedule, failed } = firing;
    const messages = pack(schedule.fields.map(storedAddress), (fields) => ({
      type: "schedule" as const,
      id: clip(schedule.id),
      fields,
      failed: !!failed,
    }));
    for (const message of messages) await this.#bus.publish(message);
  }

  /** Announces that a page's comments or approvals changed. */
  async comments(page: string): Promise<void> {
    await this.#bus.publish({ type: "comments", page });
  }

  /** Announces that the set of drafts changed. */
  async drafts(): Promise<void> {
    await this.#bus.publish({ type: "drafts" });
  }

  /**
   * Announces a stream's presence (or, with `gone`, its end): one message,
   * or several in order when its unsaved fields do not fit one.
   */
  async presence(stream: Stream, gone = false): Promise<void> {
    const { editor } = stream;
    await this.#sendParts(pack(
      gone ? [] : stream.dirty,
      (dirty): PresenceMessage => ({
        type: "presence",
        stream: stream.id,
        page: stream.page,
        editor: clip(String(editor.id ?? editor.name)),
        name: clip(editor.name),
        focus: stream.focus,
        dirty,
        ...(gone ? { gone } : {}),
        parts: 99,
        part: 99,
      }),
    ));
  }

  /**
   * Sends a presence report on to whichever instance holds its stream (this
   * one too): one message, or several in order.
   */
  async report(report: Omit<ReportMessage, "type">): Promise<void> {
    const { stream, owner, focus } = report;
    await this.#sendParts(pack(report.dirty, (dirty): ReportMessage => ({
      type: "report",
      stream,
      owner,
      focus,
      dirty,
      parts: 99,
      part: 99,
    })));
  }

  /** Publishes `messages` in order, numbered as parts when more than one. */
  async #sendParts(messages: (PresenceMessage | ReportMessage)[]) {
    const parts = messages.length;
    for (const [part, message] of messages.entries()) {
      if (parts === 1) delete message.parts, delete message.part;
      else Object.assign(message, { parts, part });
      await this.#bus.publish(message);
    }
  }
}

/** A message of a report that may come in several parts. */
export interface Parted {
  /** The stream the report is about. */
  stream: string;
  /** Its unsaved fields (later parts carry more). */
  dirty: string[];
  /** How many messages the report takes (default 1). */
  parts?: number;
  /** This message's place among them (default 0). */
  part?: number;
}

/**
 * A report whole: `message` itself, or its parts joined (without `parts`
 * and `part`) once the last arrived; `undefined` while parts are missing.
 * `pending` keeps the parts so far, per stream.
 *
 * @example
 * ```ts
 * import { assemble } from "./_bus_io.ts";
 * const pending = new Map();
 * assemble(pending, { stream: "s1", dirty: ["a"], parts: 2, part: 0 }); // undefined
 * assemble(pending, { stream: "s1", dirty: ["b"], parts: 2, part: 1 }); // { stream: "s1", dirty: ["a", "b"] }
 * ```
 */
export function assemble<M extends Parted>(
  pending: Map<string, M>,
  message: M,
): M | undefined {
  const { parts = 1, part = 0 } = message;
  if (parts === 1) {
    pending.delete(message.stream);
    return message;
  }
  const { parts: _, part: __, ...rest } = message;
  const known = pending.get(message.stream);
  if (part === 0) pending.set(message.stream, rest as M);
  else if (known) known.dirty = [...known.dirty, ...message.dirty];
  else return undefined;
  if (part < parts - 1) return undefined;
  const whole = pending.get(message.stream);
  pending.delete(message.stream);
  return whole;
}

/** Where a received message's values and drafts are read from. */
export interface ReadOptions {
  /** The save endpoint's allowlist. */
  allowlist: Allowlist;
  /** This instance's store. */
  store: ContentStore;
  /** `draft`: values with drafts over them, and `drafts` events. */
  publishMode?: PublishMode;
}

/**
 * The content events a bus message means here, in order: `saved` (with the
 * value read now; nothing when it cannot be read), `published`, `schedule`;
 * then in draft mode, after a save, a publish or a discard, `drafts` with
 * what is drafted now. Lazy: each event is read after the one before it was
 * taken, so the drafts are read after the publish went out.
 *
 * @example
 * ```ts
 * import { contentEvents } from "./_bus_io.ts";
 * import { MemoryContentStore } from "../store/mod.ts";
 * const options = {
 *   allowlist: { pages: { title: "plain" as const } },
 *   store: new MemoryContentStore(),
 * };
 * const message = { type: "published" as const, fields: ["pages:home:title"], by: "Ada" };
 * for await (const event of contentEvents(message, options)) console.log(event.name);
 * ```
 */
export async function* contentEvents(
  message: Exclude<BusMessage, PresenceMessage | ReportMessage>,
  options: ReadOptions,
): AsyncGenerator<ContentEvent> {
  if (message.type === "saved") {
    const value = await readField(options, message.field);
    if (value === undefined) return;
    const data: SavedEventData = {
      field: message.field,
      value,
      version: contentVersion(value),
      by: message.by,
    };
    yield {
      name: "saved",
      fields: [message.field],
      data,
      bytes: byteSize(value),
    };
  } else if (message.type === "published") {
    const fields = message.fields.filter((f) =>
      allowlisted(options.allowlist, f)
    );
    yield {
      name: "published",
      fields,
      data: { fields, by: message.by },
      bytes: 0,
    };
  } else if (message.type === "schedule") {
    const fields = message.fields.filter((f) =>
      allowlisted(options.allowlist, f)
    );
    const { id, failed } = message;
    // What it published comes as `published` (and then `drafts`).
    const data: ScheduleEventData = { id, fields, failed };
    yield { name: "schedule", fields, data, bytes: 0 };
    return;
  } else if (message.type === "comments") {
    // To the page's listeners, who re-read what they may see.
    const data = { type: "comments", page: message.page };
    yield { name: "comments", fields: [], data, bytes: 0 };
    return;
  }
  const store = options.store as Partial<DraftStore>;
  if (options.publishMode === "draft" && typeof store.drafts === "function") {
    const fields = (await store.drafts()).map(storedAddress);
    yield { name: "drafts", fields, data: { fields }, bytes: 0 };
  }
}

/** The value of `field` now (with drafts over it in draft mode). */
async function readField(
  options: ReadOptions,
  field: string,
): Promise<ContentValue | undefined> {
  const address = parseAddress(field);
  if (typeof address === "string") return undefined;
  const target = resolveField(options.allowlist, address);
  if (typeof target === "string") return undefined;
  const store = options.store as Partial<DraftStore> & ContentStore;
  const record = options.publishMode === "draft" && store.getDrafted
    ? await store.getDrafted(address.collection, address.key)
    : await store.get(address.collection, address.key);
  const value = record?.[target.name];
  if (target.index === undefined) return value;
  return Array.isArray(value) ? value[target.index] : undefined;
}

/**
 * A name cut to {@linkcode MAX_NAME} characters, as names travel on the bus.
 *
 * @example
 * ```ts
 * import { clip } from "./_bus_io.ts";
 * clip("Ada"); // "Ada"
 * ```
 */
export function clip(name: string): string {
  return name.length > MAX_NAME ? name.slice(0, MAX_NAME) : name;
}
