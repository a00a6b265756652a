/**
 * What the Deno KV event bus adds to the bus contract: one numbering of
 * messages shared by every process (contiguous, with the log's epoch), no
 * message lost or doubled when processes append at once, a log trimmed to
 * its newest messages, a reader that fell behind the trimmed log told so
 * (`gap`), malformed entries skipped, an idle cost of about one KV read per
 * poll, and options checked.
 */
import assert from "node:assert/strict";
import type { BusMessage, LogPosition } from "../../../server/events/bus.ts";
import { KvEventBus } from "../../../server/events/kv_bus.ts";

interface Got {
  message: BusMessage;
  at: LogPosition;
}

/** Two KV handles on one new file (two processes' views); closed after. */
async function twoHandles(): Promise<
  { kvs: Deno.Kv[]; buses: KvEventBus[] } & AsyncDisposable
> {
  const dir = await Deno.makeTempDir({ prefix: "cms-kvbus-" });
  const kvs = [
    await Deno.openKv(`${dir}/e.kv`),
    await Deno.openKv(`${dir}/e.kv`),
  ];
  const buses: KvEventBus[] = [];
  return {
    kvs,
    buses,
    async [Symbol.asyncDispose]() {
      for (const bus of buses) bus.close();
      for (const kv of kvs) kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Subscribes and records; `until(n)` waits (≤ 5 s) for n messages. */
async function record(bus: KvEventBus) {
  const got: Got[] = [];
  const stop = await bus.subscribe((message, at) =>
    got.push({ message, at: at! })
  );
  const until = async (count: number) => {
    const end = Date.now() + 5000;
    while (got.length < count) {
      if (Date.now() > end) {
        throw new Error(`got ${got.length} of ${count} messages`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return got;
  };
  return { got, stop, until };
}

const saved = (i: number): BusMessage => ({
  type: "saved",
  field: `pages:home:f${i}`,
  by: "Ada",
});

Deno.test("KvEventBus: every process numbers messages alike, none lost or doubled when both append at once", async () => {
  await using env = await twoHandles();
  const [a, b] = env.kvs.map((kv) => new KvEventBus(kv, { pollMs: 50 }));
  env.buses.push(a, b);
  const onA = await record(a), onB = await record(b);
  const start = a.position()!;
  assert.deepEqual(b.position(), start);
  await Promise.all([
    ...Array.from({ length: 40 }, (_, i) => a.publish(saved(i))),
    ...Array.from({ length: 40 }, (_, i) => b.publish(saved(100 + i))),
  ]);
  const gotA = await onA.until(80), gotB = await onB.until(80);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(onA.got.length, 80);
  assert.equal(onB.got.length, 80);
  // One order, contiguous numbers, one epoch, on both.
  assert.deepEqual(gotA, gotB);
  gotA.forEach((g, i) => {
    assert.equal(g.at.seq, start.seq + i + 1);
    assert.equal(g.at.epoch, start.epoch);
    assert.equal(g.at.gap, undefined);
  });
  const fields = new Set(
    gotA.map((g) => g.message.type === "saved" && g.message.field),
  );
  assert.equal(fields.size, 80);
  onA.stop(), onB.stop();
});

Deno.test("KvEventBus: the log keeps its newest messages only", async () => {
  await using env = await twoHandles();
  const bus = new KvEventBus(env.kvs[0], { keep: 10 });
  env.buses.push(bus);
  for (let i = 0; i < 300; i++) await bus.publish(saved(i));
  await new Promise((r) => setTimeout(r, 200));
  let count = 0;
  for await (const _ of env.kvs[1].list({ prefix: ["cms_events", "log"] })) {
    count++;
  }
  // Trimmed every 64 appends: at most `keep` plus one batch.
  assert.ok(count >= 10 && count <= 10 + 64, `${count} entries kept`);
});

Deno.test("KvEventBus: a reader behind the trimmed log is told (gap); malformed entries are skipped", async () => {
  await using env = await twoHandles();
  const [kv, raw] = env.kvs;
  const bus = new KvEventBus(kv, { pollMs: 60_000 });
  env.buses.push(bus);
  const inbox = await record(bus);
  const { epoch, seq } = bus.position()!;
  // Another process appended 5, and the first 3 were trimmed since.
  await raw.atomic()
    .set(["cms_events", "head"], { epoch, seq: seq + 6 })
    .set(["cms_events", "log", seq + 4], JSON.stringify(saved(4)))
    .set(["cms_events", "log", seq + 5], "not a message")
    .set(["cms_events", "log", seq + 6], JSON.stringify(saved(6)))
    .commit();
  await bus.catchUp();
  const got = await inbox.until(2);
  assert.deepEqual(got.map((g) => g.at), [
    { epoch, seq: seq + 4, gap: true },
    { epoch, seq: seq + 6 },
  ]);
  assert.deepEqual(got.map((g) => g.message), [saved(4), saved(6)]);
  // The rest trimmed before it was read: a gap at the head.
  await raw.set(["cms_events", "head"], { epoch, seq: seq + 9 });
  await bus.catchUp();
  assert.deepEqual((await inbox.until(3))[2].at, {
    epoch,
    seq: seq + 9,
    gap: true,
  });
  inbox.stop();
});

Deno.test("KvEventBus: idle, it reads the head once per poll (default 500 ms: 2 reads/s)", async () => {
  await using env = await twoHandles();
  const bus = new KvEventBus(env.kvs[0]);
  env.buses.push(bus);
  const inbox = await record(bus);
  const before = bus.reads;
  await new Promise((r) => setTimeout(r, 2100));
  const reads = bus.reads - before;
  // 4 polls in 2.1 s (fewer when timers run late on a busy machine).
  assert.ok(reads >= 2 && reads <= 5, `${reads} reads in 2.1 s`);
  inbox.stop();
  // Unsubscribed: no more reads.
  const after = bus.reads;
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(bus.reads, after);
});

Deno.test("KvEventBus: options are checked", async () => {
  await using env = await twoHandles();
  for (const bad of [0, -1, NaN, Infinity]) {
    for (const name of ["pollMs", "keep", "ttlMs"]) {
      assert.throws(
        () => new KvEventBus(env.kvs[0], { [name]: bad }),
        RangeError,
        `${name}: ${bad}`,
      );
    }
  }
});
