/**
 * Scheduled publishing under pressure: impossible dates are refused, the
 * caps on schedules and fields, the paged listing, and the scheduler's
 * handling of a firing that throws (a refusal fails at once, other errors
 * are retried a bounded number of times, and neither holds up another
 * schedule), a field no longer allowlisted, and a poll that reads only the
 * due schedules.
 */
import assert from "node:assert/strict";
import {
  createCancelScheduleHandler,
  createPublishHandler,
  createScheduleHandler,
  type DraftHandlerOptions,
} from "../../../server/drafts/mod.ts";
import { MAX_TRIES, Scheduler } from "../../../server/drafts/scheduler.ts";
import {
  MAX_SCHEDULE_FIELDS,
  MAX_SCHEDULES,
} from "../../../server/drafts/schedule.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import type {
  Schedule,
  ScheduleFiring,
  ScheduleQuery,
  ScheduleStore,
} from "../../../server/store/schedule.ts";
import type {
  ScheduleEntry,
  ScheduleListing,
} from "../../../core/protocol/mod.ts";
import { setLogger } from "../../../server/ops/mod.ts";

const ORIGIN = "http://localhost";
const FUTURE = "2035-01-01T00:00:00.000Z";

function options(
  store: ScheduleStore,
  extra: Partial<DraftHandlerOptions> = {},
): DraftHandlerOptions {
  return {
    authorize: (req) =>
      req.headers.get("Cookie") === "s=ok" ? { name: "Ada" } : null,
    allowlist: { pages: { title: "plain", summary: "plain" } },
    store,
    // The scheduler runs elsewhere (these tests drive it by hand).
    schedulerElsewhere: true,
    ...extra,
  };
}

