/**
 * The editor event stream in one process (memory bus): who gets values and
 * who does not, presence, reconnects with `Last-Event-ID`, limits, a slow
 * reader, and shutdown with a `retry:` hint.
 */
import assert from "node:assert/strict";
import {
  EditorEvents,
  type EditorEventsOptions,
} from "../../../server/events/streams.ts";
import { createSaveHandler } from "../../../server/save/handler.ts";
import {
  createDiscardHandler,
  createPublishHandler,
} from "../../../server/drafts/mod.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { Scheduler } from "../../../server/drafts/scheduler.ts";
import { defineContent, list } from "../../../core/content.ts";
import { contentVersion } from "../../../core/version.ts";
import { serveGracefully } from "../../../server/ops/serve.ts";
import type { CanEdit, Editor } from "../../../server/http/auth.ts";
import {
  openEvents,
  type SseEvent,
  type SseStream,
} from "../../helpers/sse.ts";

const EDITORS: Record<string, Editor> = {
  ada: { id: "ada", name: "Ada" },
  bob: { id: "bob", name: "Bob" },
};
const allowlist = defineContent({
  pages: { title: "plain", secret: "plain", features: list({ max: 4 }) },
});
/** Bob may not edit `secret`. */
const canEdit: CanEdit = (_req, field, editor) =>
  !(editor.id === "bob" && field.field === "secret");

interface Site {
  url: string;
  store: MemoryContentStore;
  events: EditorEvents;
  close(): Promise<void>;
  headers(who: string): HeadersInit;
  save(
    who: string,
    field: string,
    value: unknown,
    version?: string,
  ): Promise<number>;
}

async function startSite(
  more: Partial<EditorEventsOptions> = {},
): Promise<Site> {
  const store = new MemoryContentStore();
  await store.update("pages", "home", () => ({ title: "Hi", secret: "s0" }));
  const authorize = (req: Request) => {
    const who = /who=(\w+)/.exec(req.headers.get("Cookie") ?? "")?.[1];
    return who ? EDITORS[who] ?? null : null;
  };
  const events = new EditorEvents({
    authorize,
    allowlist,
    canEdit,
    store,
    heartbeatMs: 200,
    ...more,
  });
  const save = createSaveHandler({
    authorize,
    allowlist,
    canEdit,
    store,
    publishMode: more.publishMode,
    onSave: events.onSave,
  });
  const drafts = {
    authorize,
    allowlist,
    canEdit,
    store,
    onPublish: events.onPublish,
    onDiscard: events.onDiscard,
  };
  const publish = createPublishHandler(drafts);
  const discard = createDiscardHandler(drafts);
  const stop = new AbortController();
  const server = serveGracefully((req) => {
    const { pathname } = new URL(req.url);
    if (pathname === "/api/cms/events") return events.handler(req);
    if (pathname === "/api/cms/save") return save(req);
    if (pathname === "/api/cms/publish") return publish(req);
    if (pathname === "/api/cms/discard") return discard(req);
    return new Response("Not found", { status: 404 });
  }, {
    hostname: "127.0.0.1",
    port: 0,
    signals: false,
    signal: stop.signal,
    onListen() {},
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const headers = (who: string): HeadersInit => ({
    Cookie: `who=${who}`,
    "Sec-Fetch-Site": "same-origin",
    "Content-Type": "application/json",
  });
  return {
    url,
    store,
    events,
    headers,
    async save(who, field, value, version) {
      const res = await fetch(`${url}/api/cms/save`, {
        method: "PATCH",
        headers: headers(who),
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field,
          value,
          ...version === undefined ? {} : { version },
        }),
      });
      await res.body?.cancel();
      return res.status;
    },
    /** Drains the server (its streams end with `retry:`), then the hub. */
    async close() {
      stop.abort();
      await server.finished;
      await events.close();
    },
  };
}

const data = (e: SseEvent) => JSON.parse(e.data);

