/**
 * The editor event stream: `GET /api/cms/events?page=PATH` answers
 * Server-Sent Events (`text/event-stream`) about the page's editors and the
 * fields they save; `POST /api/cms/events` reports this editor's focus and
 * unsaved fields. Both run on the shared endpoint pipeline with the save
 * endpoint's rules (method, Host, origin, session); visitors get 403.
 *
 * Events (data is JSON, see the event types in `core/protocol/events.ts`):
 * - `hello` `{stream}` first, then `presence` `{editors}` (the page's editors
 *   now), then `presence` `{set, gone}` whenever editors come, leave, or
 *   change their focus or unsaved fields (only those; a reader who fell
 *   behind gets `{editors}` again once it caught up);
 * - `saved` `{field, value, version, by}` (with an `id:`) when a field was
 *   saved or restored, only to editors whom `canEdit` allows that field;
 * - `published` `{fields, by}` and `drafts` `{fields}` in draft mode (a
 *   schedule's publish too: {@linkcode EditorEvents.onFire});
 * - `schedule` `{id, fields, failed}` (with an `id:`) when a schedule fired,
 *   to editors who may edit one of its fields;
 * - `resync` (with an `id:`) when a reconnect's `Last-Event-ID` is older
 *   than the buffer or from another instance: re-read the page;
 * - a comment line every `heartbeatMs`; on shutdown a `retry:` hint, then
 *   the stream ends.
 *
 * Every instance builds its events from what the {@linkcode EventBus}
 * delivers (addresses and names only) and reads values from its own store,
 * so an event is only built for a listener who may see it.
 *
 * {@linkcode EditorEvents} composes the units of this folder: the stream
 * registry (`_registry.ts`), the presence board (`_presence.ts`), the replay
 * buffer (`_replay.ts`), bus I/O (`_bus_io.ts`) and the heartbeat
 * (`_heartbeat.ts`).
 *
 * @module
 */
import { formatAddress } from "../../core/address.ts";
import {
  admitEditor,
  allowedField,
  type Allowlist,
  type Authorize,
  type CanEdit,
  type Editor,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  type OriginOptions,
  readJsonObject,
} from "../http/mod.ts";
import { type PresenceBody, Status } from "../../core/protocol/mod.ts";
import {
  type BusMessage,
  type EventBus,
  type LogPosition,
  MemoryEventBus,
} from "./bus.ts";
import type { SaveEvent } from "../save/mod.ts";
import { onDrain } from "../ops/mod.ts";
import type {
  ContentStore,
  Draft,
  PublishMode,
  ScheduleFiring,
} from "../store/mod.ts";
import { allowlisted, may, pageOf } from "./_access.ts";
import { BusLink, contentEvents } from "./_bus_io.ts";
import { encoder, frame } from "./_frame.ts";
import { Heartbeat, HEARTBEAT_LINE } from "./_heartbeat.ts";
import { PresenceBoard } from "./_presence.ts";
import {
  defaultSession,
  editorKey,
  type Stream,
  StreamRegistry,
} from "./_registry.ts";
import type { PresenceEntry } from "../../core/protocol/mod.ts";
import type { PresenceMessage } from "./bus.ts";
import { type Buffered, type ContentEvent, ReplayBuffer } from "./_replay.ts";

