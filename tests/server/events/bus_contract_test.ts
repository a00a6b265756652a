/**
 * One event bus contract, run unchanged against the memory bus, the
 * PostgreSQL `LISTEN`/`NOTIFY` bus and the Deno KV bus (two handles on one
 * KV file, as two processes have): every subscriber of every instance gets
 * every message (the sender's own too), unsubscribing stops delivery, every
 * message kind arrives unchanged and as a copy, a message past
 * `MAX_BUS_MESSAGE_BYTES` (UTF-8) is refused and nothing is sent, and
 * closing is clean. Every wait is bounded.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import {
  type BusMessage,
  type EventBus,
  MAX_BUS_MESSAGE_BYTES,
  MemoryEventBus,
} from "../../../server/events/bus.ts";
import { PostgresEventBus } from "../../../postgres/bus.ts";
import { KvEventBus } from "../../../server/events/kv_bus.ts";
import { BusLink } from "../../../server/events/_bus_io.ts";
import { PresenceBoard } from "../../../server/events/_presence.ts";
import type { Stream } from "../../../server/events/_registry.ts";
import { HAS_POSTGRES, startPostgres } from "../../helpers/postgres.ts";

/** Longest wait for one delivery or one close, in ms. */
const WAIT_MS = 5000;

/**
 * Two instances' buses on one channel (for the memory bus, one bus: it
 * serves one process). `close()` is what the instance does on shutdown.
 */
interface Pair extends AsyncDisposable {
  a: EventBus;
  b: EventBus;
  close(): Promise<void>;
  /** PostgreSQL only: a raw `NOTIFY` of `payload` on the pair's channel. */
  raw?: (payload: string) => Promise<void>;
}
type Open = () => Promise<Pair>;
type Case = (open: Open) => Promise<void>;

/** A subscriber that records what it gets. */
interface Inbox {
  got: BusMessage[];
  /** Resolves once `count` messages arrived; rejects after {@linkcode WAIT_MS}. */
  wait(count: number): Promise<BusMessage[]>;
  stop(): void;
}

/** `promise`, or a rejection naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${WAIT_MS} ms: ${what}`)),
      WAIT_MS,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function subscribe(bus: EventBus): Promise<Inbox> {
  const got: BusMessage[] = [];
  const waiters = new Set<() => void>();
  const stop = await bus.subscribe((message) => {
    got.push(message);
    for (const wake of waiters) wake();
  });
  return {
    got,
    stop,
    wait(count) {
      return within(
        new Promise<BusMessage[]>((resolve) => {
          const check = () => {
            if (got.length < count) return;
            waiters.delete(check);
            resolve(got.slice(0, count));
          };
          waiters.add(check);
          check();
        }),
        `${count} message(s), got ${got.length}`,
      );
    },
  };
}

/** One message of each kind, with the optional and odd parts filled in. */
const KINDS: BusMessage[] = [
  { type: "saved", field: "pages:home:title@de", by: "Ada Ümlaut ✓" },
  {
    type: "published",
    fields: ["pages:home:title", "pages:home:features.2"],
    by: "Ada",
  },
  { type: "published", fields: [], by: "Bob" },
  { type: "drafts" },
  {
    type: "schedule",
    id: "s-1",
    fields: ["pages:home:title"],
    failed: false,
  },
  { type: "schedule", id: "s-2", fields: [], failed: true },
  {
    type: "presence",
    stream: "0123456789abcdef",
    page: "/über uns",
    editor: "ada",
    name: "Ada",
    focus: "pages:home:title",
    dirty: ["pages:home:title", "pages:home:secret"],
  },
  {
    type: "presence",
    stream: "0123456789abcdef",
    page: "/",
    editor: "ada",
    name: "Ada",
    focus: null,
    dirty: [],
    gone: true,
  },
];

/** A `saved` message whose JSON is `bytes` UTF-8 bytes, `by` of `unit`s. */
function savedOfSize(bytes: number, unit = "x"): BusMessage {
  const base = JSON.stringify({ type: "saved", field: "p:k:f", by: "" });
  const unitBytes = new TextEncoder().encode(unit).length;
  const room = bytes - base.length;
  const by = unit.repeat(Math.floor(room / unitBytes)) +
    "x".repeat(room % unitBytes);
  const message: BusMessage = { type: "saved", field: "p:k:f", by };
  assert.equal(
    new TextEncoder().encode(JSON.stringify(message)).length,
    bytes,
  );
  return message;
}