interface Entry {
  stream: string;
  name: string;
  focus: string | null;
  dirty: string[];
}
/** The entries a presence event carries (whole board or changes). */
const entriesOf = (e: SseEvent): Entry[] => {
  const d = data(e);
  return [...d.editors ?? [], ...d.set ?? []];
};
/** The editors `s` knows of once it got `upTo`: presence events folded. */
function seen(s: SseStream, upTo: SseEvent): Entry[] {
  const board = new Map<string, Entry>();
  for (const e of s.events.slice(0, s.events.indexOf(upTo) + 1)) {
    if (e.event !== "presence") continue;
    const d = data(e);
    if (d.editors) board.clear();
    for (const id of d.gone ?? []) board.delete(id);
    for (const x of entriesOf(e)) board.set(x.stream, x);
  }
  return [...board.values()];
}
const savedOf = (field: string) => (e: SseEvent) =>
  e.event === "saved" && data(e).field === `pages:home:${field}`;

Deno.test("events: visitors and cross-site requests get 403, never a stream", async () => {
  const site = await startSite();
  try {
    const visitor = await openEvents(`${site.url}/api/cms/events?page=/`, {
      "Sec-Fetch-Site": "same-origin",
    });
    assert.equal(visitor.res.status, 403);
    assert.equal(visitor.events.length, 0);
    const cross = await openEvents(`${site.url}/api/cms/events?page=/`, {
      Cookie: "who=ada",
      "Sec-Fetch-Site": "cross-site",
      Origin: "https://evil.example",
    });
    assert.equal(cross.res.status, 403);
    const bad = await openEvents(
      `${site.url}/api/cms/events?page=nope`,
      site.headers("ada"),
    );
    assert.equal(bad.res.status, 400);
    assert.equal(site.events.stats().streams, 0);
  } finally {
    await site.close();
  }
});

Deno.test("events: a field's value and focus go only to editors who may edit it", async () => {
  const site = await startSite();
  const ada = await openEvents(
    `${site.url}/api/cms/events?page=/`,
    site.headers("ada"),
  );
  const bob = await openEvents(
    `${site.url}/api/cms/events?page=/`,
    site.headers("bob"),
  );
  try {
    assert.equal(
      ada.res.headers.get("Content-Type")?.split(";")[0],
      "text/event-stream",
    );
    const hello = data(await ada.next((e) => e.event === "hello"));
    // Bob sees Ada arrive; then Ada focuses the secret field.
    await bob.next((e) =>
      e.event === "presence" &&
      seen(bob, e).some((x) => x.name === "Ada")
    );
    const report = await fetch(`${site.url}/api/cms/events`, {
      method: "POST",
      headers: site.headers("ada"),
      body: JSON.stringify({
        stream: hello.stream,
        focus: "pages:home:secret",
        dirty: ["pages:home:secret"],
      }),
    });
    assert.equal(report.status, 204);
    const seenByAda = await ada.next((e) =>
      e.event === "presence" &&
      seen(ada, e).some((x) => x.focus === "pages:home:secret")
    );
    assert.ok(seenByAda);
    // Bob's view of that change names no field.
    const n = bob.events.length;
    const bobView = await bob.next(
      (e) => e.event === "presence" && seen(bob, e).length === 2,
      5000,
      0,
    );
    for (const e of [...bob.events.slice(n), bobView]) {
      if (e.event !== "presence") continue;
      for (const x of entriesOf(e)) {
        assert.equal(x.focus, null);
        assert.deepEqual(x.dirty, []);
      }
    }
    // Bob may not report the secret field either.
    const bobHello = data(bob.events.find((e) => e.event === "hello")!);
    const refused = await fetch(`${site.url}/api/cms/events`, {
      method: "POST",
      headers: site.headers("bob"),
      body: JSON.stringify({
        stream: bobHello.stream,
        focus: "pages:home:secret",
        dirty: [],
      }),
    });
    await refused.body?.cancel();
    assert.equal(refused.status, 403);
    // Another session may not report for Ada's stream.
    const foreign = await fetch(`${site.url}/api/cms/events`, {
      method: "POST",
      headers: site.headers("bob"),
      body: JSON.stringify({ stream: hello.stream, focus: null, dirty: [] }),
    });
    await foreign.body?.cancel();
    assert.equal(foreign.status, 404);

    // Saves: the secret first, then the title.
    assert.equal(await site.save("ada", "secret", "s1"), 204);
    assert.equal(await site.save("ada", "title", "t1"), 204);
    const adaSecret = data(await ada.next(savedOf("secret")));
    assert.equal(adaSecret.value, "s1");
    assert.equal(adaSecret.by, "Ada");
    assert.ok(adaSecret.version);
    const bobTitle = await bob.next(savedOf("title"));
    assert.equal(data(bobTitle).value, "t1");
    // Events arrive in order: had Bob been sent the secret, it came first.
    assert.ok(!bob.events.some(savedOf("secret")));
    assert.ok(!bob.events.some((e) => e.data.includes("s1")));
  } finally {
    ada.close();
    bob.close();
    await site.close();
  }
});