/** Options of {@linkcode EditorEvents}. */
export interface EditorEventsOptions extends OriginOptions {
  /** The editor from the server-side session, or `null` (→ 403). */
  authorize: Authorize;
  /** The save endpoint's allowlist. */
  allowlist: Allowlist;
  /** The save endpoint's per-record rule: who may see a field's value. */
  canEdit?: CanEdit;
  /** Where values are read from when a save is announced. */
  store: ContentStore;
  /** `draft`: values are read with drafts over them (`getDrafted`). */
  publishMode?: PublishMode;
  /** Default: a {@linkcode MemoryEventBus} (one process). */
  bus?: EventBus;
  /** Comment line and presence refresh interval. Default 15 000 ms. */
  heartbeatMs?: number;
  /** Open streams per process, all handlers together (→ 503). Default 1000. */
  maxStreams?: number;
  /** Open streams per session (→ 503). Default 8. */
  maxStreamsPerSession?: number;
  /**
   * Open streams per editor, all their sessions together (→ 503). Default:
   * a tenth of `maxStreams`, at least `maxStreamsPerSession`.
   */
  maxStreamsPerEditor?: number;
  /**
   * The name of the host's session cookie: the session of a stream is its
   * value (when `authorize` returns no `session` with the editor).
   */
  sessionCookie?: string;
  /** Bytes a stream may have queued for a slow reader before it is dropped. Default 256 KiB. */
  maxQueuedBytes?: number;
  /** Content events kept for `Last-Event-ID` reconnects. Default 256. */
  bufferEvents?: number;
  /** Bytes of values kept in that buffer at most. Default 4 MiB. */
  bufferBytes?: number;
  /** The `retry:` hint sent on shutdown, in ms. Default 1000. */
  retryMs?: number;
  /**
   * The session a request belongs to, for `maxStreamsPerSession`. Default:
   * the editor's `session` as `authorize` returned it, else the
   * `sessionCookie`, else the editor's id (every session of theirs).
   */
  sessionOf?: (req: Request, editor: Editor) => string | Promise<string>;
}

/** How many streams, how many dropped for reading too slowly. */
export interface EditorEventsStats {
  /** Streams open on this handler now. */
  streams: number;
  /** Streams dropped because their reader fell behind. */
  dropped: number;
}

/** Most unsaved fields one presence report may name. */
const MAX_DIRTY = 32;
/**
 * Over a bus with a shared log, event ids are `EPOCH-N` with N the log
 * position times this plus the event's index among those one message
 * makes (at most two: `saved` or `published`, then `drafts`).
 */
const IDS_PER_MESSAGE = 4;
/** Streams written to between two yields to the event loop. */
const SLICE = 64;
/** Most `canEdit` answers kept per stream between two heartbeats. */
const MAX_ALLOWED = 512;

/** Lets timers and other requests run (a long fan-out yields now and then). */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The editor event stream of one site: {@linkcode EditorEvents.handler}
 * serves `GET` (the stream) and `POST` (presence reports);
 * {@linkcode EditorEvents.onSave} and {@linkcode EditorEvents.onPublish}
 * are the save and publish endpoints' hooks that announce changes.
 *
 * @example
 * ```ts
 * import { createSaveHandler, EditorEvents, MemoryContentStore } from "@inplace/cms";
 * const store = new MemoryContentStore();
 * const authorize = () => ({ name: "Ada" });
 * const allowlist = { pages: { title: "plain" as const } };
 * const events = new EditorEvents({ authorize, allowlist, store });
 * const save = createSaveHandler({ authorize, allowlist, store, onSave: events.onSave });
 * Deno.serve((req) => {
 *   const { pathname } = new URL(req.url);
 *   if (pathname === "/api/cms/events") return events.handler(req);
 *   if (pathname === "/api/cms/save") return save(req);
 *   return new Response("Not found", { status: 404 });
 * });
 * ```
 */
export class EditorEvents {
  /** `GET ?page=PATH` → the stream; `POST` {@linkcode PresenceBody} → 204. */
  readonly handler: Handler<EndpointCall>;
  readonly #options: EditorEventsOptions;
  readonly #registry: StreamRegistry;
  readonly #board: PresenceBoard;
  readonly #replay: ReplayBuffer;
  readonly #link: BusLink;
  readonly #heartbeat: Heartbeat;
  #work: Promise<void> = Promise.resolve();
  /** The heartbeat running now (`close` waits for it: it uses the store). */
  #beating: Promise<void> = Promise.resolve();
  #ready: Promise<void> | null = null;
  #offDrain: (() => void) | null = null;
  #closed = false;
  /** Bytes a stream may have queued and still get presence changes. */
  readonly #presenceBudget: number;