const cases: Record<string, Case> = {
  "a published message reaches every subscriber, the sender's own too": async (
    open,
  ) => {
    await using pair = await open();
    const onA = await subscribe(pair.a);
    const onB = await subscribe(pair.b);
    const first: BusMessage = { type: "saved", field: "p:k:f", by: "Ada" };
    await pair.a.publish(first);
    assert.deepEqual(await onA.wait(1), [first]);
    assert.deepEqual(await onB.wait(1), [first]);
    const second: BusMessage = { type: "drafts" };
    await pair.b.publish(second);
    assert.deepEqual(await onA.wait(2), [first, second]);
    assert.deepEqual(await onB.wait(2), [first, second]);
    onA.stop();
    onB.stop();
  },

  "unsubscribe stops delivery, to that subscriber only": async (open) => {
    await using pair = await open();
    const stopped = await subscribe(pair.a);
    const stays = await subscribe(pair.a);
    const other = await subscribe(pair.b);
    await pair.b.publish({ type: "drafts" });
    await stopped.wait(1);
    stopped.stop();
    const after: BusMessage = { type: "saved", field: "p:k:f", by: "Bob" };
    await pair.b.publish(after);
    // `stays` shares `stopped`'s bus: once it has the message, `stopped`
    // would have had it too.
    assert.deepEqual((await stays.wait(2))[1], after);
    assert.deepEqual((await other.wait(2))[1], after);
    assert.equal(stopped.got.length, 1);
    stays.stop();
    other.stop();
  },

  "every message kind arrives unchanged, in order, as a copy": async (
    open,
  ) => {
    await using pair = await open();
    const onA = await subscribe(pair.a);
    const onB = await subscribe(pair.b);
    const sent = structuredClone(KINDS);
    for (const message of sent) {
      await pair.a.publish(message);
      // What is sent is fixed when publish is called.
      if ("by" in message) message.by = "changed after publish";
    }
    assert.deepEqual(await onB.wait(KINDS.length), KINDS);
    assert.deepEqual(await onA.wait(KINDS.length), KINDS);
    for (let i = 0; i < KINDS.length; i++) {
      assert.notEqual(onA.got[i], onB.got[i], "each subscriber its own copy");
      assert.notEqual(onA.got[i], sent[i]);
    }
    onA.stop();
    onB.stop();
  },

  [`a message of ${MAX_BUS_MESSAGE_BYTES} UTF-8 bytes goes, one byte more is refused and not sent`]:
    async (open) => {
      await using pair = await open();
      const onB = await subscribe(pair.b);
      const largest = savedOfSize(MAX_BUS_MESSAGE_BYTES);
      // 2-byte characters: within the limit in UTF-8 bytes, though three
      // times its length in UTF-16 units is past it.
      const wide = savedOfSize(MAX_BUS_MESSAGE_BYTES, "ä");
      for (
        const tooLarge of [
          savedOfSize(MAX_BUS_MESSAGE_BYTES + 1),
          savedOfSize(MAX_BUS_MESSAGE_BYTES + 1, "ä"),
          savedOfSize(MAX_BUS_MESSAGE_BYTES + 3, "✓"),
        ]
      ) {
        await assert.rejects(
          async () => await pair.a.publish(tooLarge),
          (err: unknown) =>
            err instanceof RangeError &&
            err.message === "bus message too large",
        );
      }
      await pair.a.publish(largest);
      await pair.a.publish(wide);
      // Only the two that fit arrive (a refused one would come first).
      assert.deepEqual(await onB.wait(2), [largest, wide]);
      onB.stop();
    },

  "a large publish and a large presence report arrive whole, in messages that fit":
    async (open) => {
      await using pair = await open();
      const onB = await subscribe(pair.b);
      const link = new BusLink(pair.a);
      // Addresses as long as they get: 64-character names, 128-character
      // keys of 3-byte characters.
      const name = "c".repeat(64), field = "f".repeat(60);
      const key = (i: number) => `${i}`.padStart(128, "鍵");
      const drafts = Array.from({ length: 40 }, (_, i) => ({
        collection: name,
        key: key(i),
        field: `${field}${i}`,
        value: "",
        at: "",
        editor: "Ada",
      }));
      await link.published(drafts, { name: "Ada ".repeat(30) });
      const dirty = drafts.slice(0, 32).map((d) =>
        `${d.collection}:${d.key}:${d.field}`
      );
      const stream = {
        id: "s1",
        page: `/${"p".repeat(500)}`,
        editor: { id: "ada", name: "Ada" },
        focus: dirty[0],
        dirty,
      } as unknown as Stream;
      await link.presence(stream);
      // Every message fits; the receiver's board puts the report together.
      await new Promise((r) => setTimeout(r, 300));
      const got = onB.got;
      for (const m of got) {
        assert.ok(
          new TextEncoder().encode(JSON.stringify(m)).length <=
            MAX_BUS_MESSAGE_BYTES,
        );
      }
      const published = got.flatMap((m) =>
        m.type === "published" ? m.fields : []
      );
      assert.equal(published.length, 40);
      assert.ok(got.filter((m) => m.type === "published").length > 1);
      const board = new PresenceBoard(() => {});
      for (const m of got) if (m.type === "presence") board.receive(m);
      board.close();
      const entry = board.get(stream.page, "s1");
      assert.deepEqual(entry?.dirty, dirty);
      assert.equal(entry?.focus, dirty[0]);
      assert.ok(got.filter((m) => m.type === "presence").length > 1);
      onB.stop();
    },

  "a message too large is refused by a rejected promise, never a throw": async (
    open,
  ) => {
    await using pair = await open();
    let sent: Promise<void> | undefined;
    assert.doesNotThrow(() => {
      sent = pair.a.publish(savedOfSize(MAX_BUS_MESSAGE_BYTES + 1));
    });
    await assert.rejects(() => sent!, RangeError);
  },

  "close() is clean: it ends in time with a subscriber still there, and unsubscribing after it is harmless":
    async (open) => {
      const pair = await open();
      const stopped = await subscribe(pair.a);
      const open1 = await subscribe(pair.b);
      await pair.a.publish({ type: "drafts" });
      await stopped.wait(1);
      await open1.wait(1);
      stopped.stop();
      // One subscriber is still there when the instance closes.
      await within(pair.close(), "close()");
      open1.stop();
      stopped.stop();
      assert.equal(stopped.got.length, 1);
      assert.equal(open1.got.length, 1);
      // Closing twice (as `await using` would after an explicit close) is fine.
      await within(pair.close(), "second close()");
    },
};

