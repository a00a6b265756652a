/**
 * Presence reports posted to another instance than the one holding their
 * stream (two hubs on one bus, as the workers of `deno serve --parallel`
 * are): sent on over the bus and shown on every stream (202); a report by
 * another editor, or by the same editor from another session, changes
 * nothing; a stream known to be nobody's is a 404.
 */
import assert from "node:assert/strict";
import { EditorEvents } from "../../../server/events/streams.ts";
import { KvEventBus } from "../../../server/events/kv_bus.ts";
import {
  type BusMessage,
  type EventBus,
  MemoryEventBus,
} from "../../../server/events/bus.ts";
import { MemoryContentStore } from "../../../server/store/mod.ts";
import { defineContent } from "../../../core/content.ts";
import type { Editor } from "../../../server/http/auth.ts";
import {
  openEvents,
  presenceSeen,
  type SseEvent,
  type SseStream,
} from "../../helpers/sse.ts";

const allowlist = defineContent({ pages: { title: "plain", secret: "plain" } });
const EDITORS: Record<string, Editor> = {
  ada: { id: "ada", name: "Ada" },
  bob: { id: "bob", name: "Bob" },
};
/** `who=NAME; sid=SESSION` cookies: the editor and their session. */
const authorize = (req: Request) => {
  const who = /who=(\w+)/.exec(req.headers.get("Cookie") ?? "")?.[1];
  return who ? EDITORS[who] ?? null : null;
};
const headers = (who: string, sid = "1"): HeadersInit => ({
  "Sec-Fetch-Site": "same-origin",
  "Content-Type": "application/json",
  Cookie: `who=${who}; sid=${who}-${sid}`,
});
const data = (e: SseEvent) => JSON.parse(e.data);

/** One instance: a hub on `bus` behind its own server. */
interface Hub {
  url: string;
  open(who: string): Promise<SseStream>;
  report(who: string, body: unknown, sid?: string): Promise<Response>;
  close(): Promise<void>;
}

