/**
 * The editor event stream: `GET /api/cms/events?page=PATH` answers
 * Server-Sent Events (`text/event-stream`) about the page's editors and the
 * fields they save; `POST /api/cms/events` reports this editor's focus and
 * unsaved fields. Both run on the shared endpoint pipeline with the save
 * endpoint's rules (method, Host, origin, session); visitors get 403.
 *
 * Events (data is JSON, see the event types in `core/wire.ts`):
 * - `hello` `{stream}` first, then `presence` `{editors}` whenever the page's
 *   editors, their focus or their unsaved fields change;
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
 * @module
 */
import { formatAddress, parseAddress } from "../../core/address.ts";
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
  resolveField,
} from "../http/mod.ts";
import {
  type PresenceBody,
  type PresenceEntry,
  type SavedEventData,
  type ScheduleEventData,
  Status,
} from "../../core/wire.ts";
import {
  type BusMessage,
  type EventBus,
  MemoryEventBus,
  type PresenceMessage,
} from "./bus.ts";
import type { SaveEvent } from "../save/mod.ts";
import { onDrain } from "../ops/mod.ts";
import type {
  ContentStore,
  ContentValue,
  Draft,
  DraftStore,
  PublishMode,
  ScheduleFiring,
} from "../store/mod.ts";
import { contentVersion } from "../../core/version.ts";

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
   * a SHA-256 of its `Cookie` and `Authorization` headers.
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

/** Streams open in this process, every {@linkcode EditorEvents} together. */
let processStreams = 0;

/** Longest page path accepted. */
const MAX_PAGE_LENGTH = 512;
/** Most unsaved fields one presence report may name. */
const MAX_DIRTY = 32;
/** How long presence changes are gathered into one event, in ms. */
const PRESENCE_MS = 30;
/** Longest name sent over the bus (keeps messages small). */
const MAX_NAME = 100;

const encoder = new TextEncoder();

/** One open stream of this instance. */
interface Stream {
  readonly id: string;
  readonly page: string;
  readonly session: string;
  readonly editor: Editor;
  readonly req: Request;
  readonly call: EndpointCall | undefined;
  readonly controller: ReadableStreamDefaultController<Uint8Array>;
  focus: string | null;
  dirty: string[];
  closed: boolean;
}