Deno.test("events: presence appears, and leaves when a stream ends", async () => {
  const site = await startSite();
  const bob = await openEvents(
    `${site.url}/api/cms/events?page=/`,
    site.headers("bob"),
  );
  try {
    const ada = await openEvents(
      `${site.url}/api/cms/events?page=/`,
      site.headers("ada"),
    );
    await bob.next((e) => e.event === "presence" && seen(bob, e).length === 2);
    // Another page is another room.
    const other = await openEvents(
      `${site.url}/api/cms/events?page=/about`,
      site.headers("ada"),
    );
    const otherView = await other.next((e) =>
      e.event === "presence" && seen(other, e).length > 0
    );
    assert.deepEqual(seen(other, otherView).map((x) => x.name), ["Ada"]);
    const from = bob.events.length;
    ada.close();
    await ada.ended;
    const left = await bob.next(
      (e) => e.event === "presence" && seen(bob, e).length === 1,
      5000,
      from,
    );
    assert.equal(seen(bob, left)[0].name, "Bob");
    other.close();
  } finally {
    bob.close();
    await site.close();
  }
});

Deno.test("events: a reconnect with Last-Event-ID gets the saves it missed; an unknown id gets resync", async () => {
  const site = await startSite();
  try {
    const first = await openEvents(
      `${site.url}/api/cms/events?page=/`,
      site.headers("ada"),
    );
    assert.equal(await site.save("ada", "title", "one"), 204);
    const seen = await first.next(savedOf("title"));
    assert.ok(seen.id);
    first.close();
    await first.ended;
    // While away: two saves.
    assert.equal(await site.save("bob", "title", "two"), 204);
    assert.equal(await site.save("ada", "secret", "three"), 204);
    const again = await openEvents(`${site.url}/api/cms/events?page=/`, {
      ...site.headers("ada"),
      "Last-Event-ID": seen.id!,
    });
    const two = data(await again.next(savedOf("title")));
    assert.equal(two.value, "two");
    assert.equal(two.by, "Bob");
    const three = data(await again.next(savedOf("secret")));
    assert.equal(three.value, "three");
    assert.ok(!again.events.some((e) => e.data.includes('"one"')));
    again.close();
    // Bob reconnecting from the same id misses the secret: he may not see it.
    const bob = await openEvents(`${site.url}/api/cms/events?page=/`, {
      ...site.headers("bob"),
      "Last-Event-ID": seen.id!,
    });
    await bob.next(savedOf("title"));
    await bob.next((e) => e.event === "presence");
    assert.ok(!bob.events.some(savedOf("secret")));
    bob.close();
    const stale = await openEvents(`${site.url}/api/cms/events?page=/`, {
      ...site.headers("ada"),
      "Last-Event-ID": "0123abcd-1",
    });
    const resync = await stale.next((e) => e.event === "resync");
    assert.ok(resync.id);
    stale.close();
  } finally {
    await site.close();
  }
});

