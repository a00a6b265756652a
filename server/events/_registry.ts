/**
 * The stream registry of the editor event stream: the streams open on one
 * `EditorEvents` handler, the caps on how many a process and a
 * session may hold (503 with `Retry-After` past them), and the writes that
 * drop a reader who falls behind instead of queueing without bound.
 *
 * @module
 */
import {
  type Editor,
  type EndpointCall,
  hex,
  HttpError,
  randomHex,
} from "../http/mod.ts";
import { Status } from "../../core/protocol/mod.ts";
import { encoder } from "./_frame.ts";

/** One open stream of this instance. */
export interface Stream {
  /** Its id, random (unique across instances). */
  readonly id: string;
  /** The page path it listens to. */
  readonly page: string;
  /** The session it counts against. */
  readonly session: string;
  /** The editor identity it counts against (every session of theirs). */
  readonly who: string;
  /** The editor who opened it. */
  readonly editor: Editor;
  /** The request that opened it (for `canEdit` and `authorize`). */
  readonly req: Request;
  /** The endpoint pipeline's call of that request. */
  readonly call: EndpointCall | undefined;
  /** Where its bytes are queued. */
  readonly controller: ReadableStreamDefaultController<Uint8Array>;
  /** The field address its editor has focused, or `null`. */
  focus: string | null;
  /** The field addresses its editor changed but did not save. */
  dirty: string[];
  /** Whether it ended. */
  closed: boolean;
  /**
   * Whether presence changes were held back while its reader was behind:
   * it gets the whole board again once it caught up.
   */
  stale: boolean;
  /** `canEdit`'s answers for presence fields, until the next heartbeat. */
  allowed?: Map<string, boolean>;
}

/** The caps of a {@linkcode StreamRegistry}. */
export interface RegistryLimits {
  /** Open streams per process, every registry together. */
  maxStreams: number;
  /** Open streams per session. */
  perSession: number;
  /** Open streams per editor, all their sessions together. */
  perEditor: number;
  /** Bytes a stream may have queued for a slow reader. */
  maxQueued: number;
}

/** What a stream is opened for. */
export type StreamInit = Pick<
  Stream,
  "page" | "session" | "who" | "editor" | "req" | "call"
>;

/** Streams open in this process, every {@linkcode StreamRegistry} together. */
let processStreams = 0;

/**
 * The streams of one handler: opens, lists, writes to and ends them, and
 * counts the ones dropped for reading too slowly.
 *
 * @example
 * ```ts
 * import { StreamRegistry } from "./_registry.ts";
 * const registry = new StreamRegistry(
 *   { maxStreams: 10, perSession: 2, perEditor: 4, maxQueued: 65536 },
 *   (gone) => console.log("ended", gone.id),
 * );
 * registry.admit("session-1", "ada");
 * ```
 */
export class StreamRegistry {
  readonly #limits: RegistryLimits;
  readonly #onEnd: (stream: Stream) => void;
  readonly #streams = new Map<string, Stream>();
  readonly #sessions = new Map<string, number>();
  readonly #editors = new Map<string, number>();
  /** Page → its listed streams. */
  readonly #pages = new Map<string, Stream[]>();
  #dropped = 0;

  /** A registry with `limits`; `onEnd` runs once for each stream that ends. */
  constructor(limits: RegistryLimits, onEnd: (stream: Stream) => void) {
    this.#limits = limits;
    this.#onEnd = onEnd;
  }

  /** Streams listed now. */
  get size(): number {
    return this.#streams.size;
  }