  /** A hub over `options.bus` (default: in-process). */
  constructor(options: EditorEventsOptions) {
    this.#options = options;
    this.#link = new BusLink(options.bus ?? new MemoryEventBus());
    const heartbeatMs = options.heartbeatMs ?? 15_000;
    const maxStreams = options.maxStreams ?? 1000;
    const perSession = options.maxStreamsPerSession ?? 8;
    const maxQueued = options.maxQueuedBytes ?? 256 * 1024;
    this.#registry = new StreamRegistry({
      maxStreams,
      perSession,
      perEditor: options.maxStreamsPerEditor ??
        Math.max(perSession, Math.floor(maxStreams / 10)),
      maxQueued,
    }, (gone) => this.#link.presence(gone, true).catch(() => {}));
    this.#presenceBudget = Math.min(4 * 1024, maxQueued / 4);
    this.#board = new PresenceBoard((changed) =>
      void this.#queue(async () => {
        for (const [page, ids] of changed) await this.#sendChanges(page, ids);
      })
    );
    this.#replay = new ReplayBuffer(options);
    this.#heartbeat = new Heartbeat(heartbeatMs, {
      // Presence not refreshed for 1.5 heartbeats is gone.
      quarter: (now) => this.#board.expire(now, heartbeatMs * 1.5),
      beat: () => this.#beating = this.#beat(),
    });
    this.handler = endpoint<EndpointCall>("events", async (req, _ctx, call) => {
      const editor = await admitEditor(req, ["GET", "POST"], options, call);
      await this.#start();
      return req.method === "GET"
        ? await this.#open(req, editor, call)
        : await this.#report(req, editor, call);
    });
  }

  /**
   * The save endpoint's `onSave` hook (the history endpoint's restores go
   * through it too): announces the field on the bus.
   */
  readonly onSave = (event: SaveEvent): void => {
    this.#link.saved(event);
  };

  /** The publish endpoint's `onPublish` hook: announces what went live. */
  readonly onPublish = async (
    published: Draft[],
    editor: Editor,
  ): Promise<void> => {
    await this.#link.published(published, editor);
  };

  /**
   * The `Scheduler`'s `onFire` hook: a schedule that published is announced
   * as a manual publish is (`published`, then `drafts`, by the editor who
   * scheduled it); every firing, failed ones too, as a `schedule` event.
   *
   * @example
   * ```ts
   * import { EditorEvents, MemoryContentStore, Scheduler } from "@inplace/cms";
   * const store = new MemoryContentStore();
   * const events = new EditorEvents({
   *   authorize: () => null,
   *   allowlist: { pages: { title: "plain" as const } },
   *   store,
   *   publishMode: "draft",
   * });
   * const scheduler = new Scheduler({ store, onFire: events.onFire });
   * ```
   */
  readonly onFire = async (firing: ScheduleFiring): Promise<void> => {
    const { schedule, result, failed } = firing;
    if (!failed) {
      await this.onPublish(result.published, { name: schedule.editor });
    }
    await this.#link.schedule(firing);
  };

  /** The review endpoints' `onComments` hook: a page's comments changed. */
  readonly onComments = async (page: string): Promise<void> => {
    await this.#link.comments(page);
  };

  /** The discard endpoint's `onDiscard` hook: the drafts changed. */
  readonly onDiscard = async (): Promise<void> => {
    await this.#link.drafts();
  };

  /** Streams open now and dropped so far. */
  stats(): EditorEventsStats {
    return { streams: this.#registry.size, dropped: this.#registry.dropped };
  }

  /**
   * Ends every stream with a `retry:` hint (clients reconnect, to another
   * instance behind a balancer) and stops listening. Later requests get 503.
   * `serveGracefully` does the same when it starts draining.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#endAll();
    this.#heartbeat.stop();
    this.#board.close();
    this.#link.stop();
    this.#offDrain?.();
    await this.#work;
    await this.#beating;
  }

  /** Runs `task` after every earlier one (events go out in order). */
  #queue(task: () => Promise<void>): Promise<void> {
    this.#work = this.#work.then(task).catch((err) =>
      console.error("cms: event failed", err)
    );
    return this.#work;
  }

  /** Subscribes to the bus once, and starts the heartbeat timer. */
  #start(): Promise<void> {
    if (this.#closed) {
      throw new HttpError(Status.ServiceUnavailable, "Shutting down", {
        "Retry-After": "1",
      });
    }
    this.#ready ??= (async () => {
      await this.#link.listen((message, at) => {
        void this.#queue(() => this.#receive(message, at));
      });
      // A shared log: ids are its positions; what came before is not ours.
      const at = this.#link.position();
      if (at) {
        this.#replay.restart(at.epoch, (at.seq + 1) * IDS_PER_MESSAGE - 1);
      }
      this.#offDrain = onDrain(() => this.#endAll());
      this.#heartbeat.start();
    })();
    return this.#ready;
  }

  /** `GET`: opens a stream for `page`. */
  async #open(
    req: Request,
    editor: Editor,
    call: EndpointCall | undefined,
  ): Promise<Response> {
    const page = pageOf(req);
    const session = await this.#sessionOf(req, editor);
    const who = editorKey(editor);
    this.#registry.admit(session, who);
    const lastId = req.headers.get("Last-Event-ID");
    const { stream, body } = this.#registry.open({
      page,
      session,
      who,
      editor,
      req,
      call,
    });
    this.#registry.write(stream, `retry: ${this.#options.retryMs ?? 1000}\n`);
    this.#registry.write(stream, frame("hello", { stream: stream.id }));
    // A shared log may hold what another process sent this id after.
    if (lastId !== null) await this.#link.catchUp();
    // In the event queue: no event is sent twice or out of order around
    // the replay.
    await this.#queue(async () => {
      if (stream.closed) return;
      this.#registry.list(stream);
      await this.#sendBoard(stream);
      if (lastId !== null) await this.#replayTo(stream, lastId);
    });
    await this.#link.presence(stream);
    return new Response(body, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Accel-Buffering": "no",
      },
    });
  }

  /** `POST`: a presence report of one of this session's streams. */
  async #report(
    req: Request,
    editor: Editor,
    call: EndpointCall | undefined,
  ): Promise<Response> {
    const data = await readJsonObject(req, 8192);
    const { stream: id, focus, dirty } = data as Partial<PresenceBody>;
    const stream = typeof id === "string" ? this.#registry.get(id) : undefined;
    const session = await this.#sessionOf(req, editor);
    if (!stream || stream.closed || stream.session !== session) {
      throw new HttpError(404, "Unknown stream");
    }
    if (!Array.isArray(dirty) || dirty.length > MAX_DIRTY) {
      throw new HttpError(Status.BadRequest, "Invalid dirty list");
    }
    const fields = focus === null || focus === undefined
      ? dirty
      : [focus, ...dirty];
    for (const field of fields) {
      const address = allowedField(this.#options.allowlist, field);
      const who = { req, editor, call };
      if (!await may(this.#options, who, formatAddress(address))) {
        throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
      }
    }
    stream.focus = typeof focus === "string" ? focus : null;
    stream.dirty = [...new Set(dirty as string[])];
    await this.#link.presence(stream);
    return new Response(null, { status: Status.NoContent });
  }

  /** The session of a request, for the caps and presence reports. */
  async #sessionOf(req: Request, editor: Editor): Promise<string> {
    const { sessionOf, sessionCookie } = this.#options;
    return sessionOf
      ? await sessionOf(req, editor)
      : await defaultSession(req, editor, sessionCookie);
  }

  /** Builds and sends what a bus message means to this instance's streams. */
  async #receive(message: BusMessage, at?: LogPosition): Promise<void> {
    if (at && (at.gap || at.epoch !== this.#replay.epoch)) {
      // Messages were missed (or the log is new): every stream re-reads.
      this.#replay.restart(at.epoch, at.seq * IDS_PER_MESSAGE - 1);
      const resync = frame("resync", {}, this.#replay.resyncId());
      for (const stream of this.#registry.all()) {
        this.#registry.write(stream, resync);
      }
    }
    if (at) this.#replay.reach((at.seq + 1) * IDS_PER_MESSAGE - 1);
    if (message.type === "presence") return this.#board.receive(message);
    let index = 0;
    for await (const event of contentEvents(message, this.#options)) {
      const seq = at
        ? at.seq * IDS_PER_MESSAGE + Math.min(index++, IDS_PER_MESSAGE - 1)
        : undefined;
      await this.#emit(event, seq);
    }
  }

  /** Keeps a content event for reconnects and sends it to who may see it. */
  async #emit(event: ContentEvent, seq?: number): Promise<void> {
    const kept = this.#replay.push(event, seq);
    const streams = this.#registry.all();
    for (let i = 0; i < streams.length; i += SLICE) {
      if (i) await tick();
      await Promise.all(
        streams.slice(i, i + SLICE).map((s) => this.#deliver(s, kept)),
      );
    }
  }

  /** Sends one content event to `stream`, filtered by `canEdit`. */
  async #deliver(stream: Stream, event: Buffered): Promise<void> {
    const allowed: string[] = [];
    for (const field of event.fields) {
      if (await may(this.#options, stream, field)) allowed.push(field);
    }
    if (stream.closed) return;
    const id = this.#replay.idOf(event);
    if (event.name === "comments") {
      const { page } = event.data as { page: string };
      if (stream.page === page) {
        this.#registry.write(stream, frame("comments", event.data, id));
      }
    } else if (event.name === "saved") {
      // One encoding for every listener: the same bytes go to each.
      event.frame ??= encoder.encode(frame("saved", event.data, id));
      if (allowed.length) this.#registry.write(stream, event.frame);
    } else if (allowed.length || event.name === "drafts") {
      this.#registry.write(
        stream,
        frame(event.name, { ...event.data, fields: allowed }, id),
      );
    }
  }

  /** After a reconnect: the missed events, or `resync`. */
  async #replayTo(stream: Stream, lastId: string): Promise<void> {
    const missed = this.#replay.after(lastId);
    if (missed === null) {
      this.#registry.write(
        stream,
        frame("resync", {}, this.#replay.resyncId()),
      );
      return;
    }
    for (const event of missed) await this.#deliver(stream, event);
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
  #writePresence(stream: Stream, chunk: string | Uint8Array): void {
    if (this.#registry.queued(stream) > this.#presenceBudget) {
      stream.stale = true;
    } else this.#registry.write(stream, chunk);
  }

  /** Sends `stream` the whole board of its page (`presence {editors}`). */
  async #sendBoard(stream: Stream): Promise<void> {
    if (this.#registry.queued(stream) > this.#presenceBudget) {
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
  async #sendChanges(page: string, ids: Set<string>): Promise<void> {
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
        await this.#sendBoard(stream);
        continue;
      }
      if (shared) {
        this.#writePresence(stream, shared);
        continue;
      }
      const set: PresenceEntry[] = [];
      for (const m of changed) set.push(await this.#entry(stream, m));
      const bytes = encoder.encode(frame("presence", { set, gone }));
      if (!this.#options.canEdit) shared = bytes;
      if (!stream.closed) this.#writePresence(stream, bytes);
    }
  }

  /**
   * Every heartbeat: a comment line, each stream's presence again, and its
   * session checked (a signed-out editor's stream ends).
   */
  async #beat(): Promise<void> {
    const beat = encoder.encode(HEARTBEAT_LINE);
    for (const stream of this.#registry.all()) {
      this.#registry.write(stream, beat);
      if (stream.closed || this.#closed) continue;
      // `canEdit` is asked again, and a reader who caught up gets the board.
      stream.allowed = undefined;
      if (stream.stale) await this.#queue(() => this.#sendBoard(stream));
      try {
        const editor = await this.#options.authorize(
          stream.req,
          stream.call?.context,
        );
        if (!editor) this.#registry.end(stream, true);
        else await this.#link.presence(stream);
      } catch (err) {
        console.error("cms: presence refresh failed", err);
      }
    }
  }

  /** Ends every stream with a `retry:` hint. */
  #endAll(): void {
    this.#registry.endAll(`retry: ${this.#options.retryMs ?? 1000}\n\n`);
  }
}
