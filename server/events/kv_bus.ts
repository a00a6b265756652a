/**
 * The editor event bus over Deno KV: every process that shares a KV
 * database (several processes on one local file, the workers of
 * `deno serve --parallel`, the instances of Deno Deploy) sees the saves,
 * publishes, drafts, schedules and presence of the others.
 *
 * Messages go to an ordered log in KV: a "head" key holds the log's epoch
 * and its last number, and each message is written at the next number in
 * the same atomic operation (checked against the head, retried when another
 * process wrote first), so the log has no gaps and one order for every
 * reader. Each process reads the head when a `watch` on it fires (which
 * works across Deploy instances and within one process) and every
 * `pollMs` (which works everywhere: a `watch` does not see other processes'
 * writes to a local file). Reading the head is the only cost when nothing
 * happens: one KV read per poll. The log is trimmed to its newest `keep`
 * messages, and each message also expires after `ttlMs`.
 *
 * Every message is delivered with its place in the log
 * ({@linkcode LogPosition}), so the event stream's ids mean the same on
 * every process and a reconnect with `Last-Event-ID` resumes on any of them.
 *
 * @module
 */
import { randomHex } from "../http/mod.ts";
import {
  type BusListener,
  type BusMessage,
  decodeMessage,
  encodeMessage,
  type EventBus,
  type LogPosition,
} from "./bus.ts";

/** Options of {@linkcode KvEventBus}. */
export interface KvEventBusOptions {
  /** Key prefix of the head and the log. Default `["cms_events"]`. */
  prefix?: Deno.KvKey;
  /**
   * How often the head is read, in ms (one KV read each). Default 500: a
   * message reaches the other processes within about that. On Deno Deploy,
   * where `watch` carries other instances' writes at once, a longer poll
   * (e.g. 5000) costs fewer reads.
   */
  pollMs?: number;
  /** Messages kept in the log for late readers. Default 1000. */
  keep?: number;
  /** Each message expires after this many ms. Default one hour. */
  ttlMs?: number;
}

/** The head of the log: its epoch and the number of its last message. */
interface Head {
  epoch: string;
  seq: number;
}

/** Log entries between two trims. */
const TRIM_EVERY = 64;
/** Attempts at appending when other processes keep writing first. */
const MAX_ATTEMPTS = 100;

/**
 * An {@linkcode EventBus} over a Deno KV database shared by every process
 * of the site. Open the KV once per process and give it here; the caller
 * closes it (after the event stream closed).
 *
 * @example
 * ```ts
 * import { EditorEvents, KvEventBus, KvContentStore } from "@inplace/cms";
 * const kv = await Deno.openKv(":memory:");
 * const events = new EditorEvents({
 *   authorize: () => null,
 *   allowlist: { pages: { title: "plain" as const } },
 *   store: new KvContentStore(kv),
 *   bus: new KvEventBus(kv),
 * });
 * await events.close();
 * kv.close();
 * ```
 */
export class KvEventBus implements EventBus {
  readonly #kv: Deno.Kv;
  readonly #headKey: Deno.KvKey;
  readonly #logKey: Deno.KvKey;
  readonly #pollMs: number;
  readonly #keep: number;
  readonly #ttlMs: number;
  readonly #listeners = new Set<BusListener>();
  /** Where this process has read up to. */
  #at: Head | null = null;
  #starting: Promise<void> | null = null;
  #pulling: Promise<void> | null = null;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #watch: ReadableStreamDefaultReader<unknown> | null = null;
  #reads = 0;

  /** A bus over `kv` (see {@linkcode KvEventBusOptions}). */
  constructor(kv: Deno.Kv, options: KvEventBusOptions = {}) {
    const prefix = options.prefix ?? ["cms_events"];
    this.#kv = kv;
    this.#headKey = [...prefix, "head"];
    this.#logKey = [...prefix, "log"];
    this.#pollMs = positive(options.pollMs, 500, "pollMs");
    this.#keep = positive(options.keep, 1000, "keep");
    this.#ttlMs = positive(options.ttlMs, 3_600_000, "ttlMs");
  }

  /** KV reads (gets and lists) this bus made so far: its running cost. */
  get reads(): number {
    return this.#reads;
  }