  /** Streams dropped so far because their reader fell behind. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Throws a 503 when the process, `session` or the editor `who` holds its
   * most streams.
   */
  admit(session: string, who: string): void {
    const retryAfter = { "Retry-After": "5" };
    if (processStreams >= this.#limits.maxStreams) {
      throw new HttpError(
        Status.ServiceUnavailable,
        "Too many event streams",
        retryAfter,
      );
    }
    if ((this.#sessions.get(session) ?? 0) >= this.#limits.perSession) {
      throw new HttpError(
        Status.ServiceUnavailable,
        "Too many event streams for this session",
        retryAfter,
      );
    }
    if ((this.#editors.get(who) ?? 0) >= this.#limits.perEditor) {
      throw new HttpError(
        Status.ServiceUnavailable,
        "Too many event streams for this editor",
        retryAfter,
      );
    }
  }

  /** Bytes queued on `stream` that its reader has not taken yet. */
  queued(stream: Stream): number {
    return this.#limits.maxQueued - (stream.controller.desiredSize ?? 0);
  }

  /**
   * A new stream and the body it writes to, counted against the caps but
   * not yet listed ({@linkcode StreamRegistry.list} does that). A reader
   * who cancels the body ends the stream.
   */
  open(init: StreamInit): { stream: Stream; body: ReadableStream<Uint8Array> } {
    let stream!: Stream;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        stream = {
          id: randomHex(8),
          ...init,
          controller,
          focus: null,
          dirty: [],
          closed: false,
          stale: false,
        };
      },
      cancel: () => this.end(stream),
    }, {
      highWaterMark: this.#limits.maxQueued,
      size: (chunk) => chunk.byteLength,
    });
    processStreams++;
    count(this.#sessions, init.session, 1);
    count(this.#editors, init.who, 1);
    return { stream, body };
  }

  /** Lists `stream`: it gets events from now on. */
  list(stream: Stream): void {
    this.#streams.set(stream.id, stream);
    let page = this.#pages.get(stream.page);
    if (!page) this.#pages.set(stream.page, page = []);
    page.push(stream);
  }

  /** The listed stream `id`, if any. */
  get(id: string): Stream | undefined {
    return this.#streams.get(id);
  }

  /** Every listed stream (a copy: ending one while going through is fine). */
  all(): Stream[] {
    return [...this.#streams.values()];
  }

  /** The listed streams of `page`. */
  onPage(page: string): Stream[] {
    return (this.#pages.get(page) ?? []).slice();
  }

  /** Queues `chunk` on `stream`; a reader that fell behind is dropped. */
  write(stream: Stream, chunk: string | Uint8Array): void {
    if (stream.closed) return;
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    try {
      stream.controller.enqueue(bytes);
    } catch {
      this.end(stream);
      return;
    }
    if ((stream.controller.desiredSize ?? 0) < 0) {
      this.#dropped++;
      stream.controller.error(new Error("event stream reader too slow"));
      this.end(stream);
    }
  }

  /** Forgets a stream and reports it ended; `close` ends its body too. */
  end(stream: Stream | undefined, close = false): void {
    if (!stream || stream.closed) return;
    if (close) {
      try {
        stream.controller.close();
      } catch { /* already errored */ }
    }
    stream.closed = true;
    processStreams--;
    if (this.#streams.delete(stream.id)) {
      const page = this.#pages.get(stream.page)!;
      page.splice(page.indexOf(stream), 1);
      if (!page.length) this.#pages.delete(stream.page);
    }
    count(this.#sessions, stream.session, -1);
    count(this.#editors, stream.who, -1);
    this.#onEnd(stream);
  }

  /** Writes `last` to every listed stream, then ends its body. */
  endAll(last: string): void {
    for (const stream of this.all()) {
      this.write(stream, last);
      this.end(stream, true);
    }
  }
}

/** Adds `by` to the count of `key` (a count of 0 is forgotten). */
function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/**
 * The identity of an editor: their `id`, else their name.
 *
 * @example
 * ```ts
 * import { editorKey } from "./_registry.ts";
 * editorKey({ id: 7, name: "Ada" }); // "7"
 * ```
 */
export function editorKey(editor: Editor): string {
  return String(editor.id ?? editor.name);
}

/**
 * The default session key of a request, from what cannot be varied by the
 * client at will: the `session` the host's `authorize` returned with the
 * editor (a string or number), else the value of the host's session cookie
 * `cookie` (when named), else the editor's identity (all their sessions
 * together). A digest, so no credential is kept.
 *
 * @example
 * ```ts
 * import { defaultSession } from "./_registry.ts";
 * await defaultSession(new Request("http://x/"), { name: "Ada" });
 * ```
 */
export async function defaultSession(
  req: Request,
  editor: Editor,
  cookie?: string,
): Promise<string> {
  const { session } = editor;
  let text = `editor\n${editorKey(editor)}`;
  if (typeof session === "string" || typeof session === "number") {
    text = `session\n${session}`;
  } else if (cookie) {
    const value = cookieValue(req, cookie);
    if (value !== undefined) text = `cookie\n${value}`;
  }
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return hex(new Uint8Array(digest, 0, 12));
}

/** The value of cookie `name` of `req` (the first, as browsers send it). */
function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("Cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) {
      return part.slice(at + 1).trim();
    }
  }
  return undefined;
}
