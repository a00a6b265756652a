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
 * A presence report may reach any instance: it is sent over the bus to the
 * one holding its stream, which applies it only for the stream's own
 * session and editor (`_reports.ts`).
 *
 * {@linkcode EditorEvents} composes the units of this folder: the stream
 * registry (`_registry.ts`), the presence board (`_presence.ts`) and its
 * fan-out to streams (`_fanout.ts`), reports (`_reports.ts`), the replay
 * buffer (`_replay.ts`), bus I/O (`_bus_io.ts`) and the heartbeat
 * (`_heartbeat.ts`).
 *
 * @module
 */
import {
  admitEditor,
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
import { Status } from "../../core/protocol/mod.ts";
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
import { may, pageOf } from "./_access.ts";
import { BusLink, clip, contentEvents } from "./_bus_io.ts";
import { encoder, frame } from "./_frame.ts";
import { Heartbeat, HEARTBEAT_LINE } from "./_heartbeat.ts";
import { PresenceBoard } from "./_presence.ts";
import { PresenceFanout } from "./_fanout.ts";
import {
  defaultSession,
  editorKey,
  type Stream,
  StreamRegistry,
} from "./_registry.ts";
import type { ReportMessage } from "./bus.ts";
import {
  checkReport,
  ownerProof,
  reportedStream,
  ReportInbox,
} from "./_reports.ts";
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

/**
 * Over a bus with a shared log, event ids are `EPOCH-N` with N the log
 * position times this plus the event's index among those one message
 * makes (at most two: `saved` or `published`, then `drafts`).
 */
const IDS_PER_MESSAGE = 4;
/** Streams written to between two yields to the event loop. */
const SLICE = 64;

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
  /**
   * `GET ?page=PATH` → the stream; `POST` a `PresenceBody` → 204
   * (202 when the stream is held by another instance).
   */
  readonly handler: Handler<EndpointCall>;
  readonly #options: EditorEventsOptions;
  readonly #registry: StreamRegistry;
  readonly #board: PresenceBoard;
  readonly #replay: ReplayBuffer;
  readonly #link: BusLink;
  readonly #heartbeat: Heartbeat;
  readonly #heartbeatMs: number;
  readonly #inbox: ReportInbox;
  /** Since when this instance listens to the bus (`performance.now()`). */
  #listening = Infinity;
  #work: Promise<void> = Promise.resolve();
  /** The heartbeat running now (`close` waits for it: it uses the store). */
  #beating: Promise<void> = Promise.resolve();
  #ready: Promise<void> | null = null;
  #offDrain: (() => void) | null = null;
  #closed = false;
  readonly #fanout: PresenceFanout;

  /** A hub over `options.bus` (default: in-process). */
  constructor(options: EditorEventsOptions) {
    this.#options = options;
    this.#link = new BusLink(options.bus ?? new MemoryEventBus());
    const heartbeatMs = this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    const maxStreams = options.maxStreams ?? 1000;
    const perSession = options.maxStreamsPerSession ?? 8;
    const maxQueued = options.maxQueuedBytes ?? 256 * 1024;
    this.#registry = new StreamRegistry({
      maxStreams,
      perSession,
      perEditor: options.maxStreamsPerEditor ??
        Math.max(perSession, Math.floor(maxStreams / 10)),
      maxQueued,
    }, (gone) => {
      this.#inbox.forget(gone.id);
      this.#link.presence(gone, true).catch(() => {});
    });
    this.#inbox = new ReportInbox((id) => this.#registry.get(id));
    this.#board = new PresenceBoard((changed) =>
      void this.#queue(async () => {
        for (const [page, ids] of changed) {
          await this.#fanout.changes(page, ids);
        }
      })
    );
    this.#fanout = new PresenceFanout(
      this.#registry,
      this.#board,
      options,
      Math.min(4 * 1024, maxQueued / 4),
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
      this.#listening = performance.now();
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
      await this.#fanout.board(stream);
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

  /**
   * `POST`: a presence report of one of this session's streams, wherever it
   * is held: 204 when held here, 202 when sent on to the instance holding
   * it, 404 when it is known to be nobody's or another editor's. Either way
   * the report goes over the bus, so reports apply in the order they were
   * posted (the client sends the next after this one's answer).
   */
  async #report(
    req: Request,
    editor: Editor,
    call: EndpointCall | undefined,
  ): Promise<Response> {
    const data = await readJsonObject(req, 8192);
    const id = reportedStream(data);
    const session = await this.#sessionOf(req, editor);
    const who = editorKey(editor);
    const local = this.#registry.get(id);
    const here = !!local && !local.closed;
    if (
      here
        ? local.session !== session || local.who !== who
        : !await this.#heldElsewhere(id, who)
    ) throw new HttpError(Status.NotFound, "Unknown stream");
    const report = await checkReport(
      this.#options,
      { req, editor, call },
      id,
      data,
    );
    const owner = await ownerProof(id, session, who);
    await this.#link.report({ ...report, owner });
    return here
      ? new Response(null, { status: Status.NoContent })
      : new Response("Forwarded", { status: 202 });
  }

  /**
   * Whether stream `id` may be another instance's, of editor `who`: not
   * without a bus of the host's (nobody else listens), nor when the board
   * shows it ended or someone else's, nor when this instance
   * is up to date with the bus and has listened for a heartbeat and a half
   * (every live stream announced itself meanwhile) without seeing it.
   */
  async #heldElsewhere(id: string, who: string): Promise<boolean> {
    // Its own in-process bus: every stream there is is held here.
    if (!this.#options.bus) return false;
    const known = () => {
      const m = this.#board.find(id);
      return m === undefined
        ? undefined
        : m !== "gone" && m.editor === clip(who);
    };
    let held = known();
    if (held === undefined && await this.#link.current()) {
      await this.#queue(() => Promise.resolve());
      held = known();
      const heard = performance.now() - this.#listening;
      if (held === undefined && heard >= this.#heartbeatMs * 1.5) held = false;
    }
    return held ?? true;
  }

  /** A report sent on the bus: applied when its stream is held here. */
  async #applyReport(message: ReportMessage): Promise<void> {
    const taken = await this.#inbox.take(message);
    if (!taken) return;
    taken.stream.focus = taken.report.focus;
    taken.stream.dirty = taken.report.dirty;
    await this.#link.presence(taken.stream);
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
    if (message.type === "report") return this.#applyReport(message);
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
      if (stream.stale) await this.#queue(() => this.#fanout.board(stream));
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