Deno.test("events: a reconnect older than the buffer gets resync", async () => {
  const site = await startSite({ bufferEvents: 2 });
  try {
    const s = await openEvents(
      `${site.url}/api/cms/events?page=/`,
      site.headers("ada"),
    );
    assert.equal(await site.save("ada", "title", "a"), 204);
    const seen = await s.next(savedOf("title"));
    s.close();
    for (const v of ["b", "c", "d"]) {
      assert.equal(await site.save("ada", "title", v), 204);
    }
    // The saves are announced through the bus: wait for the last one.
    const probe = await openEvents(
      `${site.url}/api/cms/events?page=/`,
      site.headers("bob"),
    );
    assert.equal(await site.save("ada", "title", "e"), 204);
    await probe.next((e) => savedOf("title")(e) && data(e).value === "e");
    probe.close();
    const again = await openEvents(`${site.url}/api/cms/events?page=/`, {
      ...site.headers("ada"),
      "Last-Event-ID": seen.id!,
    });
    await again.next((e) => e.event === "resync");
    assert.ok(!again.events.some(savedOf("title")));
    again.close();
  } finally {
    await site.close();
  }
});

Deno.test("events: streams per session and per process are limited (503 + Retry-After)", async () => {
  const site = await startSite({ maxStreamsPerSession: 2, maxStreams: 3 });
  const open: Awaited<ReturnType<typeof openEvents>>[] = [];
  try {
    const url = `${site.url}/api/cms/events?page=/`;
    for (let i = 0; i < 2; i++) {
      open.push(await openEvents(url, site.headers("ada")));
      assert.equal(open[i].res.status, 200);
    }
    const third = await openEvents(url, site.headers("ada"));
    assert.equal(third.res.status, 503);
    assert.ok(Number(third.res.headers.get("Retry-After")) > 0);
    open.push(await openEvents(url, site.headers("bob")));
    assert.equal(open[2].res.status, 200);
    const fourth = await openEvents(url, {
      ...site.headers("bob"),
      Authorization: "Bearer other-session",
    });
    assert.equal(fourth.res.status, 503);
    // A closed stream frees its place.
    open[0].close();
    await open[0].ended;
    let again;
    for (let i = 0; i < 50; i++) {
      again = await openEvents(url, site.headers("ada"));
      if (again.res.status === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(again?.res.status, 200);
    open.push(again!);
  } finally {
    for (const s of open) s.close();
    await site.close();
  }
});

Deno.test("events: a reader that stops reading is dropped, not buffered without bound", async () => {
  const site = await startSite({ maxQueuedBytes: 64 * 1024 });
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(site.url).port),
  });
  try {
    // A raw request whose answer is never read.
    await conn.write(
      new TextEncoder().encode(
        `GET /api/cms/events?page=/ HTTP/1.1\r\nHost: ${
          new URL(site.url).host
        }\r\nCookie: who=ada\r\nSec-Fetch-Site: same-origin\r\n\r\n`,
      ),
    );
    const reader = await openEvents(
      `${site.url}/api/cms/events?page=/`,
      site.headers("bob"),
    );
    // The stream is open once Bob sees two editors.
    await reader.next((e) =>
      e.event === "presence" && seen(reader, e).length === 2
    );
    const big = "x".repeat(200_000);
    let saves = 0;
    for (; saves < 300 && site.events.stats().dropped === 0; saves++) {
      assert.equal(await site.save("ada", "title", big + saves), 204);
      // Bob reads along, so only Ada's raw stream falls behind.
      await reader.next((e) =>
        savedOf("title")(e) && data(e).value === big + saves
      );
    }
    assert.equal(site.events.stats().dropped, 1);
    assert.ok(saves < 300);
    // Bob, who reads, is still there.
    assert.equal(site.events.stats().streams, 1);
    reader.close();
  } finally {
    conn.close();
    await site.close();
  }
});

Deno.test("events: shutdown ends streams with a retry: hint", async () => {
  const site = await startSite({ retryMs: 750 });
  const s = await openEvents(
    `${site.url}/api/cms/events?page=/`,
    site.headers("ada"),
  );
  await s.next((e) => e.event === "presence");
  const closing = site.close();
  const bye = await s.next((e) => e.event === "retry");
  assert.equal(bye.retry, 750);
  await s.ended;
  await closing;
  const after = await openEvents(
    `${site.url}/api/cms/events?page=/`,
    site.headers("ada"),
  ).catch(() => null);
  assert.ok(after === null || after.res.status !== 200);
});

