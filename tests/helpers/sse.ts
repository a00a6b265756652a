/**
 * A small Server-Sent Events reader for tests and benches: opens
 * `GET /api/cms/events?page=…` with fetch and yields parsed events.
 *
 * @module
 */

/** One parsed event. */
export interface SseEvent {
  /** `event:` (default `message`). */
  event: string;
  /** `data:` lines joined. */
  data: string;
  /** `id:`, if any. */
  id?: string;
  /** `retry:`, if the block had one. */
  retry?: number;
  /** When it was parsed (`performance.now()`). */
  at: number;
}

/** An open stream. */
export interface SseStream {
  /** The response (status, headers). */
  res: Response;
  /** Every event so far, in order. */
  events: SseEvent[];
  /** Comment lines seen (heartbeats). */
  comments: number;
  /** Resolves when the body ended (or failed). */
  ended: Promise<void>;
  /**
   * The first event from index `from` on that matches `test`; rejects after
   * `timeoutMs` or when the stream ends first.
   */
  next(
    test: (e: SseEvent) => boolean,
    timeoutMs?: number,
    from?: number,
  ): Promise<SseEvent>;
  /** Aborts the request. */
  close(): void;
}

/**
 * Opens an event stream; a non-200 answer is returned with no events
 * (its body read).
 *
 * @example
 * ```ts ignore
 * import { openEvents } from "./sse.ts";
 * const s = await openEvents("http://127.0.0.1:8000/api/cms/events?page=/", {});
 * await s.next((e) => e.event === "hello");
 * s.close();
 * ```
 */
export async function openEvents(
  url: string,
  headers: HeadersInit,
): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const stream: SseStream = {
    res,
    events,
    comments: 0,
    ended: Promise.resolve(),
    next(test, timeoutMs = 5000, from = 0) {
      return new Promise((resolve, reject) => {
        let done = false;
        const check = () => {
          if (done) return;
          const found = events.slice(from).find(test);
          if (found) finish(() => resolve(found));
          else if (ended) {
            finish(() => reject(new Error("stream ended")));
          }
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error("no such event in time"))),
          timeoutMs,
        );
        const finish = (f: () => void) => {
          done = true;
          clearTimeout(timer);
          waiters.delete(check);
          f();
        };
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
  let ended = false;
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel();
    ended = true;
    return stream;
  }
  stream.ended = (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const e: SseEvent = { event: "message", data: "", at: 0 };
          let any = false;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) {
              // A comment (heartbeat) is listed as an event named ":".
              stream.comments++;
              events.push({
                event: ":",
                data: line.slice(1),
                at: performance.now(),
              });
              continue;
            }
            const colon = line.indexOf(":");
            const name = colon < 0 ? line : line.slice(0, colon);
            const val = colon < 0 ? "" : line.slice(colon + 1).trimStart();
            any = true;
            if (name === "event") e.event = val;
            else if (name === "data") e.data += (e.data ? "\n" : "") + val;
            else if (name === "id") e.id = val;
            else if (name === "retry") e.retry = Number(val);
          }
          if (any) {
            e.at = performance.now();
            if (!e.data && e.retry !== undefined) e.event = "retry";
            events.push(e);
          }
        }
        wake();
      }
    } catch {
      /* aborted or cut */
    } finally {
      ended = true;
      wake();
    }
  })();
  return stream;
}

/** One editor as a `presence` event names them. */
export interface PresenceEntry {
  stream: string;
  name: string;
  focus: string | null;
  dirty: string[];
}

/**
 * The editors `s` knows of once it got `upTo`: its `presence` events folded
 * (a whole board `{editors}` replaces what was known; `{set, gone}` changes
 * it).
 */
export function presenceSeen(s: SseStream, upTo: SseEvent): PresenceEntry[] {
  const board = new Map<string, PresenceEntry>();
  for (const e of s.events.slice(0, s.events.indexOf(upTo) + 1)) {
    if (e.event !== "presence") continue;
    const d = JSON.parse(e.data);
    if (d.editors) board.clear();
    for (const id of d.gone ?? []) board.delete(id);
    for (const x of [...d.editors ?? [], ...d.set ?? []]) {
      board.set(x.stream, x);
    }
  }
  return [...board.values()];
}
