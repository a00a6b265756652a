/**
 * The presence board of the editor event stream: which editors are on
 * which page (this instance's streams and other instances', as the bus
 * reports them), what they focus and what they changed without saving;
 * changes within {@linkcode PRESENCE_MS} go out as one update, and an entry
 * not refreshed in time is gone.
 *
 * @module
 */
import type { PresenceEntry } from "../../core/protocol/mod.ts";
import type { PresenceMessage } from "./bus.ts";

/** How long presence changes are gathered into one event, in ms. */
export const PRESENCE_MS = 30;

/** A presence message and when it was last seen (`performance.now()`). */
interface Seen {
  message: PresenceMessage;
  seen: number;
}

/**
 * Page → stream id → presence: updated from bus messages, gathered into one
 * update per page and {@linkcode PRESENCE_MS} (200 editors arriving at once
 * would otherwise send 200 lists of up to 200 editors to each of them).
 *
 * @example
 * ```ts
 * import { PresenceBoard } from "./_presence.ts";
 * const board = new PresenceBoard((pages) => console.log("changed", pages));
 * board.receive({
 *   type: "presence", stream: "s1", page: "/", editor: "ada", name: "Ada",
 *   focus: null, dirty: [],
 * });
 * board.close();
 * ```
 */
export class PresenceBoard {
  readonly #flush: (pages: string[]) => void;
  readonly #pages = new Map<string, Map<string, Seen>>();
  /** Pages whose presence changed and is not sent yet. */
  readonly #pending = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /** A board; `flush` gets the pages whose editors changed, gathered. */
  constructor(flush: (pages: string[]) => void) {
    this.#flush = flush;
  }

  /** Records a presence message; a change is sent soon, a refresh is not. */
  receive(message: PresenceMessage): void {
    let page = this.#pages.get(message.page);
    if (message.gone) page?.delete(message.stream);
    else {
      if (!page) this.#pages.set(message.page, page = new Map());
      const known = page.get(message.stream);
      page.set(message.stream, { message, seen: performance.now() });
      // A refresh that changes nothing is not news.
      if (known && samePresence(known.message, message)) return;
    }
    if (page?.size === 0) this.#pages.delete(message.page);
    this.#changed(message.page);
  }

  /** The presence messages of `page` now. */
  entries(page: string): PresenceMessage[] {
    return [...(this.#pages.get(page)?.values() ?? [])].map((e) => e.message);
  }

  /** Forgets presence last seen more than `maxAgeMs` before `now`. */
  expire(now: number, maxAgeMs: number): void {
    for (const [page, entries] of this.#pages) {
      let changed = false;
      for (const [id, entry] of entries) {
        if (now - entry.seen > maxAgeMs) {
          entries.delete(id);
          changed = true;
        }
      }
      if (entries.size === 0) this.#pages.delete(page);
      if (changed) this.#changed(page);
    }
  }

  /** Stops sending: pending changes are dropped, none are gathered again. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#pending.clear();
  }

  /** Marks `page` changed; the first change starts the gathering timer. */
  #changed(page: string): void {
    if (this.#pending.size === 0 && !this.#closed) {
      this.#timer = setTimeout(() => {
        const pages = [...this.#pending];
        this.#pending.clear();
        this.#flush(pages);
      }, PRESENCE_MS);
    }
    this.#pending.add(page);
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