/** Registers every case (and `extra` ones) as a step of one test per bus. */
function contract(
  name: string,
  setup: () => Promise<{ open: Open } & AsyncDisposable>,
  extra: Record<string, Case> = {},
) {
  Deno.test(`event bus contract: ${name}`, {
    ignore: name.startsWith("Postgres") && !HAS_POSTGRES,
  }, async (t) => {
    const env = await setup();
    try {
      for (const [title, run] of Object.entries({ ...cases, ...extra })) {
        await t.step(title, () => run(env.open));
      }
    } finally {
      // Stops PostgreSQL (and removes its folder) whatever happened.
      await env[Symbol.asyncDispose]();
    }
  });
}

const resolved = () => Promise.resolve();

contract("MemoryEventBus", () =>
  Promise.resolve({
    open: () => {
      const bus = new MemoryEventBus();
      return Promise.resolve({
        a: bus,
        b: bus,
        close: resolved,
        [Symbol.asyncDispose]: resolved,
      });
    },
    [Symbol.asyncDispose]: resolved,
  }));

/** Cases only the PostgreSQL bus has (documented in `bus_postgres.ts`). */
const postgresOnly: Record<string, Case> = {
  "a NOTIFY that is not a bus message is skipped": async (open) => {
    await using pair = await open();
    const onA = await subscribe(pair.a);
    for (const payload of ["not json", "42", "null", '{"no":"type"}']) {
      await pair.raw!(payload);
    }
    await pair.b.publish({ type: "drafts" });
    assert.deepEqual(await onA.wait(1), [{ type: "drafts" }]);
    assert.equal(onA.got.length, 1);
    onA.stop();
  },

  "a channel name is lowercase letters, digits and _": () => {
    const sql = postgres("postgres://nobody@127.0.0.1:1/none");
    for (const bad of ["Events", "cms-events", "1abc", "", "a".repeat(64)]) {
      assert.throws(() => new PostgresEventBus(sql, bad), RangeError);
    }
    new PostgresEventBus(sql, "cms_events_2");
    return sql.end();
  },
};

contract("PostgresEventBus", async () => {
  const pg = await startPostgres();
  let url: string;
  try {
    url = await pg.database();
  } catch (err) {
    await pg.close();
    throw err;
  }
  let n = 0;
  return {
    open: () => {
      // Two clients: two instances, each with its own LISTEN connection.
      const clients = [1, 2].map(() =>
        postgres(url, { max: 2, onnotice: () => {} })
      );
      const channel = `contract_${++n}`;
      const close = async () => {
        await Promise.all(clients.map((sql) => sql.end()));
      };
      return Promise.resolve({
        a: new PostgresEventBus(clients[0], channel),
        b: new PostgresEventBus(clients[1], channel),
        raw: async (payload: string) => {
          await clients[1].notify(channel, payload);
        },
        close,
        [Symbol.asyncDispose]: close,
      });
    },
    [Symbol.asyncDispose]: () => pg.close(),
  };
}, postgresOnly);

contract("KvEventBus", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-kvbus-" });
  let n = 0;
  return {
    open: async () => {
      // Two handles on one file: two processes' views of one database.
      const path = `${dir}/events-${++n}.kv`;
      const kvs = [await Deno.openKv(path), await Deno.openKv(path)];
      const [a, b] = kvs.map((kv) => new KvEventBus(kv, { pollMs: 50 }));
      let closed = false;
      const close = () => {
        if (closed) return Promise.resolve();
        closed = true;
        a.close();
        b.close();
        for (const kv of kvs) kv.close();
        return Promise.resolve();
      };
      return { a, b, close, [Symbol.asyncDispose]: close };
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
});
