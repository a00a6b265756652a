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
}

/** The caps of a {@linkcode StreamRegistry}. */
export interface RegistryLimits {
  /** Open streams per process, every registry together. */
  maxStreams: number;
  /** Open streams per session. */
  perSession: number;
  /** Bytes a stream may have queued for a slow reader. */
  maxQueued: number;
}

/** What a stream is opened for. */
export type StreamInit = Pick<
  Stream,
  "page" | "session" | "editor" | "req" | "call"
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
 *   { maxStreams: 10, perSession: 2, maxQueued: 65536 },
 *   (gone) => console.log("ended", gone.id),
 * );
 * registry.admit("session-1");
 * ```
 */
export class StreamRegistry {
  readonly #limits: RegistryLimits;
  readonly #onEnd: (stream: Stream) => void;
  readonly #streams = new Map<string, Stream>();
  readonly #sessions = new Map<string, number>();
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

  /** Throws a 503 when the process or `session` holds its most streams. */
  admit(session: string): void {
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
        };
      },
      cancel: () => this.end(stream),
    }, {
      highWaterMark: this.#limits.maxQueued,
      size: (chunk) => chunk.byteLength,
    });
    processStreams++;
    const { session } = init;
    this.#sessions.set(session, (this.#sessions.get(session) ?? 0) + 1);
    return { stream, body };
  }

  /** Lists `stream`: it gets events from now on. */
  list(stream: Stream): void {
    this.#streams.set(stream.id, stream);
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
    return this.all().filter((s) => s.page === page);
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
    this.#streams.delete(stream.id);
    const left = (this.#sessions.get(stream.session) ?? 1) - 1;
    if (left > 0) this.#sessions.set(stream.session, left);
    else this.#sessions.delete(stream.session);
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

/**
 * The default session key: a digest of the request's credentials (its
 * `Cookie` and `Authorization` headers) and the editor.
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
): Promise<string> {
  const text = `${req.headers.get("Cookie") ?? ""}\n${
    req.headers.get("Authorization") ?? ""
  }\n${String(editor.id ?? editor.name)}`;
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return hex(new Uint8Array(digest, 0, 12));
}