function startHub(bus: EventBus, heartbeatMs = 200): Hub {
  const events = new EditorEvents({
    authorize,
    allowlist,
    store: new MemoryContentStore(),
    bus,
    heartbeatMs,
    sessionCookie: "sid",
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => events.handler(req),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const streams: SseStream[] = [];
  return {
    url,
    async open(who) {
      const s = await openEvents(
        `${url}/api/cms/events?page=/`,
        headers(who),
      );
      assert.equal(s.res.status, 200);
      streams.push(s);
      return s;
    },
    async report(who, body, sid) {
      const res = await fetch(`${url}/api/cms/events`, {
        method: "POST",
        headers: headers(who, sid),
        body: JSON.stringify(body),
      });
      await res.text();
      return res;
    },
    async close() {
      for (const s of streams) s.close();
      await events.close();
      await server.shutdown();
    },
  };
}

const streamOf = (s: SseStream) =>
  data(s.events.find((e) => e.event === "hello")!).stream as string;

/** Waits until `s` shows stream `id` with focus `focus`. */
const focusShown = (s: SseStream, id: string, focus: string | null) =>
  s.next((e) =>
    e.event === "presence" &&
    presenceSeen(s, e).some((x) => x.stream === id && x.focus === focus)
  );

/** Waits until both streams see both editors. */
async function meet(ada: SseStream, bob: SseStream): Promise<void> {
  for (const s of [ada, bob]) {
    await s.next((e) =>
      e.event === "presence" && presenceSeen(s, e).length === 2
    );
  }
}

/** Two hubs on one bus, Ada's stream on `a`, Bob's on `b`. */
async function pairTest(
  makeBuses: () => Promise<[EventBus, EventBus, () => void]>,
  check: (a: Hub, b: Hub, ada: SseStream, bob: SseStream) => Promise<void>,
): Promise<void> {
  const [busA, busB, done] = await makeBuses();
  const a = startHub(busA), b = startHub(busB);
  try {
    const ada = await a.open("ada");
    const bob = await b.open("bob");
    await meet(ada, bob);
    await check(a, b, ada, bob);
  } finally {
    await a.close();
    await b.close();
    done();
  }
}

const memoryBuses = () => {
  const bus = new MemoryEventBus();
  return Promise.resolve<[EventBus, EventBus, () => void]>([
    bus,
    bus,
    () => {},
  ]);
};

async function kvBuses(): Promise<[EventBus, EventBus, () => void]> {
  const dir = await Deno.makeTempDir({ prefix: "cms-reports-" });
  const kvA = await Deno.openKv(`${dir}/events.kv`);
  const kvB = await Deno.openKv(`${dir}/events.kv`);
  const busA = new KvEventBus(kvA, { pollMs: 50 });
  const busB = new KvEventBus(kvB, { pollMs: 50 });
  return [busA, busB, () => {
    busA.close(), busB.close(), kvA.close(), kvB.close();
    Deno.removeSync(dir, { recursive: true });
  }];
}

/** A report posted to the other hub shows on every stream. */
async function forwarded(a: Hub, b: Hub, ada: SseStream, bob: SseStream) {
  const id = streamOf(ada);
  const body = { stream: id, focus: "pages:home:title", dirty: [] };
  const res = await b.report("ada", body);
  assert.equal(res.status, 202, "sent on: the stream is on the other hub");
  await focusShown(ada, id, "pages:home:title");
  await focusShown(bob, id, "pages:home:title");
  // Posted where the stream is: 204, as before.
  const here = await a.report("ada", { ...body, focus: "pages:home:secret" });
  assert.equal(here.status, 204);
  await focusShown(bob, id, "pages:home:secret");
  // Its fields are checked on the hub that took it.
  const bad = await b.report("ada", { ...body, focus: "pages:home:nope" });
  assert.equal(bad.status, 400);
}

/** Reports for someone else's stream change nothing. */
async function forged(a: Hub, b: Hub, ada: SseStream, bob: SseStream) {
  const id = streamOf(ada);
  const body = { stream: id, focus: "pages:home:secret", dirty: [] };
  // Bob, on either hub: the stream is not his.
  assert.equal((await b.report("bob", body)).status, 404);
  assert.equal((await a.report("bob", body)).status, 404);
  // Ada from another session: sent on, and ignored by Ada's hub.
  assert.equal((await b.report("ada", body, "2")).status, 202);
  assert.equal((await a.report("ada", body, "2")).status, 404);
  // Time for a change to show (bus, then presence gathered for 30 ms);
  // then Ada's own report is the first change anyone sees.
  await new Promise((r) => setTimeout(r, 300));
  const own = { stream: id, focus: "pages:home:title", dirty: [] };
  assert.equal((await b.report("ada", own)).status, 202);
  await focusShown(bob, id, "pages:home:title");
  for (const s of [ada, bob]) {
    for (const e of s.events) {
      if (e.event !== "presence") continue;
      assert.ok(
        !presenceSeen(s, e).some((x) => x.focus === "pages:home:secret"),
        "a forged report showed",
      );
    }
  }
}

/** A stream that ended, or that no hub ever had, is a 404. */
async function unknown(_a: Hub, b: Hub, ada: SseStream, bob: SseStream) {
  const id = streamOf(ada);
  // The hubs have listened for more than a heartbeat and a half (300 ms).
  await new Promise((r) => setTimeout(r, 350));
  const none = { stream: "0123456789abcdef", focus: null, dirty: [] };
  assert.equal((await b.report("ada", none)).status, 404);
  const from = bob.events.length;
  ada.close();
  await bob.next(
    (e) =>
      e.event === "presence" &&
      !presenceSeen(bob, e).some((x) => x.stream === id),
    5000,
    from,
  );
  const gone = { stream: id, focus: null, dirty: [] };
  assert.equal((await b.report("ada", gone)).status, 404);
}

for (
  const [name, buses] of [["memory", memoryBuses], ["KV", kvBuses]] as const
) {
  Deno.test(`reports (${name} bus): a report posted to another instance shows on every stream`, () =>
    pairTest(buses, forwarded));
  Deno.test(`reports (${name} bus): another editor's or session's report for a stream changes nothing`, () =>
    pairTest(buses, forged));
  Deno.test(`reports (${name} bus): a stream that ended or never was is a 404`, () =>
    pairTest(buses, unknown));
}

Deno.test("reports: on a bus that cannot say what is in flight, an unknown stream's report is sent on (202) and changes nothing", async () => {
  const inner = new MemoryEventBus();
  const seen: BusMessage[] = [];
  // Not the in-process bus and no shared log: like PostgreSQL's NOTIFY.
  const bus: EventBus = {
    publish: (m) => inner.publish(m),
    subscribe: (listener) =>
      inner.subscribe((m) => {
        seen.push(m);
        listener(m);
      }),
  };
  const a = startHub(bus);
  try {
    const ada = await a.open("ada");
    await ada.next((e) => e.event === "presence");
    await new Promise((r) => setTimeout(r, 350));
    const none = { stream: "0123456789abcdef", focus: null, dirty: [] };
    assert.equal((await a.report("ada", none)).status, 202);
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(seen.some((m) => m.type === "report"), "sent on the bus");
    assert.ok(
      !seen.some((m) => m.type === "presence" && m.stream === none.stream),
      "nobody applied it",
    );
  } finally {
    await a.close();
  }
});

Deno.test("reports: a report too large for one bus message is sent on in parts and shows whole", () =>
  pairTest(memoryBuses, async (_a, b, ada, bob) => {
    const id = streamOf(ada);
    const dirty = Array.from(
      { length: 32 },
      (_, i) => `pages:${"鍵".repeat(75)}${i}:title`,
    );
    const body = JSON.stringify({ stream: id, focus: dirty[0], dirty });
    const bytes = new TextEncoder().encode(body).length;
    assert.ok(bytes <= 8192 && bytes > 7900, `${bytes} bytes`);
    const res = await fetch(`${b.url}/api/cms/events`, {
      method: "POST",
      headers: headers("ada"),
      body,
    });
    assert.equal(res.status, 202, await res.text());
    const got = await bob.next((e) =>
      e.event === "presence" &&
      presenceSeen(bob, e).some((x) => x.stream === id && x.dirty.length)
    );
    const entry = presenceSeen(bob, got).find((x) => x.stream === id)!;
    assert.deepEqual(entry.dirty, dirty);
    assert.equal(entry.focus, dirty[0]);
  }));

Deno.test("reports: on its own in-process bus, a hub answers an unknown stream with 404 at once", async () => {
  const events = new EditorEvents({
    authorize,
    allowlist,
    store: new MemoryContentStore(),
  });
  try {
    const res = await events.handler(
      new Request("http://localhost/api/cms/events", {
        method: "POST",
        headers: { ...headers("ada"), Host: "localhost" },
        body: JSON.stringify({ stream: "0123456789abcdef", dirty: [] }),
      }),
    );
    assert.equal(res.status, 404, await res.text());
  } finally {
    await events.close();
  }
});