/** A content event kept for reconnects. */
interface Buffered {
  readonly seq: number;
  readonly name: "saved" | "published" | "drafts" | "schedule";
  /** The addresses the listener must be allowed to edit (any of them). */
  readonly fields: string[];
  /** The data, built once for all (values filtered per listener). */
  readonly data: object;
  readonly bytes: number;
  /** The encoded frame of a `saved` event, made on first delivery. */
  frame?: Uint8Array;
}

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
  readonly #bus: EventBus;
  readonly #heartbeatMs: number;
  readonly #maxStreams: number;
  readonly #perSession: number;
  readonly #maxQueued: number;
  readonly #epoch = randomHex(4);
  readonly #streams = new Map<string, Stream>();
  readonly #sessions = new Map<string, number>();
  /** Page → stream id → presence (local and remote), with when it was seen. */
  readonly #presence = new Map<
    string,
    Map<string, { message: PresenceMessage; seen: number }>
  >();
  readonly #buffer: Buffered[] = [];
  #bufferBytes = 0;
  #seq = 0;
  #dropped = 0;
  /** Pages whose presence changed and is not sent yet. */
  readonly #pending = new Set<string>();
  #presenceTimer: ReturnType<typeof setTimeout> | undefined;
  #work: Promise<void> = Promise.resolve();
  #ready: Promise<void> | null = null;
  #unsubscribe: (() => void) | null = null;
  #offDrain: (() => void) | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #ticks = 0;
  #closed = false;

  /** A hub over `options.bus` (default: in-process). */
  constructor(options: EditorEventsOptions) {
    this.#options = options;
    this.#bus = options.bus ?? new MemoryEventBus();
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    this.#maxStreams = options.maxStreams ?? 1000;
    this.#perSession = options.maxStreamsPerSession ?? 8;
    this.#maxQueued = options.maxQueuedBytes ?? 256 * 1024;
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
    const { collection, key, field } = event;
    // Not awaited: the save's answer never waits for the bus (a failure
    // is logged; the save stands either way, as with any `onSave` error).
    this.#bus.publish({
      type: "saved",
      field: `${collection}:${key}:${field}`,
      by: clip(event.editor.name),
    }).catch((err) => console.error("cms: event not sent", err));
  };

  /** The publish endpoint's `onPublish` hook: announces what went live. */
  readonly onPublish = async (
    published: Draft[],
    editor: Editor,
  ): Promise<void> => {
    const fields = published.map((d) => `${d.collection}:${d.key}:${d.field}`);
    // Chunks keep every NOTIFY payload under the limit.
    for (let i = 0; i < fields.length; i += 20) {
      await this.#bus.publish({
        type: "published",
        fields: fields.slice(i, i + 20),
        by: clip(editor.name),
      });
    }
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
    const fields = schedule.fields.map((f) =>
      `${f.collection}:${f.key}:${f.field}`
    );
    for (let i = 0; i < Math.max(fields.length, 1); i += 20) {
      await this.#bus.publish({
        type: "schedule",
        id: schedule.id,
        fields: fields.slice(i, i + 20),
        failed: !!failed,
      });
    }
  };

  /** The discard endpoint's `onDiscard` hook: the drafts changed. */
  readonly onDiscard = async (): Promise<void> => {
    await this.#bus.publish({ type: "drafts" });
  };

  /** Streams open now and dropped so far. */
  stats(): EditorEventsStats {
    return { streams: this.#streams.size, dropped: this.#dropped };
  }

  /**
   * Ends every stream with a `retry:` hint (clients reconnect, to another
   * instance behind a balancer) and stops listening. Later requests get 503.
   * `serveGracefully` does the same when it starts draining.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#endAll();
    clearInterval(this.#timer);
    clearTimeout(this.#presenceTimer);
    this.#pending.clear();
    this.#unsubscribe?.();
    this.#offDrain?.();
    await this.#work;
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
      this.#unsubscribe = await this.#bus.subscribe((message) => {
        void this.#queue(() => this.#receive(message));
      });
      this.#offDrain = onDrain(() => this.#endAll());
      // A quarter heartbeat: a gone instance's editors leave within 1.75.
      this.#timer = setInterval(() => this.#tick(), this.#heartbeatMs / 4);
      Deno.unrefTimer(this.#timer);
    })();
    return this.#ready;
  }

  /** `GET`: opens a stream for `page`. */
  async #open(
    req: Request,
    editor: Editor,
    call: EndpointCall | undefined,
  ): Promise<Response> {
    const page = new URL(req.url).searchParams.get("page");
    if (
      page === null || !page.startsWith("/") || page.length > MAX_PAGE_LENGTH ||
      [...page].some((c) => c < " " || c === "\x7f")
    ) {
      throw new HttpError(Status.BadRequest, "Missing or invalid page");
    }
    const session = await (this.#options.sessionOf ?? defaultSession)(
      req,
      editor,
    );
    const retryAfter = { "Retry-After": "5" };
    if (processStreams >= this.#maxStreams) {
      throw new HttpError(
        Status.ServiceUnavailable,
        "Too many event streams",
        retryAfter,
      );
    }
    if ((this.#sessions.get(session) ?? 0) >= this.#perSession) {
      throw new HttpError(
        Status.ServiceUnavailable,
        "Too many event streams for this session",
        retryAfter,
      );
    }
    const lastId = req.headers.get("Last-Event-ID");
    let stream!: Stream;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        stream = {
          id: randomHex(8),
          page,
          session,
          editor,
          req,
          call,
          controller,
          focus: null,
          dirty: [],
          closed: false,
        };
      },
      cancel: () => this.#end(stream),
    }, { highWaterMark: this.#maxQueued, size: (chunk) => chunk.byteLength });
    processStreams++;
    this.#sessions.set(session, (this.#sessions.get(session) ?? 0) + 1);
    this.#write(stream, `retry: ${this.#options.retryMs ?? 1000}\n`);
    this.#write(stream, frame("hello", { stream: stream.id }));
    // In the event queue: no event is sent twice or out of order around
    // the replay.
    await this.#queue(async () => {
      if (stream.closed) return;
      this.#streams.set(stream.id, stream);
      if (lastId !== null) await this.#replay(stream, lastId);
    });
    await this.#announce(stream);
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
    const stream = typeof id === "string" ? this.#streams.get(id) : undefined;
    const session = await (this.#options.sessionOf ?? defaultSession)(
      req,
      editor,
    );
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
      if (!await this.#may(req, editor, call, formatAddress(address))) {
        throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
      }
    }
    stream.focus = typeof focus === "string" ? focus : null;
    stream.dirty = [...new Set(dirty as string[])];
    await this.#announce(stream);
    return new Response(null, { status: Status.NoContent });
  }

  /** Publishes a stream's presence on the bus. */
  async #announce(stream: Stream, gone = false): Promise<void> {
    const { editor } = stream;
    await this.#bus.publish({
      type: "presence",
      stream: stream.id,
      page: stream.page,
      editor: clip(String(editor.id ?? editor.name)),
      name: clip(editor.name),
      focus: stream.focus,
      dirty: stream.dirty,
      ...(gone ? { gone } : {}),
    });
  }

  /** Builds and sends what a bus message means to this instance's streams. */
  async #receive(message: BusMessage): Promise<void> {
    if (message.type === "presence") {
      let page = this.#presence.get(message.page);
      if (message.gone) page?.delete(message.stream);
      else {
        if (!page) this.#presence.set(message.page, page = new Map());
        const known = page.get(message.stream);
        page.set(message.stream, { message, seen: performance.now() });
        // A refresh that changes nothing is not news.
        if (known && samePresence(known.message, message)) return;
      }
      if (page?.size === 0) this.#presence.delete(message.page);
      return this.#presenceChanged(message.page);
    } else if (message.type === "saved") {
      const value = await this.#read(message.field);
      if (value === undefined) return;
      const data: SavedEventData = {
        field: message.field,
        value,
        version: contentVersion(value),
        by: message.by,
      };
      await this.#emit("saved", [message.field], data, byteSize(value));
    } else if (message.type === "published") {
      const fields = message.fields.filter((f) => this.#allowlisted(f));
      await this.#emit("published", fields, { fields, by: message.by }, 0);
    } else if (message.type === "schedule") {
      const fields = message.fields.filter((f) => this.#allowlisted(f));
      const { id, failed } = message;
      // What it published comes as `published` (and then `drafts`).
      const data: ScheduleEventData = { id, fields, failed };
      return this.#emit("schedule", fields, data, 0);
    }
    // Draft mode: after a save, a publish or a discard, what is drafted now.
    const store = this.#options.store as Partial<DraftStore>;
    if (
      this.#options.publishMode === "draft" &&
      typeof store.drafts === "function"
    ) {
      const fields = (await store.drafts()).map((d) =>
        `${d.collection}:${d.key}:${d.field}`
      );
      await this.#emit("drafts", fields, { fields }, 0);
    }
  }

  /** Keeps a content event for reconnects and sends it to who may see it. */
  async #emit(
    name: Buffered["name"],
    fields: string[],
    data: object,
    bytes: number,
  ): Promise<void> {
    const event: Buffered = { seq: ++this.#seq, name, fields, data, bytes };
    this.#buffer.push(event);
    this.#bufferBytes += bytes;
    const maxEvents = this.#options.bufferEvents ?? 256;
    const maxBytes = this.#options.bufferBytes ?? 4 * 1024 * 1024;
    while (
      this.#buffer.length > maxEvents ||
      (this.#bufferBytes > maxBytes && this.#buffer.length > 1)
    ) {
      this.#bufferBytes -= this.#buffer.shift()!.bytes;
    }
    await Promise.all(
      [...this.#streams.values()].map((s) => this.#deliver(s, event)),
    );
  }

  /** Sends one content event to `stream`, filtered by `canEdit`. */
  async #deliver(stream: Stream, event: Buffered): Promise<void> {
    const allowed: string[] = [];
    for (const field of event.fields) {
      if (await this.#may(stream.req, stream.editor, stream.call, field)) {
        allowed.push(field);
      }
    }
    if (stream.closed) return;
    const id = `${this.#epoch}-${event.seq}`;
    if (event.name === "saved") {
      // One encoding for every listener: the same bytes go to each.
      event.frame ??= encoder.encode(frame("saved", event.data, id));
      if (allowed.length) this.#write(stream, event.frame);
    } else if (allowed.length || event.name === "drafts") {
      this.#write(
        stream,
        frame(event.name, { ...event.data, fields: allowed }, id),
      );
    }
  }

  /** After a reconnect: the missed events, or `resync`. */
  async #replay(stream: Stream, lastId: string): Promise<void> {
    const match = /^([\da-f]+)-(\d+)$/.exec(lastId);
    const seq = match && match[1] === this.#epoch ? Number(match[2]) : -1;
    const first = this.#buffer[0]?.seq ?? this.#seq + 1;
    if (seq < 0 || seq > this.#seq || seq < first - 1) {
      this.#write(
        stream,
        frame("resync", {}, `${this.#epoch}-${this.#seq}`),
      );
      return;
    }
    for (const event of this.#buffer) {
      if (event.seq > seq) await this.#deliver(stream, event);
    }
  }

  /**
   * Sends the page's editors soon: changes within {@linkcode PRESENCE_MS}
   * go out as one event (200 editors arriving at once would otherwise send
   * 200 lists of up to 200 editors to each of them).
   */
  #presenceChanged(page: string): void {
    if (this.#pending.size === 0 && !this.#closed) {
      this.#presenceTimer = setTimeout(() => {
        const pages = [...this.#pending];
        this.#pending.clear();
        void this.#queue(async () => {
          for (const p of pages) await this.#sendPresence(p);
        });
      }, PRESENCE_MS);
    }
    this.#pending.add(page);
  }

  /** Sends the page's editors to each of its streams here. */
  async #sendPresence(page: string): Promise<void> {
    const entries = [...(this.#presence.get(page)?.values() ?? [])];
    const listeners = [...this.#streams.values()].filter((s) =>
      s.page === page
    );
    await Promise.all(listeners.map(async (stream) => {
      const editors: PresenceEntry[] = [];
      for (const { message: m } of entries) {
        const may = (f: string) =>
          this.#may(stream.req, stream.editor, stream.call, f);
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
      if (!stream.closed) this.#write(stream, frame("presence", { editors }));
    }));
  }

  /**
   * Every quarter heartbeat: presence not refreshed for 1.5 heartbeats is
   * gone. Every heartbeat: a comment line, each stream's presence again,
   * and its session checked (a signed-out editor's stream ends).
   */
  async #tick(): Promise<void> {
    const now = performance.now();
    for (const [page, entries] of this.#presence) {
      let changed = false;
      for (const [id, entry] of entries) {
        if (now - entry.seen > this.#heartbeatMs * 1.5) {
          entries.delete(id);
          changed = true;
        }
      }
      if (entries.size === 0) this.#presence.delete(page);
      if (changed) this.#presenceChanged(page);
    }
    if (this.#ticks++ % 4 !== 0) return;
    const beat = encoder.encode(": \n\n");
    for (const stream of [...this.#streams.values()]) {
      this.#write(stream, beat);
      if (stream.closed) continue;
      try {
        const editor = await this.#options.authorize(
          stream.req,
          stream.call?.context,
        );
        if (!editor) this.#end(stream, true);
        else await this.#announce(stream);
      } catch (err) {
        console.error("cms: presence refresh failed", err);
      }
    }
  }

  /** Queues `chunk` on `stream`; a reader that fell behind is dropped. */
  #write(stream: Stream, chunk: string | Uint8Array): void {
    if (stream.closed) return;
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    try {
      stream.controller.enqueue(bytes);
    } catch {
      this.#end(stream);
      return;
    }
    if ((stream.controller.desiredSize ?? 0) < 0) {
      this.#dropped++;
      stream.controller.error(new Error("event stream reader too slow"));
      this.#end(stream);
    }
  }

  /** Forgets a stream and announces it gone; `close` ends its body too. */
  #end(stream: Stream | undefined, close = false): void {
    if (!stream || stream.closed) return;
    if (close) {
      try {
        stream.controller.close();
      } catch { /* already errored */ }
    }
    stream.closed = true;
    processStreams--;
    this.#streams.delete(stream.id);
    const left = (this.#sessions.get(stream.session) ?? 1) - 1;
    if (left > 0) this.#sessions.set(stream.session, left);
    else this.#sessions.delete(stream.session);
    this.#announce(stream, true).catch(() => {});
  }

  /** Ends every stream with a `retry:` hint. */
  #endAll(): void {
    const retry = `retry: ${this.#options.retryMs ?? 1000}\n\n`;
    for (const stream of [...this.#streams.values()]) {
      this.#write(stream, retry);
      this.#end(stream, true);
    }
  }

  /** Whether the editor of a request may edit (and so see) `field`. */
  async #may(
    req: Request,
    editor: Editor,
    call: EndpointCall | undefined,
    field: string,
  ): Promise<boolean> {
    const address = parseAddress(field);
    if (typeof address === "string") return false;
    if (typeof resolveField(this.#options.allowlist, address) === "string") {
      return false;
    }
    const { canEdit } = this.#options;
    try {
      return !canEdit || await canEdit(req, address, editor, call?.context);
    } catch {
      return false;
    }
  }

  /** Whether `field` is an allowlisted address. */
  #allowlisted(field: string): boolean {
    const address = parseAddress(field);
    return typeof address !== "string" &&
      typeof resolveField(this.#options.allowlist, address) !== "string";
  }

  /** The value of `field` now (with drafts over it in draft mode). */
  async #read(field: string): Promise<ContentValue | undefined> {
    const address = parseAddress(field);
    if (typeof address === "string") return undefined;
    const target = resolveField(this.#options.allowlist, address);
    if (typeof target === "string") return undefined;
    const store = this.#options.store as Partial<DraftStore> & ContentStore;
    const record = this.#options.publishMode === "draft" && store.getDrafted
      ? await store.getDrafted(address.collection, address.key)
      : await store.get(address.collection, address.key);
    const value = record?.[target.name];
    if (target.index === undefined) return value;
    return Array.isArray(value) ? value[target.index] : undefined;
  }
}

