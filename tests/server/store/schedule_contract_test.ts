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
import { connectFresh, startPostgres } from "../../helpers/postgres.ts";

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
};

function contract(
  name: string,
  setup: () => Promise<[Open, () => Promise<void>]>,
) {
  Deno.test(`schedule store contract: ${name}`, async (t) => {
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
