/**
 * The presence board of the editor event stream: which editors are on
 * which page (this instance's streams and other instances', as the bus
 * reports them), what they focus and what they changed without saving;
 * the streams that changed within {@linkcode PRESENCE_MS} go out as one
 * update (what changed, not the whole page), and an entry not refreshed in
 * time is gone.
 *
 * @module
 */
import type { PresenceEntry } from "../../core/protocol/mod.ts";
import type { PresenceMessage } from "./bus.ts";
import { assemble } from "./_bus_io.ts";

/** How long presence changes are gathered into one event, in ms. */
export const PRESENCE_MS = 30;

/** A presence message and when it was last seen (`performance.now()`). */
interface Seen {
  message: PresenceMessage;
  seen: number;
}

/** Ended streams remembered (to refuse their reports at once). */
const MAX_GONE = 1000;

/** Most editors listed in a full board (those active first). */
export const MAX_BOARD = 100;

/**
 * Page → stream id → presence: updated from bus messages; the streams that
 * changed are gathered per page over {@linkcode PRESENCE_MS} and flushed as
 * their ids (200 editors arriving at once make one update of 200 entries,
 * not 200 updates).
 *
 * @example
 * ```ts
 * import { PresenceBoard } from "./_presence.ts";
 * const board = new PresenceBoard((changed) => console.log("changed", changed));
 * board.receive({
 *   type: "presence", stream: "s1", page: "/", editor: "ada", name: "Ada",
 *   focus: null, dirty: [],
 * });
 * board.close();
 * ```
 */
export class PresenceBoard {
  readonly #flush: (changed: Map<string, Set<string>>) => void;
  readonly #pages = new Map<string, Map<string, Seen>>();
  /** Page → the streams whose presence changed and is not sent yet. */
  #pending = new Map<string, Set<string>>();
  /** Reports of several parts, gathered until the last part. */
  readonly #parts = new Map<string, PresenceMessage>();
  /** Stream id → its page, for every stream on the board. */
  readonly #where = new Map<string, string>();
  /** Streams that ended lately (the newest {@linkcode MAX_GONE}). */
  readonly #gone = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /** A board; `flush` gets page → ids of the streams that changed. */
  constructor(flush: (changed: Map<string, Set<string>>) => void) {
    this.#flush = flush;
  }

  /** Records a presence message; a change is sent soon, a refresh is not. */
  receive(message: PresenceMessage): void {
    const whole = assemble(this.#parts, message);
    if (!whole) return;
    message = whole;
    let page = this.#pages.get(message.page);
    if (message.gone) {
      this.#ended(message.stream);
      if (!page?.delete(message.stream)) return;
    } else {
      if (this.#gone.has(message.stream)) return;
      if (!page) this.#pages.set(message.page, page = new Map());
      this.#where.set(message.stream, message.page);
      const known = page.get(message.stream);
      page.set(message.stream, { message, seen: performance.now() });
      // A refresh that changes nothing is not news.
      if (known && samePresence(known.message, message)) return;
    }
    if (page?.size === 0) this.#pages.delete(message.page);
    this.#changed(message.page, message.stream);
  }

  /**
   * The presence of stream `id` wherever it is: a message, `"gone"` when it
   * ended lately, or `undefined` when this board does not know it.
   */
  find(id: string): PresenceMessage | "gone" | undefined {
    const page = this.#where.get(id);
    if (page !== undefined) return this.get(page, id);
    return this.#gone.has(id) ? "gone" : undefined;
  }

  /** The presence of stream `id` on `page`, if it is there. */
  get(page: string, id: string): PresenceMessage | undefined {
    return this.#pages.get(page)?.get(id)?.message;
  }

  /**
   * The presence messages of `page` now: at most {@linkcode MAX_BOARD},
   * those with a focus or unsaved fields first.
   */
  entries(page: string): PresenceMessage[] {
    const all = [...(this.#pages.get(page)?.values() ?? [])].map((e) =>
      e.message
    );
    if (all.length <= MAX_BOARD) return all;
    const active = (m: PresenceMessage) => m.focus !== null || m.dirty.length;
    return [...all.filter(active), ...all.filter((m) => !active(m))]
      .slice(0, MAX_BOARD);
  }

  /** Forgets presence last seen more than `maxAgeMs` before `now`. */
  expire(now: number, maxAgeMs: number): void {
    for (const [page, entries] of this.#pages) {
      for (const [id, entry] of entries) {
        if (now - entry.seen > maxAgeMs) {
          entries.delete(id);
          this.#where.delete(id);
          this.#changed(page, id);
        }
      }
      if (entries.size === 0) this.#pages.delete(page);
    }
  }

  /** Stops sending: pending changes are dropped, none are gathered again. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#pending.clear();
  }

  /** Forgets stream `id` and remembers a while that it ended. */
  #ended(id: string): void {
    this.#where.delete(id);
    this.#gone.add(id);
    if (this.#gone.size > MAX_GONE) {
      this.#gone.delete(this.#gone.values().next().value!);
    }
  }

  /** Marks stream `id` of `page` changed; the first starts the timer. */
  #changed(page: string, id: string): void {
    if (this.#closed) return;
    if (this.#pending.size === 0) {
      this.#timer = setTimeout(() => {
        const changed = this.#pending;
        this.#pending = new Map();
        this.#flush(changed);
      }, PRESENCE_MS);
    }
    let ids = this.#pending.get(page);
    if (!ids) this.#pending.set(page, ids = new Set());
    ids.add(id);
  }
}

/**
 * The editors of `messages` as one listener sees them: focus and unsaved
 * fields only where `may` allows that listener the field.
 *
 * @example
 * ```ts
 * import { visibleEditors } from "./_presence.ts";
 * await visibleEditors([{
 *   type: "presence", stream: "s1", page: "/", editor: "ada", name: "Ada",
 *   focus: "pages:home:secret", dirty: ["pages:home:title"],
 * }], (f) => Promise.resolve(f.endsWith(":title")));
 * // [{ stream: "s1", editor: "ada", name: "Ada", focus: null, dirty: ["pages:home:title"] }]
 * ```
 */
export async function visibleEditors(
  messages: PresenceMessage[],
  may: (field: string) => Promise<boolean>,
): Promise<PresenceEntry[]> {
  const editors: PresenceEntry[] = [];
  for (const m of messages) {
    const dirty: string[] = [];
    for (const f of m.dirty) if (await may(f)) dirty.push(f);
    editors.push({
      stream: m.stream,
      editor: m.editor,
      name: m.name,
      focus: m.focus !== null && await may(m.focus) ? m.focus : null,
      dirty,
    });
  }
  return editors;
}

/** Whether two presence messages say the same. */
function samePresence(a: PresenceMessage, b: PresenceMessage): boolean {
  return a.focus === b.focus && a.name === b.name &&
    a.dirty.length === b.dirty.length &&
    a.dirty.every((f, i) => f === b.dirty[i]);
}
