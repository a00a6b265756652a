/**
 * Editor events across 3 demo processes on one Deno KV file (the default
 * store, with `KvEventBus`): presence on every process, a save on one
 * reaching the streams on the others (latency printed; the goal, p95 ≤ 1 s,
 * is asserted by `bench/kv_bus.ts`), `Last-Event-ID` resumed on another
 * process, a foreign id answered with `resync`, a killed process's editor
 * gone within two heartbeats; in draft mode, `drafts` and
 * `published` from one process on the other's stream.
 */
import assert from "node:assert/strict";
import { editorHeaders, login } from "../helpers/demo.ts";
import { openEvents, presenceSeen, type SseEvent } from "../helpers/sse.ts";
import { checkEvents, percentile, spawnKvProcesses } from "./_kv_events.ts";

Deno.test("events across 3 processes on one KV file: presence, saves, Last-Event-ID resume, a killed process's editor leaves", async () => {
  await using site = await spawnKvProcesses(3, {
    CMS_EVENTS_HEARTBEAT_MS: "2000",
  });
  const { latencies } = await checkEvents(site, { streams: 3, saves: 9 });
  console.log(
    `save → event on another process: p50 ${
      Math.round(percentile(latencies, 50))
    } ms, p95 ${
      Math.round(percentile(latencies, 95))
    } ms (n=${latencies.length})`,
  );

  // The editor of a process that dies leaves the others' bars within two
  // heartbeats (plus one poll).
  const [a, , c] = site.urls;
  const cookie = await login(a);
  const onA = await openEvents(
    `${a}/api/cms/events?page=/`,
    editorHeaders(a, cookie),
  );
  const onC = await openEvents(
    `${c}/api/cms/events?page=/`,
    editorHeaders(c, cookie),
  );
  try {
    const hello = await onC.next((e) => e.event === "hello");
    const cStream = JSON.parse(hello.data).stream;
    const seesC = (e: SseEvent) =>
      e.event === "presence" &&
      presenceSeen(onA, e).some((x) => x.stream === cStream);
    await onA.next(seesC, 5000);
    const from = onA.events.length;
    const killed = performance.now();
    await site.stop(2, "SIGKILL");
    const left = await onA.next(
      (e) => e.event === "presence" && !seesC(e),
      8000,
      from,
    );
    const ms = left.at - killed;
    console.log(`presence of a killed process left after ${Math.round(ms)} ms`);
    assert.ok(ms <= 2 * 2000 + 750, `left after ${ms} ms`);
  } finally {
    onA.close();
    onC.close();
  }
});

Deno.test("draft mode across 2 processes on one KV file: drafts and published events reach the other", async () => {
  await using site = await spawnKvProcesses(2, {
    CMS_PUBLISH: "draft",
    CMS_PREVIEW_SECRET: "p".repeat(40),
  });
  const [a, b] = site.urls;
  const cookie = await login(a);
  const onB = await openEvents(
    `${b}/api/cms/events?page=/`,
    editorHeaders(b, cookie),
  );
  try {
    assert.equal(onB.res.status, 200);
    const value = `Draft ${crypto.randomUUID()}`;
    const saved = await fetch(`${a}/api/cms/save`, {
      method: "PATCH",
      headers: editorHeaders(a, cookie),
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value,
      }),
    });
    await saved.body?.cancel();
    assert.equal(saved.status, 204);
    await onB.next((e) =>
      e.event === "drafts" &&
      JSON.parse(e.data).fields.includes("pages:home:title")
    );
    const published = await fetch(`${a}/api/cms/publish`, {
      method: "POST",
      headers: editorHeaders(a, cookie),
      body: "{}",
    });
    await published.body?.cancel();
    assert.equal(published.status, 200);
    const e = await onB.next((e) => e.event === "published");
    assert.ok(JSON.parse(e.data).fields.includes("pages:home:title"));
    assert.ok(e.id);
  } finally {
    onB.close();
  }
});