Deno.test("events (draft mode): saved drafts, what is drafted, and what went live, per editor's fields", async () => {
  const site = await startSite({ publishMode: "draft" });
  const open = (who: string) =>
    openEvents(`${site.url}/api/cms/events?page=/`, site.headers(who));
  const ada = await open("ada");
  const bob = await open("bob");
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${site.url}/api/cms/${path}`, {
      method: "POST",
      headers: site.headers("ada"),
      body: JSON.stringify(body),
    });
    await res.body?.cancel();
    return res.status;
  };
  // As a set: drafts saved in one millisecond are listed by address.
  const draftsAre = (fields: string[]) => (e: SseEvent) =>
    e.event === "drafts" &&
    JSON.stringify(data(e).fields.toSorted()) ===
      JSON.stringify(fields.toSorted());
  try {
    assert.equal(await site.save("ada", "title", "Draft title"), 204);
    for (const s of [ada, bob]) {
      const e = data(await s.next(savedOf("title")));
      assert.equal(e.value, "Draft title");
      await s.next(draftsAre(["pages:home:title"]));
    }
    assert.equal(await site.save("ada", "secret", "Draft secret"), 204);
    await ada.next(draftsAre(["pages:home:title", "pages:home:secret"]));
    // Publish all: Ada sees both go live, Bob only the title.
    const from = ada.events.length;
    assert.equal(await post("publish", {}), 200);
    const live = data(
      await ada.next((e) => e.event === "published"),
    );
    assert.deepEqual(live.fields.toSorted(), [
      "pages:home:secret",
      "pages:home:title",
    ]);
    assert.equal(live.by, "Ada");
    const bobLive = data(await bob.next((e) => e.event === "published"));
    assert.deepEqual(bobLive.fields, ["pages:home:title"]);
    await ada.next(draftsAre([]), 5000, from);
    // A discarded draft: the drafts go empty again.
    const again = ada.events.length;
    assert.equal(await site.save("ada", "title", "Another"), 204);
    await ada.next(draftsAre(["pages:home:title"]), 5000, again);
    const mark = ada.events.length;
    assert.equal(await post("discard", { field: "pages:home:title" }), 204);
    await ada.next(draftsAre([]), 5000, mark);
    // Bob never got anything of the secret field.
    assert.ok(!bob.events.some((e) => e.data.includes("secret")));
  } finally {
    ada.close();
    bob.close();
    await site.close();
  }
});

Deno.test("events (draft mode): a fired schedule is announced as a publish; a failed one as a schedule event", async () => {
  const site = await startSite({ publishMode: "draft" });
  const open = (who: string) =>
    openEvents(`${site.url}/api/cms/events?page=/`, site.headers(who));
  const scheduler = new Scheduler({
    store: site.store,
    onFire: site.events.onFire,
  });
  const ada = await open("ada");
  const bob = await open("bob");
  const ref = (field: string, version?: string) => ({
    collection: "pages",
    key: "home",
    field,
    ...(version ? { version } : {}),
  });
  const schedule = (id: string, fields: ReturnType<typeof ref>[]) =>
    site.store.addSchedule({
      id,
      at: new Date(Date.now() - 1000).toISOString(),
      fields,
      editor: "Cleo",
      created: new Date().toISOString(),
    });
  try {
    assert.equal(await site.save("ada", "title", "Launch title"), 204);
    assert.equal(await site.save("ada", "secret", "Launch secret"), 204);
    await ada.next((e) => e.event === "drafts" && data(e).fields.length === 2);
    const from = { ada: ada.events.length, bob: bob.events.length };
    await schedule("s-ok", [ref("title"), ref("secret")]);
    const fired = await scheduler.runDue();
    assert.equal(fired.length, 1);
    assert.equal(fired[0].failed, undefined);
    // Ada: what went live, by who scheduled it; then no drafts; then the
    // schedule event, in that order.
    const live = await ada.next((e) => e.event === "published", 5000, from.ada);
    assert.deepEqual(data(live).fields.toSorted(), [
      "pages:home:secret",
      "pages:home:title",
    ]);
    assert.equal(data(live).by, "Cleo");
    const none = await ada.next(
      (e) => e.event === "drafts" && data(e).fields.length === 0,
      5000,
      from.ada,
    );
    const done = await ada.next((e) => e.event === "schedule", 5000, from.ada);
    assert.deepEqual(data(done), {
      id: "s-ok",
      fields: ["pages:home:title", "pages:home:secret"],
      failed: false,
    });
    assert.ok(live.at <= none.at && none.at <= done.at);
    // Bob: only the field he may edit.
    const bobLive = await bob.next(
      (e) => e.event === "published",
      5000,
      from.bob,
    );
    assert.deepEqual(data(bobLive).fields, ["pages:home:title"]);
    const bobDone = await bob.next(
      (e) => e.event === "schedule",
      5000,
      from.bob,
    );
    assert.deepEqual(data(bobDone).fields, ["pages:home:title"]);

    // A conflict: the draft changed after scheduling. Nothing goes live;
    // editors get a failed schedule event (the reason is in the listing).
    assert.equal(await site.save("ada", "title", "Draft v1"), 204);
    const mark = ada.events.length;
    await schedule("s-bad", [ref("title", "not-the-version")]);
    const [failed] = await scheduler.runDue();
    assert.match(failed.failed?.reason ?? "", /Conflict/);
    const bad = await ada.next(
      (e) => e.event === "schedule" && data(e).id === "s-bad",
      5000,
      mark,
    );
    assert.equal(data(bad).failed, true);
    assert.ok(
      !ada.events.slice(mark).some((e) => e.event === "published"),
    );
    assert.ok(!bob.events.some((e) => e.data.includes("secret")));
  } finally {
    await scheduler.stop();
    ada.close();
    bob.close();
    await site.close();
  }
});

Deno.test("events: a whole-list write is one saved event with the items and the list's version", async () => {
  const site = await startSite();
  const open = (who: string) =>
    openEvents(`${site.url}/api/cms/events?page=/`, site.headers(who));
  const ada = await open("ada");
  const bob = await open("bob");
  try {
    const items = ["Fast", "Small"];
    assert.equal(await site.save("ada", "features", items), 204);
    for (const s of [ada, bob]) {
      const e = data(await s.next(savedOf("features")));
      assert.deepEqual(e, {
        field: "pages:home:features",
        value: items,
        version: contentVersion(items),
        by: "Ada",
      });
    }
    // A per-item save names the item, with its text.
    assert.equal(await site.save("bob", "features.1", "Tiny"), 204);
    const item = data(await ada.next(savedOf("features.1")));
    assert.deepEqual([item.value, item.version], [
      "Tiny",
      contentVersion("Tiny"),
    ]);
    // A whole-list write over a stale version is a 409: no event. The next
    // one (at the list's version now) is announced with what is stored.
    const mark = ada.events.length;
    assert.equal(
      await site.save("ada", "features", ["X"], contentVersion(items)),
      409,
    );
    const now = ["Fast", "Tiny"];
    const next = ["Tiny", "Fast", "New"];
    assert.equal(
      await site.save("ada", "features", next, contentVersion(now)),
      204,
    );
    const e = data(await ada.next(savedOf("features"), 5000, mark));
    assert.deepEqual(e.value, next);
    assert.equal(e.version, contentVersion(next));
    assert.ok(
      !ada.events.slice(mark).some((e) => e.data.includes('["X"]')),
      "the refused write was never announced",
    );
  } finally {
    ada.close();
    bob.close();
    await site.close();
  }
});

Deno.test("events: heartbeats are comment lines, and presence stays while they go", async () => {
  const site = await startSite({ heartbeatMs: 100 });
  const ada = await openEvents(
    `${site.url}/api/cms/events?page=/`,
    site.headers("ada"),
  );
  try {
    const first = await ada.next((e) => e.event === ":");
    const index = ada.events.indexOf(first);
    await ada.next((e) => e.event === ":", 5000, index + 1);
    // Several heartbeats (each re-announcing the stream) changed nothing:
    // no presence event says Ada left.
    const presence = ada.events.filter((e) => e.event === "presence");
    assert.ok(presence.length >= 1);
    for (const e of presence) {
      assert.equal(data(e).gone?.length ?? 0, 0);
      assert.ok(seen(ada, e).length <= 1);
    }
    assert.equal(seen(ada, presence.at(-1)!).length, 1);
  } finally {
    ada.close();
    await site.close();
  }
});

Deno.test("events: presence changes go out as what changed, not the whole page", async () => {
  const site = await startSite();
  const url = `${site.url}/api/cms/events?page=/`;
  const bob = await openEvents(url, site.headers("bob"));
  const ada = await openEvents(url, site.headers("ada"));
  try {
    const first = await bob.next((e) => e.event === "presence");
    assert.ok(Array.isArray(data(first).editors), "a whole board first");
    await bob.next((e) => e.event === "presence" && seen(bob, e).length === 2);
    const id = data(await ada.next((e) => e.event === "hello")).stream;
    const from = bob.events.length;
    const report = await fetch(`${site.url}/api/cms/events`, {
      method: "POST",
      headers: site.headers("ada"),
      body: JSON.stringify({
        stream: id,
        focus: "pages:home:title",
        dirty: [],
      }),
    });
    assert.equal(report.status, 204);
    const change = await bob.next(
      (e) => e.event === "presence" && data(e).set?.length > 0,
      5000,
      from,
    );
    assert.deepEqual(data(change), {
      set: [{
        stream: id,
        editor: "ada",
        name: "Ada",
        focus: "pages:home:title",
        dirty: [],
      }],
      gone: [],
    });
    const before = bob.events.length;
    ada.close();
    await ada.ended;
    const left = await bob.next(
      (e) => e.event === "presence" && data(e).gone?.length > 0,
      5000,
      before,
    );
    assert.deepEqual(data(left), { set: [], gone: [id] });
  } finally {
    bob.close();
    await site.close();
  }
});

Deno.test("events: the per-session cap holds whatever else the request carries", async () => {
  const site = await startSite({ maxStreamsPerSession: 2 });
  const open: SseStream[] = [];
  try {
    const url = `${site.url}/api/cms/events?page=/`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = await openEvents(url, {
        ...site.headers("ada"),
        Cookie: `who=ada; extra${i}=${i}`,
        Authorization: `Bearer ${i}`,
      });
      open.push(s);
      statuses.push(s.res.status);
    }
    assert.deepEqual(statuses, [200, 200, 503, 503]);
  } finally {
    for (const s of open) s.close();
    await site.close();
  }
});

Deno.test("events: with a named session cookie, each session has its cap, and an editor's sessions together theirs", async () => {
  const site = await startSite({
    maxStreamsPerSession: 2,
    maxStreamsPerEditor: 3,
    sessionCookie: "sid",
  });
  const open: SseStream[] = [];
  try {
    const url = `${site.url}/api/cms/events?page=/`;
    const as = async (sid: string) => {
      const s = await openEvents(url, {
        ...site.headers("ada"),
        Cookie: `who=ada; sid=${sid}; junk=${open.length}`,
      });
      open.push(s);
      return s.res.status;
    };
    assert.deepEqual([await as("1"), await as("1"), await as("1")], [
      200,
      200,
      503,
    ]);
    // Another session of Ada's has its own two, but Ada has three in all.
    assert.deepEqual([await as("2"), await as("2")], [200, 503]);
  } finally {
    for (const s of open) s.close();
    await site.close();
  }
});

Deno.test("events: a valid report too large for one bus message is accepted and reaches the other editors whole", async () => {
  const site = await startSite();
  // A long page path of 2-byte characters, and 32 long addresses: the
  // report fits its 8 KiB body, the bus message would not (7,900 bytes).
  const page = `/${"ä".repeat(500)}`;
  const url = `${site.url}/api/cms/events?page=${encodeURIComponent(page)}`;
  const bob = await openEvents(url, site.headers("bob"));
  const ada = await openEvents(url, site.headers("ada"));
  try {
    const id = data(await ada.next((e) => e.event === "hello")).stream;
    const dirty = Array.from(
      { length: 32 },
      (_, i) => `pages:${"鍵".repeat(70)}${i}:title`,
    );
    const body = JSON.stringify({ stream: id, focus: dirty[0], dirty });
    assert.ok(new TextEncoder().encode(body).length <= 8192);
    const report = await fetch(`${site.url}/api/cms/events`, {
      method: "POST",
      headers: site.headers("ada"),
      body,
    });
    assert.equal(report.status, 204, await report.text());
    const got = await bob.next((e) =>
      e.event === "presence" &&
      seen(bob, e).some((x) => x.name === "Ada" && x.dirty.length === 32)
    );
    const entry = seen(bob, got).find((x) => x.name === "Ada")!;
    assert.deepEqual(entry.dirty, dirty);
    assert.equal(entry.focus, dirty[0]);
  } finally {
    ada.close();
    bob.close();
    await site.close();
  }
});

Deno.test("events: a reader that fell behind misses presence changes, then gets the whole board again", async () => {
  // Room to queue the filler below without dropping the stream.
  const site = await startSite({ maxQueuedBytes: 16 * 1024 * 1024 });
  const { hostname, port } = new URL(site.url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const decoder = new TextDecoder();
  let text = "";
  // Reads until `done`, for at most 10 s (one read in flight at a time).
  const buf = new Uint8Array(64 * 1024);
  let pending: Promise<number | null> | undefined;
  const readUntil = async (done: () => boolean) => {
    const end = Date.now() + 10_000;
    while (!done() && Date.now() < end) {
      pending ??= conn.read(buf);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((r) =>
        timer = setTimeout(r, 500, "late")
      );
      const n = await Promise.race([pending, late]);
      clearTimeout(timer);
      if (n === "late") continue;
      pending = undefined;
      if (n === null) break;
      text += decoder.decode(buf.subarray(0, n), { stream: true });
    }
    assert.ok(done(), text.slice(-400));
  };
  try {
    // Ada's raw stream; read until her stream is open (her `hello`).
    await conn.write(
      new TextEncoder().encode(
        `GET /api/cms/events?page=/ HTTP/1.1\r\nHost: ${
          new URL(site.url).host
        }\r\nCookie: who=ada\r\nSec-Fetch-Site: same-origin\r\n\r\n`,
      ),
    );
    await readUntil(() => text.includes("event: hello"));
    const bob = await openEvents(
      `${site.url}/api/cms/events?page=/`,
      site.headers("bob"),
    );
    const id = data(await bob.next((e) => e.event === "hello")).stream;
    // Ada stops reading while saves fill the socket and then her queue.
    const big = "y".repeat(30_000);
    for (let i = 0; i < 150; i++) {
      assert.equal(await site.save("bob", "title", big + i), 204);
    }
    const report = await fetch(`${site.url}/api/cms/events`, {
      method: "POST",
      headers: site.headers("bob"),
      body: JSON.stringify({
        stream: id,
        focus: "pages:home:title",
        dirty: [],
      }),
    });
    assert.equal(report.status, 204);
    // Ada reads again: she catches up, and a heartbeat later gets the board
    // with Bob's focus; the change itself was held back, not queued.
    const board = () =>
      /event: presence\ndata: \{"editors":\[[^\n]*"focus":"pages:home:title"/
        .test(text);
    await readUntil(board);
    assert.doesNotMatch(text, /"set":\[[^\n]*"focus":"pages:home:title"/);
    assert.equal(site.events.stats().dropped, 0);
    bob.close();
  } finally {
    conn.close();
    await site.close();
  }
});