/** One event in the stream's wire format. */
function frame(name: string, data: unknown, id?: string): string {
  return `${id ? `id: ${id}\n` : ""}event: ${name}\ndata: ${
    JSON.stringify(data)
  }\n\n`;
}

/** A name cut to {@linkcode MAX_NAME} characters. */
function clip(name: string): string {
  return name.length > MAX_NAME ? name.slice(0, MAX_NAME) : name;
}

/** Whether two presence messages say the same. */
function samePresence(a: PresenceMessage, b: PresenceMessage): boolean {
  return a.focus === b.focus && a.name === b.name &&
    a.dirty.length === b.dirty.length &&
    a.dirty.every((f, i) => f === b.dirty[i]);
}

/** UTF-16 length of a value: what the buffer's byte budget counts. */
function byteSize(value: ContentValue): number {
  return typeof value === "string"
    ? value.length * 2
    : value.reduce((n, v) => n + v.length * 2, 0);
}

/** The default session key: a digest of the request's credentials. */
async function defaultSession(req: Request, editor: Editor): Promise<string> {
  const text = `${req.headers.get("Cookie") ?? ""}\n${
    req.headers.get("Authorization") ?? ""
  }\n${String(editor.id ?? editor.name)}`;
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return Array.from(
    new Uint8Array(digest, 0, 12),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** `bytes` random bytes as hex digits. */
function randomHex(bytes: number): string {
  const data = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}