function post(path: string, body: unknown) {
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: {
      Cookie: "s=ok",
      Origin: ORIGIN,
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
}

function get(path: string) {
  return new Request(`${ORIGIN}${path}`, {
    headers: { Cookie: "s=ok", "Sec-Fetch-Site": "same-origin" },
  });
}

async function draft(store: ScheduleStore, field: string, value: string) {
  await store.updateDraft("pages", "home", (r) => ({ ...r, [field]: value }), {
    field,
    editor: "Ada",
  });
}

function schedule(id: string, at: string, field = "title"): Schedule {
  return {
    id,
    at,
    fields: [{ collection: "pages", key: "home", field }],
    editor: "Bo",
    created: at,
  };
}

/** Silences the library log for `run` and hands back its lines. */
async function quietly<T>(run: () => Promise<T>): Promise<[T, string[]]> {
  const lines: string[] = [];
  const restore = setLogger((line) => lines.push(line.msg));
  try {
    return [await run(), lines];
  } finally {
    setLogger(restore);
  }
}

Deno.test("impossible dates are refused, not moved", async () => {
  const store = new MemoryContentStore();
  await draft(store, "title", "x");
  const publish = createPublishHandler(options(store));
  for (
    const at of [
      "2035-02-30T10:00:00Z",
      "2035-06-31T10:00:00Z",
      "2031-02-29T10:00:00Z",
      "2035-01-01T24:00:00Z",
      "2035-01-01T23:60:00Z",
      "2035-01-01T23:59:60Z",
      "2035-13-01T10:00:00Z",
      "2035-00-10T10:00:00Z",
      "2035-01-00T10:00:00Z",
      "2035-01-01T10:00:00+24:00",
      "2035-01-01T10:00:00+01:60",
    ]
  ) {
    const res = await publish(post("/api/cms/publish", { at }));
    assert.equal(res.status, 400, at);
    assert.match(await res.text(), /not a real date and time|ISO 8601/, at);
  }
  assert.equal(await store.scheduleCount(), 0);
  // February 29 of a leap year, and the last second of a day, are real.
  for (const at of ["2032-02-29T10:00:00Z", "2035-12-31T23:59:59.999Z"]) {
    const res = await publish(post("/api/cms/publish", { at }));
    assert.equal(res.status, 202, at);
    await res.body?.cancel();
  }
});

Deno.test("a schedule of more than the most fields is refused", async () => {
  const store = new MemoryContentStore();
  const fields: Record<string, "plain"> = {};
  for (let i = 0; i <= MAX_SCHEDULE_FIELDS; i++) {
    fields[`f${i}`] = "plain";
    await draft(store, `f${i}`, "x");
  }
  const publish = createPublishHandler(
    options(store, { allowlist: { pages: fields } }),
  );
  const res = await publish(post("/api/cms/publish", { at: FUTURE }));
  assert.equal(res.status, 413);
  assert.match(
    await res.text(),
    new RegExp(`at most ${MAX_SCHEDULE_FIELDS} fields; this one has 101`),
  );
  assert.equal(await store.scheduleCount(), 0);
  const fewer = await publish(
    post("/api/cms/publish", {
      at: FUTURE,
      fields: Object.keys(fields).slice(1).map((f) => `pages:home:${f}`),
    }),
  );
  assert.equal(fewer.status, 202);
  await fewer.body?.cancel();
});

Deno.test("a site keeps at most MAX_SCHEDULES schedules", async () => {
  const store = new MemoryContentStore();
  await draft(store, "title", "x");
  for (let i = 0; i < MAX_SCHEDULES - 1; i++) {
    await store.addSchedule(schedule(`s${i}`, FUTURE));
  }
  const publish = createPublishHandler(options(store));
  const last = await publish(post("/api/cms/publish", { at: FUTURE }));
  assert.equal(last.status, 202);
  await last.body?.cancel();
  const refused = await publish(post("/api/cms/publish", { at: FUTURE }));
  assert.equal(refused.status, 409);
  assert.match(await refused.text(), /already keeps 500 schedules/);
  assert.equal(await store.scheduleCount(), MAX_SCHEDULES);
  // Cancelling one makes room again.
  const cancel = createCancelScheduleHandler(options(store));
  const gone = await cancel(post("/api/cms/schedule/cancel", { id: "s0" }));
  assert.equal(gone.status, 204);
  const again = await publish(post("/api/cms/publish", { at: FUTURE }));
  assert.equal(again.status, 202);
  await again.body?.cancel();
});

Deno.test("the schedule listing pages with cursor and limit", async () => {
  const store = new MemoryContentStore();
  const base = Date.parse(FUTURE);
  for (let i = 0; i < 250; i++) {
    const at = new Date(base + (i % 7) * 60_000).toISOString();
    await store.addSchedule(schedule(`s${String(i).padStart(3, "0")}`, at));
  }
  const list = createScheduleHandler(options(store));
  const seen: ScheduleEntry[] = [];
  const sizes: number[] = [];
  let path = "/api/cms/schedule";
  for (;;) {
    const res = await list(get(path));
    assert.equal(res.status, 200);
    const page: ScheduleListing = await res.json();
    sizes.push(page.schedules.length);
    seen.push(...page.schedules);
    if (!page.next) break;
    path = `/api/cms/schedule?cursor=${encodeURIComponent(page.next)}`;
  }
  assert.deepEqual(sizes, [100, 100, 50]);
  const ids = seen.map((s) => s.id);
  assert.equal(new Set(ids).size, 250);
  const sorted = [...seen].sort((a, b) =>
    Date.parse(a.at) - Date.parse(b.at) || (a.id < b.id ? -1 : 1)
  );
  assert.deepEqual(ids, sorted.map((s) => s.id));

  const small = await list(get("/api/cms/schedule?limit=3"));
  const three: ScheduleListing = await small.json();
  assert.equal(three.schedules.length, 3);
  assert.ok(three.next);
  for (
    const query of [
      "limit=0",
      "limit=101",
      "limit=2.5",
      "limit=abc",
      "cursor=nope",
      "cursor=1_",
      "cursor=99999999999999999_a",
    ]
  ) {
    const res = await list(get(`/api/cms/schedule?${query}`));
    assert.equal(res.status, 400, query);
    assert.match(await res.text(), /limit must|cursor must/, query);
  }
});

/** A memory store whose firing of some schedules throws. */
class FailingStore extends MemoryContentStore {
  readonly errors = new Map<string, () => unknown>();
  readonly fired: string[] = [];
  readonly reads: Schedule[][] = [];
  override fireSchedule(id: string, now?: number) {
    this.fired.push(id);
    const error = this.errors.get(id);
    if (error) return Promise.reject(error());
    return super.fireSchedule(id, now);
  }
  override async schedules(query?: ScheduleQuery) {
    const out = await super.schedules(query);
    this.reads.push(out);
    return out;
  }
}

/** A store refusal: a 4xx that trying again cannot change. */
function tooLarge() {
  return Object.assign(new Error("record too large"), { status: 413 });
}

Deno.test("a refused firing fails at once and holds up no other", async () => {
  const store = new FailingStore();
  await draft(store, "title", "t");
  await draft(store, "summary", "s");
  const past = new Date(Date.now() - 1000).toISOString();
  await store.addSchedule(schedule("a", past, "title"));
  await store.addSchedule(
    schedule("b", new Date(Date.parse(past) + 1).toISOString(), "summary"),
  );
  store.errors.set("a", tooLarge);
  const firings: ScheduleFiring[] = [];
  const scheduler = new Scheduler({
    store,
    onFire: (f) => void firings.push(f),
  });
  const [fired, log] = await quietly(() => scheduler.runDue());
  assert.deepEqual(fired.map((f) => f.schedule.id), ["a", "b"]);
  assert.equal(
    firings[0].failed?.reason,
    "Refused by the store: record too large",
  );
  assert.deepEqual(firings[0].result, { published: [], conflicts: [] });
  assert.equal(firings[1].failed, undefined);
  assert.equal((await store.get("pages", "home"))?.summary, "s");
  // Tried once, not again: it is failed, with its reason in the listing.
  const [again] = await quietly(() => scheduler.runDue());
  assert.deepEqual(again, []);
  assert.deepEqual(store.fired, ["a", "b"]);
  const listing: ScheduleListing = await (await createScheduleHandler(
    options(store),
  )(get("/api/cms/schedule"))).json();
  assert.deepEqual(
    listing.schedules.map((s) => [s.id, s.state, s.reason]),
    [["a", "failed", "Refused by the store: record too large"]],
  );
  assert.deepEqual(log, ["schedule failed", "schedule published"]);
});

Deno.test("a failing firing is retried with backoff, at most MAX_TRIES times", async () => {
  const store = new FailingStore();
  await draft(store, "title", "t");
  await draft(store, "summary", "s");
  const t0 = Date.now();
  await store.addSchedule(
    schedule("a", new Date(t0 - 1000).toISOString(), "title"),
  );
  let n = 0;
  store.errors.set("a", () => new Error(`network down ${++n}`));
  const firings: ScheduleFiring[] = [];
  const scheduler = new Scheduler({
    store,
    onFire: (f) => void firings.push(f),
  });
  const [, log] = await quietly(async () => {
    // Every 500 ms for a minute: tries at 0, 1, 3, 7 and 15 s only.
    for (let t = t0; t < t0 + 60_000; t += 500) {
      if (t === t0 + 4000) {
        // One that comes due meanwhile fires on time.
        await store.addSchedule(
          schedule("b", new Date(t).toISOString(), "summary"),
        );
      }
      await scheduler.runDue(t);
    }
  });
  assert.equal(store.fired.filter((id) => id === "a").length, MAX_TRIES);
  assert.deepEqual(
    firings.map((f) => [f.schedule.id, f.failed?.reason]),
    [
      ["b", undefined],
      ["a", `Failed ${MAX_TRIES} times: network down 5`],
    ],
  );
  assert.equal(
    firings[1].failed?.at,
    new Date(t0 + 15_000).toISOString(),
  );
  assert.equal(log.filter((l) => l === "schedule firing failed").length, 5);
  assert.equal(
    (await store.schedule("a"))?.failed?.reason,
    firings[1].failed?.reason,
  );
});

Deno.test("a firing that fails once then works publishes once", async () => {
  const store = new FailingStore();
  await draft(store, "title", "t");
  const t0 = Date.now();
  await store.addSchedule(
    schedule("a", new Date(t0 - 1000).toISOString(), "title"),
  );
  store.errors.set("a", () => new Error("lost a race"));
  const scheduler = new Scheduler({ store });
  const [first] = await quietly(() => scheduler.runDue(t0));
  assert.deepEqual(first, []);
  store.errors.delete("a");
  assert.deepEqual(await scheduler.runDue(t0 + 500), []);
  const [fired] = await scheduler.runDue(t0 + 1000);
  assert.equal(fired.failed, undefined);
  assert.equal((await store.get("pages", "home"))?.title, "t");
  assert.equal(await store.scheduleCount(), 0);
});

Deno.test("a field no longer allowlisted fails the schedule at once", async () => {
  const store = new FailingStore();
  await draft(store, "title", "t");
  await draft(store, "gone", "g");
  const past = new Date(Date.now() - 1000).toISOString();
  await store.addSchedule({
    ...schedule("a", past, "title"),
    fields: [
      { collection: "pages", key: "home", field: "title" },
      { collection: "pages", key: "home", field: "gone" },
    ],
  });
  const scheduler = new Scheduler({
    store,
    allowlist: { pages: { title: "plain" } },
  });
  const [[firing]] = await quietly(() => scheduler.runDue());
  assert.match(
    firing.failed?.reason ?? "",
    /No longer editable: pages:home:gone/,
  );
  assert.deepEqual(store.fired, []);
  assert.equal(await store.get("pages", "home"), null);
});

Deno.test("a poll reads only the due schedules", async () => {
  const store = new FailingStore();
  await draft(store, "title", "t");
  for (let i = 0; i < 300; i++) {
    await store.addSchedule(schedule(`later${i}`, FUTURE));
  }
  await store.addSchedule(
    schedule("now", new Date(Date.now() - 1000).toISOString()),
  );
  const scheduler = new Scheduler({ store });
  await quietly(() => scheduler.start());
  await scheduler.stop();
  // The due one, then the soonest pending one (for the timer).
  assert.deepEqual(store.reads.map((r) => r.length), [1, 1]);
  assert.equal((await store.get("pages", "home"))?.title, "t");
});
