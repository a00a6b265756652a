/**
 * The event stream over the Deno KV bus, two "processes" (two KV handles on
 * one file, each with its store, bus and hub) in this test: an event has the
 * same id on both, so a reconnect to the other resumes with `Last-Event-ID`;
 * a hub started after an event answers an id from before it with `resync`;
 * a hub that fell behind the trimmed log sends `resync` to its streams;
 * closing a hub waits for its heartbeat in flight (whose presence write
 * goes to KV), so the host may close the KV right after.
 */
import assert from "node:assert/strict";
import { EditorEvents } from "../../../server/events/streams.ts";
import { KvEventBus } from "../../../server/events/kv_bus.ts";
import { createSaveHandler } from "../../../server/save/handler.ts";
import {
  KvContentStore,
  MemoryContentStore,
} from "../../../server/store/mod.ts";
import { type BusMessage, MemoryEventBus } from "../../../server/events/bus.ts";
import { defineContent } from "../../../core/content.ts";
import { openEvents, type SseStream } from "../../helpers/sse.ts";

const allowlist = defineContent({ pages: { title: "plain" } });
const authorize = () => ({ id: "ada", name: "Ada" });
const headers = (lastId?: string): HeadersInit => ({
  "Sec-Fetch-Site": "same-origin",
  "Content-Type": "application/json",
  ...(lastId ? { "Last-Event-ID": lastId } : {}),
});

interface Hub {
  url: string;
  kv: Deno.Kv;
  open(lastId?: string): Promise<SseStream>;
  save(value: string): Promise<void>;
  close(): Promise<void>;
}

/** One "process" on the KV file `path`. */
async function startHub(path: string): Promise<Hub> {
  const kv = await Deno.openKv(path);
  const store = new KvContentStore(kv);
  const bus = new KvEventBus(kv, { pollMs: 50 });
  const events = new EditorEvents({ authorize, allowlist, store, bus });
  const save = createSaveHandler({
    authorize,
    allowlist,
    store,
    onSave: events.onSave,
  });
  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      onListen() {},
    },
    (req) =>
      new URL(req.url).pathname === "/api/cms/save"
        ? save(req)
        : events.handler(req),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const streams: SseStream[] = [];
  return {
    url,
    kv,
    async open(lastId) {
      const s = await openEvents(
        `${url}/api/cms/events?page=/`,
        headers(lastId),
      );
      assert.equal(s.res.status, 200);
      streams.push(s);
      return s;
    },
    async save(value) {
      const res = await fetch(`${url}/api/cms/save`, {
        method: "PATCH",
        headers: headers(),
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field: "title",
          value,
        }),
      });
      await res.body?.cancel();
      assert.equal(res.status, 204);
    },
    async close() {
      for (const s of streams) s.close();
      await events.close();
      await server.shutdown();
      bus.close();
      kv.close();
    },
  };
}

const savedOf = (value: string) => (e: { event: string; data: string }) =>
  e.event === "saved" && JSON.parse(e.data).value === value;

Deno.test("KV bus streams: one id for an event on every process; Last-Event-ID resumes on another; resync when it cannot", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-kvstreams-" });
  const path = `${dir}/content.kv`;
  const a = await startHub(path), b = await startHub(path);
  const hubs = [a, b];
  try {
    const onA = await a.open(), onB = await b.open();
    await a.save("one");
    const oneA = await onA.next(savedOf("one"));
    const oneB = await onB.next(savedOf("one"));
    assert.ok(oneA.id);
    assert.equal(oneA.id, oneB.id, "the same id on both processes");
    // A's stream drops; "two" is saved on B; the editor reconnects to B.
    onA.close();
    await b.save("two");
    await onB.next(savedOf("two"));
    const resumed = await b.open(oneA.id);
    const got = await resumed.next((e) =>
      e.event === "saved" || e.event === "resync"
    );
    assert.equal(got.event, "saved");
    assert.equal(JSON.parse(got.data).value, "two");

    // A process started after "one" cannot replay from it: resync.
    const c = await startHub(path);
    hubs.push(c);
    const late = await c.open(oneA.id);
    await late.next((e) => e.event === "resync");
    const fresh = await c.open();
    await a.save("three");
    const threeC = await fresh.next(savedOf("three"));
    const threeB = await onB.next(savedOf("three"));
    assert.equal(threeC.id, threeB.id);
    // From "three" on, the late process resumes too.
    await b.save("four");
    await fresh.next(savedOf("four"));
    const resumedC = await c.open(threeC.id);
    const four = await resumedC.next((e) =>
      e.event === "saved" || e.event === "resync"
    );
    assert.equal(JSON.parse(four.data).value, "four");

    // Messages trimmed before B read them: B's streams get resync.
    const head = (await a.kv.get<{ epoch: string; seq: number }>([
      "cms_events",
      "head",
    ])).value!;
    const from = onB.events.length;
    await a.kv.atomic()
      .set(["cms_events", "head"], { epoch: head.epoch, seq: head.seq + 5 })
      .set(
        ["cms_events", "log", head.seq + 5],
        JSON.stringify({ type: "drafts" }),
      )
      .commit();
    await onB.next((e) => e.event === "resync", 5000, from);
  } finally {
    for (const hub of hubs) await hub.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("closing the hub waits for a heartbeat in flight (its presence write must not outlive the store)", async () => {
  let hold = false, held = 0;
  const gate = Promise.withResolvers<void>();
  class SlowBus extends MemoryEventBus {
    override async publish(message: BusMessage): Promise<void> {
      if (hold && message.type === "presence") {
        held++;
        await gate.promise;
      }
      return await super.publish(message);
    }
  }
  const store = new MemoryContentStore();
  const events = new EditorEvents({
    authorize,
    allowlist,
    store,
    bus: new SlowBus(),
    heartbeatMs: 100,
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => events.handler(req),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const s = await openEvents(`${url}/api/cms/events?page=/`, headers());
  try {
    await s.next((e) => e.event === "hello");
    hold = true;
    while (!held) await new Promise((r) => setTimeout(r, 10));
    let closed = false;
    const closing = events.close().then(() => closed = true);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(closed, false, "close() waits for the beat");
    gate.resolve();
    await closing;
  } finally {
    s.close();
    gate.resolve();
    await server.shutdown();
  }
});
