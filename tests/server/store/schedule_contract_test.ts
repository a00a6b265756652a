/**
 * The schedule contract of the stores, run unchanged against the memory,
 * Deno KV and PostgreSQL stores: keep, list, cancel, fire once (also when
 * fired concurrently), publish the drafts as they are when it fires, and
 * record a conflict without publishing any part of it.
 */
import assert from "node:assert/strict";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { KvContentStore } from "../../../server/store/kv/mod.ts";
import { PostgresContentStore } from "../../../postgres/store/mod.ts";
import type {
  Schedule,
  ScheduleStore,
} from "../../../server/store/schedule.ts";
import { contentVersion } from "../../../core/version.ts";
import {
  connectFresh,
  HAS_POSTGRES,
  startPostgres,
} from "../../helpers/postgres.ts";

type Open = () => Promise<ScheduleStore>;
type Case = (open: Open) => Promise<void>;

const PAST = "2020-01-01T00:00:00.000Z";
const FUTURE = "2999-01-01T00:00:00.000Z";

function schedule(fields: string[], extra: Partial<Schedule> = {}): Schedule {
  return {
    id: crypto.randomUUID(),
    at: PAST,
    fields: fields.map((field) => ({
      collection: "pages",
      key: "home",
      field,
    })),
    editor: "Bo",
    created: PAST,
    ...extra,
  };
}

async function draft(store: ScheduleStore, field: string, value: string) {
  await store.updateDraft(
    "pages",
    "home",
    (r) => ({ ...r, [field]: value }),
    { field, editor: "Ada" },
  );
}

async function publishedRevisions(store: ScheduleStore, field: string) {
  return (await store.revisions("pages", "home", field))
    .filter((r) => r.published !== undefined && r.editor !== null);
}

const cases: Record<string, Case> = {
  "keeps, lists soonest first and cancels": async (open) => {
    const store = await open();
    const late = schedule(["title"], { at: FUTURE });
    const soon = schedule(["title"], { at: "2998-01-01T00:00:00.000Z" });
    await store.addSchedule(late);
    await store.addSchedule(soon);
    assert.deepEqual((await store.schedules()).map((s) => s.id), [
      soon.id,
      late.id,
    ]);
    assert.deepEqual((await store.schedules())[0], soon);
    assert.equal(await store.cancelSchedule(soon.id), true);
    assert.equal(await store.cancelSchedule(soon.id), false);
    assert.deepEqual((await store.schedules()).map((s) => s.id), [late.id]);
  },

  "fires once, with the drafts as they are then": async (open) => {
    const store = await open();
    await draft(store, "title", "first");
    const s = schedule(["title", "summary"]);
    await store.addSchedule(s);
    await draft(store, "title", "second");
    // Not due yet at a time before `at`.
    assert.equal(await store.fireSchedule(s.id, Date.parse(PAST) - 1), null);
    const fired = await store.fireSchedule(s.id);
    assert.ok(fired);
    assert.equal(fired.failed, undefined);
    assert.deepEqual(fired.result.published.map((p) => p.value), ["second"]);
    assert.equal((await store.get("pages", "home"))?.title, "second");
    const revs = await publishedRevisions(store, "title");
    assert.equal(revs.filter((r) => r.editor === "Bo").length, 1);
    assert.equal(revs[0].value, "second");
    assert.deepEqual(await store.drafts(), []);
    assert.deepEqual(await store.schedules(), []);
    assert.equal(await store.fireSchedule(s.id), null);
  },

  "concurrent firings publish once": async (open) => {
    const store = await open();
    await draft(store, "title", "x");
    const s = schedule(["title"]);
    await store.addSchedule(s);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => store.fireSchedule(s.id)),
    );
    assert.equal(results.filter((r) => r !== null).length, 1);
    const revs = await publishedRevisions(store, "title");
    assert.equal(revs.filter((r) => r.editor === "Bo").length, 1);
    assert.deepEqual(await store.schedules(), []);
  },

  "a conflict is recorded and nothing of it is published": async (open) => {
    const store = await open();
    await draft(store, "title", "seen");
    await draft(store, "summary", "fine");
    const s = schedule([], {
      fields: [
        {
          collection: "pages",
          key: "home",
          field: "title",
          version: contentVersion("seen"),
        },
        { collection: "pages", key: "home", field: "summary" },
      ],
    });
    await store.addSchedule(s);
    await draft(store, "title", "changed");
    const fired = await store.fireSchedule(s.id);
    assert.ok(fired?.failed);
    assert.match(fired.failed.reason, /Conflict: pages:home:title/);
    assert.deepEqual(fired.failed.conflicts, ["pages:home:title"]);
    assert.equal(await store.get("pages", "home"), null);
    assert.equal((await store.drafts()).length, 2);
    const [kept] = await store.schedules();
    assert.equal(kept.id, s.id);
    assert.equal(kept.failed?.reason, fired.failed.reason);
    // A failed schedule does not fire again; cancelling dismisses it.
    assert.equal(await store.fireSchedule(s.id), null);
    assert.equal(await store.cancelSchedule(s.id), true);
    assert.deepEqual(await store.schedules(), []);
  },

  "no draft left is recorded as a failure": async (open) => {
    const store = await open();
    const s = schedule(["title"]);
    await store.addSchedule(s);
    const fired = await store.fireSchedule(s.id);
    assert.match(fired?.failed?.reason ?? "", /Nothing to publish/);
    assert.equal(
      (await store.schedules())[0].failed?.reason,
      fired?.failed?.reason,
    );
  },

  "pages, the due ones and the count read by time": async (open) => {
    const store = await open();
    const at = (n: number) => new Date(Date.parse(PAST) + n * 1000);
    // Two at the same time: ordered by id.
    const made = [3, 1, 2, 2, 5].map((n, i) =>
      schedule(["title"], { at: at(n).toISOString(), id: `s${i}` })
    );
    for (const s of made) await store.addSchedule(s);
    const order = ["s1", "s2", "s3", "s0", "s4"];
    assert.equal(await store.scheduleCount(), 5);
    const ids = (list: Schedule[]) => list.map((s) => s.id);
    assert.deepEqual(ids(await store.schedules()), order);
    const first = await store.schedules({ limit: 2 });
    assert.deepEqual(ids(first), ["s1", "s2"]);
    const second = await store.schedules({ after: first[1], limit: 2 });
    assert.deepEqual(ids(second), ["s3", "s0"]);
    assert.deepEqual(
      ids(await store.schedules({ after: second[1], limit: 2 })),
      ["s4"],
    );
    // Due at 2 s: the ones at 1 s and 2 s (the bound is inclusive).
    assert.deepEqual(
      ids(await store.schedules({ dueBy: at(2).getTime() })),
      ["s1", "s2", "s3"],
    );
    assert.deepEqual((await store.schedule("s4"))?.at, at(5).toISOString());
    assert.equal(await store.schedule("nope"), null);
    // A failed one is listed, but is neither pending nor due.
    const failure = { at: PAST, reason: "Not published: too large" };
    const failed = await store.failSchedule("s2", failure);
    assert.deepEqual(failed?.failed, failure);
    assert.equal(await store.failSchedule("s2", failure), null);
    assert.equal(await store.failSchedule("nope", failure), null);
    assert.deepEqual(
      ids(await store.schedules({ dueBy: at(2).getTime() })),
      ["s1", "s3"],
    );
    assert.deepEqual(
      ids(await store.schedules({ pending: true, limit: 1 })),
      ["s1"],
    );
    assert.deepEqual((await store.schedule("s2"))?.failed, failure);
    assert.equal(await store.fireSchedule("s2"), null);
    assert.equal(await store.cancelSchedule("s2"), true);
    assert.equal(await store.scheduleCount(), 4);
    assert.deepEqual(ids(await store.schedules()), ["s1", "s3", "s0", "s4"]);
    // Firing removes it from the index too.
    await draft(store, "title", "x");
    assert.equal((await store.fireSchedule("s1"))?.failed, undefined);
    assert.equal(await store.scheduleCount(), 3);
    assert.deepEqual(
      ids(await store.schedules({ dueBy: at(9).getTime() })),
      ["s3", "s0", "s4"],
    );
  },
};