  /**
   * Appends `message` to the log; rejects when its JSON exceeds
   * `MAX_BUS_MESSAGE_BYTES` or KV keeps refusing the append.
   */
  async publish(message: BusMessage): Promise<void> {
    const text = encodeMessage(message);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = await this.#get<Head>(this.#headKey);
      const head = entry.value ?? { epoch: randomHex(4), seq: 0 };
      const seq = head.seq + 1;
      const done = await commit(
        this.#kv.atomic()
          .check(entry)
          .set(this.#headKey, { epoch: head.epoch, seq })
          .set([...this.#logKey, seq], text, { expireIn: this.#ttlMs }),
      );
      if (done.ok) {
        if (seq % TRIM_EVERY === 0) void this.#trim(seq).catch(() => {});
        if (this.#listeners.size) void this.#pull();
        return;
      }
      // Another process appended first: try again after a short pause.
      await sleep(Math.random() * Math.min(50, 2 + attempt * 5));
    }
    throw new Error("cms: event log busy, message not sent");
  }

  /**
   * Delivers every message appended after this call (by any process) to
   * `listener`, in log order, with its {@linkcode LogPosition}.
   */
  async subscribe(listener: BusListener): Promise<() => void> {
    this.#listeners.add(listener);
    try {
      this.#starting ??= this.#start();
      await this.#starting;
    } catch (err) {
      this.#listeners.delete(listener);
      this.#starting = null;
      throw err;
    }
    return () => {
      this.#listeners.delete(listener);
      if (!this.#listeners.size) this.#stop();
    };
  }

  /** Where this process has read the log up to (after it subscribed). */
  position(): LogPosition | null {
    return this.#at ? { ...this.#at } : null;
  }

  /** Reads the log now and delivers what is new (before a replay). */
  async catchUp(): Promise<void> {
    if (this.#at) await this.#pull();
  }

  /** Stops reading (every subscription ends). */
  close(): void {
    this.#listeners.clear();
    this.#stop();
  }

  /** Reads the head (making the log when there is none) and starts reading. */
  async #start(): Promise<void> {
    let entry = await this.#get<Head>(this.#headKey);
    for (let attempt = 1; !entry.value; attempt++) {
      // A new log; another process may be making it at the same moment.
      if (attempt > MAX_ATTEMPTS) throw new Error("cms: event log busy");
      const head: Head = { epoch: randomHex(4), seq: 0 };
      await commit(this.#kv.atomic().check(entry).set(this.#headKey, head));
      entry = await this.#get<Head>(this.#headKey);
      if (!entry.value) await sleep(Math.random() * 20);
    }
    this.#at = { ...entry.value };
    this.#schedule();
    void this.#watchHead();
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#watch?.cancel().catch(() => {});
    this.#watch = null;
    this.#at = null;
    this.#starting = null;
  }

  /** The next poll. */
  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      void this.#pull().finally(() => {
        if (this.#at) this.#schedule();
      });
    }, this.#pollMs);
  }

  /** Pulls whenever a `watch` on the head reports a change. */
  async #watchHead(): Promise<void> {
    const reader = this.#kv.watch([this.#headKey]).getReader();
    this.#watch = reader;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || this.#watch !== reader) return;
        const head = (value as Deno.KvEntryMaybe<Head>[])[0].value;
        if (head && this.#at && head.seq > this.#at.seq) void this.#pull();
      }
    } catch {
      // The KV closed, or watching is not supported: polling goes on.
    }
  }

  /** Reads what is new, once at a time (a call meanwhile reads again after). */
  #pull(): Promise<void> {
    if (this.#pulling) {
      this.#again = true;
      return this.#pulling;
    }
    this.#pulling = (async () => {
      do {
        this.#again = false;
        await this.#pullOnce().catch((err) => {
          // A busy file is read at the next poll.
          if (this.#at && !locked(err)) {
            console.error("cms: event log not read", err);
          }
        });
      } while (this.#again && this.#at);
    })().finally(() => this.#pulling = null);
    return this.#pulling;
  }

  /** Reads the head, then the messages after where this process is. */
  async #pullOnce(): Promise<void> {
    const at = this.#at;
    if (!at) return;
    const head = (await this.#get<Head>(this.#headKey)).value;
    if (!head || (head.epoch === at.epoch && head.seq <= at.seq)) return;
    // A new log (the database was replaced): read it from its start.
    const from = head.epoch === at.epoch ? at.seq : 0;
    const entries = this.#kv.list<string>({
      start: [...this.#logKey, from + 1],
      end: [...this.#logKey, head.seq + 1],
    }, { batchSize: 500 });
    this.#reads++;
    let expected = from + 1;
    for await (const entry of entries) {
      if (this.#at !== at) return;
      const seq = entry.key[entry.key.length - 1] as number;
      const gap = seq !== expected;
      at.epoch = head.epoch;
      at.seq = seq;
      expected = seq + 1;
      const message = decodeMessage(entry.value);
      if (message) this.#deliver(message, { epoch: head.epoch, seq, gap });
    }
    if (this.#at === at && at.seq < head.seq) {
      // The rest was trimmed or expired before it was read.
      at.epoch = head.epoch;
      at.seq = head.seq;
      this.#deliverGap(head);
    }
  }

  #deliver(message: BusMessage, position: LogPosition): void {
    if (!position.gap) delete position.gap;
    for (const listener of this.#listeners) {
      listener(JSON.parse(JSON.stringify(message)), { ...position });
    }
  }

  /** Tells listeners that messages up to `head` were missed. */
  #deliverGap(head: Head): void {
    this.#deliver({ type: "drafts" }, { ...head, gap: true });
  }

  /** Deletes the messages older than the newest `keep` (in batches). */
  async #trim(seq: number): Promise<void> {
    const end = seq - this.#keep + 1;
    if (end <= 1) return;
    const old = this.#kv.list({
      start: [...this.#logKey, 0],
      end: [...this.#logKey, end],
    }, { limit: 4 * TRIM_EVERY });
    this.#reads++;
    let op = this.#kv.atomic(), n = 0;
    for await (const entry of old) {
      op.delete(entry.key);
      if (++n % 100 === 0) {
        await op.commit();
        op = this.#kv.atomic();
      }
    }
    if (n % 100) await op.commit();
  }

  #get<T>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
    this.#reads++;
    return this.#kv.get<T>(key);
  }
}

/** `value` when a positive finite number, else `fallback`; else throws. */
function positive(
  value: number | undefined,
  fallback: number,
  name: string,
): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number`);
  }
  return value;
}

/** Whether `err` is SQLite's "another handle holds the write lock". */
function locked(err: unknown): boolean {
  return err instanceof TypeError && /database is locked/.test(err.message);
}

/**
 * Commits `op`; a write lock held by another handle on the same local file
 * counts as a lost race (not ok), like a failed check.
 */
async function commit(
  op: Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  try {
    return await op.commit();
  } catch (err) {
    if (locked(err)) return { ok: false };
    throw err;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
