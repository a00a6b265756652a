/**
 * Editor events across instances: three demo processes on one PostgreSQL
 * (`LISTEN`/`NOTIFY`). Presence appears on every instance and leaves within
 * two heartbeats when a stream ends or its instance dies; a save on one
 * instance arrives as an event with its value on the others.
 */
import assert from "node:assert/strict";
import {
  type DemoProcess,
  editorHeaders,
  login,
  stopDemo,
} from "../helpers/demo.ts";
import { spawnInstances } from "../helpers/instances.ts";
import { HAS_POSTGRES, startPostgres } from "../helpers/postgres.ts";
import {
  openEvents,
  presenceSeen,
  type SseEvent,
  type SseStream,
} from "../helpers/sse.ts";

const HEARTBEAT_MS = 1000;

const data = (e: SseEvent) => JSON.parse(e.data);
/** How many editors `s` knows of at `e` (a presence event), else -1. */
const editorsIn = (s: SseStream) => (e: SseEvent) =>
  e.event === "presence" ? presenceSeen(s, e).length : -1;

Deno.test(
  "events across 3 instances on one PostgreSQL: presence comes and goes, saves arrive everywhere",
  { ignore: !HAS_POSTGRES },
  async () => {
    await using pg = await startPostgres();
    const { sites: instances, close } = await spawnInstances(
      3,
      await pg.database(),
      { CMS_EVENTS_HEARTBEAT_MS: String(HEARTBEAT_MS) },
    );
    const streams: SseStream[] = [];
    try {
      const [a, b, c] = instances;
      // A session made on one instance is valid on all (PostgreSQL sessions).
      const cookie = await login(a.url);
      const open = async (site: DemoProcess) => {
        const s = await openEvents(
          `${site.url}/api/cms/events?page=/`,
          editorHeaders(site.url, cookie),
        );
        assert.equal(s.res.status, 200);
        streams.push(s);
        return s;
      };
      const onA = await open(a);
      const onB = await open(b);
      const onC = await open(c);
      // Everybody sees all three.
      for (const s of [onA, onB, onC]) {
        await s.next((e) => editorsIn(s)(e) === 3, 10_000);
      }
      // Visitors get nothing, on any instance.
      const visitor = await openEvents(`${b.url}/api/cms/events?page=/`, {
        "Sec-Fetch-Site": "same-origin",
      });
      assert.equal(visitor.res.status, 403);

      // B has the title changed but not saved: A and C see it.
      const bHello = data(onB.events.find((e) => e.event === "hello")!);
      const report = await fetch(`${b.url}/api/cms/events`, {
        method: "POST",
        headers: editorHeaders(b.url, cookie),
        body: JSON.stringify({
          stream: bHello.stream,
          focus: "pages:home:title",
          dirty: ["pages:home:title"],
        }),
      });
      assert.equal(report.status, 204);
      for (const s of [onA, onC]) {
        await s.next((e) =>
          e.event === "presence" &&
          presenceSeen(s, e).some((x) =>
            x.stream === bHello.stream && x.dirty[0] === "pages:home:title"
          )
        );
      }

      // B's next report lands on C (no sticky sessions): C sends it on,
      // B applies it, and A sees it.
      const sentOn = await fetch(`${c.url}/api/cms/events`, {
        method: "POST",
        headers: editorHeaders(c.url, cookie),
        body: JSON.stringify({
          stream: bHello.stream,
          focus: "pages:home:body",
          dirty: ["pages:home:title"],
        }),
      });
      await sentOn.body?.cancel();
      assert.equal(sentOn.status, 202);
      await onA.next((e) =>
        e.event === "presence" &&
        presenceSeen(onA, e).some((x) =>
          x.stream === bHello.stream && x.focus === "pages:home:body"
        )
      );

      // A save on A arrives on B and C with its value and version.
      const value = `Saved on A ${crypto.randomUUID()}`;
      const saved = await fetch(`${a.url}/api/cms/save`, {
        method: "PATCH",
        headers: editorHeaders(a.url, cookie),
        body: JSON.stringify({
          collection: "pages",
          key: "home",
          field: "title",
          value,
        }),
      });
      await saved.body?.cancel();
      assert.equal(saved.status, 204);
      const version = saved.headers.get("CMS-Version");
      for (const s of [onB, onC]) {
        const e = await s.next((e) =>
          e.event === "saved" && data(e).value === value
        );
        assert.equal(data(e).field, "pages:home:title");
        assert.equal(data(e).version, version);
        assert.ok(e.id);
      }

      // A stream that ends leaves at once; a dead instance within 2 heartbeats.
      let from = onA.events.length;
      onB.close();
      await onA.next((e) => editorsIn(onA)(e) === 2, 10_000, from);
      from = onA.events.length;
      const killed = performance.now();
      await stopDemo(c, "SIGKILL");
      const left = await onA.next(
        (e) => editorsIn(onA)(e) === 1,
        4 * HEARTBEAT_MS,
        from,
      );
      const ms = left.at - killed;
      console.log(
        `presence of a killed instance left after ${Math.round(ms)} ms`,
      );
      assert.ok(
        ms <= 2 * HEARTBEAT_MS + 250,
        `left after ${ms} ms (heartbeat ${HEARTBEAT_MS} ms)`,
      );
    } finally {
      for (const s of streams) s.close();
      await close();
    }
  },
);