function contract(
  name: string,
  setup: () => Promise<[Open, () => Promise<void>]>,
) {
  Deno.test(`schedule store contract: ${name}`, {
    ignore: name.startsWith("Postgres") && !HAS_POSTGRES,
  }, async (t) => {
    const [open, close] = await setup();
    try {
      for (const [title, run] of Object.entries(cases)) {
        await t.step(title, () => run(open));
      }
    } finally {
      await close();
    }
  });
}

contract("MemoryContentStore", () =>
  Promise.resolve([
    () => Promise.resolve(new MemoryContentStore()),
    () => Promise.resolve(),
  ]));

contract("KvContentStore", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-kv-sched-" });
  const kvs: Deno.Kv[] = [];
  let n = 0;
  return [
    async () => {
      const kv = await Deno.openKv(`${dir}/${++n}.kv`);
      kvs.push(kv);
      return new KvContentStore(kv);
    },
    async () => {
      for (const kv of kvs) kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  ];
});

contract("PostgresContentStore", async () => {
  const pg = await startPostgres();
  const sql = await connectFresh(pg);
  let n = 0;
  return [
    () => Promise.resolve(new PostgresContentStore(sql, { prefix: `s${++n}` })),
    async () => {
      try {
        await sql.end();
      } finally {
        await pg.close();
      }
    },
  ];
});

Deno.test("KV: schedules stored before the index by time are indexed on first use", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-kv-sched-old-" });
  const kv = await Deno.openKv(`${dir}/old.kv`);
  try {
    // As an older version kept them: the schedule entry only.
    const due = schedule(["title"], { id: "old-due" });
    const later = schedule(["title"], { id: "old-later", at: FUTURE });
    await kv.set(["cms", 4, due.id], due);
    await kv.set(["cms", 4, later.id], later);
    const store = new KvContentStore(kv);
    await draft(store, "title", "x");
    assert.deepEqual(
      (await store.schedules({ dueBy: Date.now() })).map((s) => s.id),
      ["old-due"],
    );
    assert.equal(await store.scheduleCount(), 2);
    assert.equal((await store.fireSchedule("old-due"))?.failed, undefined);
    assert.deepEqual((await store.schedules()).map((s) => s.id), [later.id]);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
