/**
 * Presence out to this instance's streams: the whole board of a page (on
 * opening, and to a reader who caught up) and what changed (`presence
 * {set, gone}`), each entry as its listener may see it (focus and unsaved
 * fields only where `canEdit` allows that listener the field).
 *
 * @module
 */
import type { PresenceEntry } from "../../core/protocol/mod.ts";
import type { PresenceMessage } from "./bus.ts";
import { type AccessRules, allowlisted, may } from "./_access.ts";
import { encoder, frame } from "./_frame.ts";
import type { PresenceBoard } from "./_presence.ts";
import type { Stream, StreamRegistry } from "./_registry.ts";

/** Streams written to between two yields to the event loop. */
const SLICE = 64;
/** Most `canEdit` answers kept per stream between two heartbeats. */
const MAX_ALLOWED = 512;

/** Lets timers and other requests run (a long fan-out yields now and then). */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Sends the presence of a {@linkcode PresenceBoard} to the streams of a
 * {@linkcode StreamRegistry}; a reader who is behind (more than `budget`
 * bytes queued) is marked stale and gets the whole board once caught up.
 *
 * @example
 * ```ts ignore
 * const fanout = new PresenceFanout(registry, board, rules, 4096);
 * await fanout.board(stream);
 * ```
 */
export class PresenceFanout {
  readonly #registry: StreamRegistry;
  readonly #board: PresenceBoard;
  readonly #options: AccessRules;
  readonly #budget: number;

  /** Presence from `board` to the streams of `registry`. */
  constructor(
    registry: StreamRegistry,
    board: PresenceBoard,
    options: AccessRules,
    budget: number,
  ) {
    this.#registry = registry;
    this.#board = board;
    this.#options = options;
    this.#budget = budget;
  }

  /** Whether `stream` may see presence field `field` (answers kept a while). */
  async #sees(stream: Stream, field: string): Promise<boolean> {
    if (!this.#options.canEdit) {
      return allowlisted(this.#options.allowlist, field);
    }
    let known = stream.allowed?.get(field);
    if (known === undefined) {
      known = await may(this.#options, stream, field);
      stream.allowed ??= new Map();
      if (stream.allowed.size >= MAX_ALLOWED) stream.allowed.clear();
      stream.allowed.set(field, known);
    }
    return known;
  }

  /** A presence message as `stream` sees it (only fields it may edit). */
  async #entry(stream: Stream, m: PresenceMessage): Promise<PresenceEntry> {
    const dirty: string[] = [];
    for (const f of m.dirty) if (await this.#sees(stream, f)) dirty.push(f);
    const focus = m.focus !== null && await this.#sees(stream, m.focus)
      ? m.focus
      : null;
    return { stream: m.stream, editor: m.editor, name: m.name, focus, dirty };
  }

  /**
   * Writes a presence frame to `stream` unless its reader is behind: then
   * it is marked stale and gets the whole board once it caught up.
   */
  #write(stream: Stream, chunk: string | Uint8Array): void {
    if (this.#registry.queued(stream) > this.#budget) {
      stream.stale = true;
    } else this.#registry.write(stream, chunk);
  }

  /** Sends `stream` the whole board of its page (`presence {editors}`). */
  async board(stream: Stream): Promise<void> {
    if (this.#registry.queued(stream) > this.#budget) {
      stream.stale = true;
      return;
    }
    stream.stale = false;
    const editors: PresenceEntry[] = [];
    for (const m of this.#board.entries(stream.page)) {
      editors.push(await this.#entry(stream, m));
    }
    if (!stream.closed) {
      this.#registry.write(stream, frame("presence", { editors }));
    }
  }

  /**
   * Sends the streams of `page` here what changed: `presence {set, gone}`
   * with the entries of the streams `ids` (or their ids, when gone); one
   * encoding for all when no `canEdit` rule makes views differ.
   */
  async changes(page: string, ids: Set<string>): Promise<void> {
    const changed: PresenceMessage[] = [], gone: string[] = [];
    for (const id of ids) {
      const m = this.#board.get(page, id);
      if (m) changed.push(m);
      else gone.push(id);
    }
    const streams = this.#registry.onPage(page);
    let shared: Uint8Array | undefined;
    for (let i = 0; i < streams.length; i++) {
      if (i && i % SLICE === 0) await tick();
      const stream = streams[i];
      if (stream.closed) continue;
      if (stream.stale) {
        await this.board(stream);
        continue;
      }
      if (shared) {
        this.#write(stream, shared);
        continue;
      }
      const set: PresenceEntry[] = [];
      for (const m of changed) set.push(await this.#entry(stream, m));
      const bytes = encoder.encode(frame("presence", { set, gone }));
      if (!this.#options.canEdit) shared = bytes;
      if (!stream.closed) this.#write(stream, bytes);
    }
  }
}
