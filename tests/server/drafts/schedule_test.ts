/**
 * Scheduled publishing through the endpoints and the Scheduler: the 202
 * answer, bad input, session and `canEdit` rules, the listing, cancel, a
 * schedule firing on its timer (KV, one process), surviving a restart and
 * a missed schedule firing at the next start.
 */
import assert from "node:assert/strict";
import {
  createCancelScheduleHandler,
  createPublishHandler,
  createScheduleHandler,
  type DraftHandlerOptions,
} from "../../../server/drafts/mod.ts";
import { Scheduler } from "../../../server/drafts/scheduler.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { KvContentStore } from "../../../server/store/kv/mod.ts";
import type {
  ScheduleFiring,
  ScheduleStore,
} from "../../../server/store/schedule.ts";
import type {
  ScheduleAnswer,
  ScheduleListing,
} from "../../../core/protocol/mod.ts";
import { contentVersion } from "../../../core/version.ts";

const ORIGIN = "http://localhost";

function options(
  store: ScheduleStore,
  extra: Partial<DraftHandlerOptions> = {},
): DraftHandlerOptions {
  return {
    authorize: (req) =>
      req.headers.get("Cookie") === "s=ok" ? { name: "Ada" } : null,
    allowlist: { pages: { title: "plain", summary: "plain" } },
    store,
    schedulerElsewhere: true,
    ...extra,
  };
}

function post(path: string, body: unknown, cookie = "s=ok") {
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: {
      Cookie: cookie,
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

/** Resolves with the next firing reported by `onFire`. */
function nextFiring() {
  const { promise, resolve } = Promise.withResolvers<ScheduleFiring>();
  return { promise, onFire: resolve };
}

Deno.test("publish with at answers 202 and the schedule is listed", async () => {
  const store = new MemoryContentStore();
  await draft(store, "title", "Launch");
  const opts = options(store);
  const publish = createPublishHandler(opts);
  const at = "2035-03-01T10:00:00+01:00";
  const res = await publish(
    post("/api/cms/publish", { at, fields: ["pages:home:title"] }),
  );
  assert.equal(res.status, 202);
  const answer: ScheduleAnswer = await res.json();
  assert.equal(answer.at, "2035-03-01T09:00:00.000Z");
  assert.deepEqual(answer.fields, ["pages:home:title"]);
  // Nothing went public yet.
  assert.equal(await store.get("pages", "home"), null);

  const list = await createScheduleHandler(opts)(get("/api/cms/schedule"));
  assert.equal(list.status, 200);
  const listing: ScheduleListing = await list.json();
  assert.equal(listing.schedules.length, 1);
  assert.equal(listing.schedules[0].id, answer.id);
  assert.equal(listing.schedules[0].state, "pending");
  assert.equal(listing.schedules[0].editor, "Ada");

  // Without fields: every draft the editor may edit, fixed now.
  await draft(store, "summary", "More");
  const all = await publish(post("/api/cms/publish", { at }));
  assert.equal(all.status, 202);
  assert.deepEqual((await all.json()).fields.sort(), [
    "pages:home:summary",
    "pages:home:title",
  ]);
});

Deno.test("scheduling refuses bad input, no session and canEdit", async () => {
  const store = new MemoryContentStore();
  await draft(store, "title", "x");
  const publish = createPublishHandler(options(store));
  const cases: [unknown, RegExp][] = [
    [{ at: "tomorrow" }, /ISO 8601/],
    [{ at: "2035-01-01T10:00:00" }, /ISO 8601/],
    [{ at: 5 }, /ISO 8601/],
    [{ at: "2001-01-01T00:00:00Z" }, /in the past/],
    [{ at: "9999-01-01T00:00:00Z" }, /10 years/],
    [{ at: "2035-01-01T00:00:00Z", fields: ["pages:home:nope"] }, /./],
  ];
  for (const [body, reason] of cases) {
    const res = await publish(post("/api/cms/publish", body));
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(await res.text(), reason);
  }
  const empty = createPublishHandler(options(new MemoryContentStore()));
  const none = await empty(
    post("/api/cms/publish", { at: "2035-01-01T00:00:00Z" }),
  );
  assert.equal(none.status, 400);
  assert.match(await none.text(), /No drafts/);

  const anon = await publish(
    post("/api/cms/publish", { at: "2035-01-01T00:00:00Z" }, "s=no"),
  );
  assert.equal(anon.status, 403);
  await anon.body?.cancel();

  const guarded = createPublishHandler(
    options(store, { canEdit: (_r, f) => f.field !== "title" }),
  );
  const refused = await guarded(
    post("/api/cms/publish", {
      at: "2035-01-01T00:00:00Z",
      fields: ["pages:home:title"],
    }),
  );
  assert.equal(refused.status, 403);
  await refused.body?.cancel();
  assert.deepEqual(await store.schedules(), []);
});

Deno.test("cancel removes a schedule; canEdit guards it", async () => {
  const store = new MemoryContentStore();
  await draft(store, "title", "x");
  const opts = options(store);
  const res = await createPublishHandler(opts)(
    post("/api/cms/publish", { at: "2035-01-01T00:00:00Z" }),
  );
  const { id } = await res.json();
  const guarded = createCancelScheduleHandler(
    options(store, { canEdit: () => false }),
  );
  const refused = await guarded(post("/api/cms/schedule/cancel", { id }));
  assert.equal(refused.status, 403);
  await refused.body?.cancel();
  const cancel = createCancelScheduleHandler(opts);
  const bad = await cancel(post("/api/cms/schedule/cancel", { id: 5 }));
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
  const ok = await cancel(post("/api/cms/schedule/cancel", { id }));
  assert.equal(ok.status, 204);
  const again = await cancel(post("/api/cms/schedule/cancel", { id }));
  assert.equal(again.status, 404);
  await again.body?.cancel();
  assert.deepEqual(await store.schedules(), []);
  // The listing hides schedules whose fields canEdit refuses.
  await createPublishHandler(opts)(
    post("/api/cms/publish", { at: "2035-01-01T00:00:00Z" }),
  ).then((r) => r.body?.cancel());
  const hidden = await createScheduleHandler(
    options(store, { canEdit: () => false }),
  )(get("/api/cms/schedule"));
  assert.deepEqual((await hidden.json()).schedules, []);
});

Deno.test("a conflicting schedule is listed as failed with its reason", async () => {
  const store = new MemoryContentStore();
  await draft(store, "title", "seen");
  await draft(store, "summary", "other");
  const fire = nextFiring();
  const scheduler = new Scheduler({ store, onFire: fire.onFire });
  const opts = options(store, { scheduler });
  await scheduler.start();
  try {
    const at = new Date(Date.now() + 300).toISOString();
    const res = await createPublishHandler(opts)(
      post("/api/cms/publish", {
        at,
        fields: ["pages:home:title", "pages:home:summary"],
        versions: { "pages:home:title": contentVersion("seen") },
      }),
    );
    assert.equal(res.status, 202);
    await res.body?.cancel();
    await draft(store, "title", "changed by Bo");
    const firing = await fire.promise;
    assert.ok(firing.failed);
    assert.equal(await store.get("pages", "home"), null);
    const listing: ScheduleListing = await (await createScheduleHandler(opts)(
      get("/api/cms/schedule"),
    )).json();
    assert.equal(listing.schedules[0].state, "failed");
    assert.match(listing.schedules[0].reason ?? "", /pages:home:title/);
    assert.deepEqual(listing.schedules[0].conflicts, ["pages:home:title"]);
  } finally {
    await scheduler.stop();
  }
});

Deno.test("KV: a schedule fires on its timer, survives a restart, a missed one fires at start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-sched-" });
  const path = `${dir}/content.kv`;
  try {
    // 1. Fires on its timer, in one process.
    {
      using kv = await Deno.openKv(path);
      const store = new KvContentStore(kv);
      await draft(store, "title", "On time");
      const fire = nextFiring();
      const published: string[] = [];
      const scheduler = new Scheduler({
        store,
        onFire: fire.onFire,
        onPublish: (p, editor) => {
          published.push(`${p[0].field}:${editor.name}`);
        },
      });
      await scheduler.start();
      try {
        const at = Date.now() + 400;
        const res = await createPublishHandler(options(store, { scheduler }))(
          post("/api/cms/publish", { at: new Date(at).toISOString() }),
        );
        assert.equal(res.status, 202);
        await res.body?.cancel();
        const firing = await fire.promise;
        assert.ok(Date.now() >= at);
        assert.equal(firing.failed, undefined);
        assert.equal((await store.get("pages", "home"))?.title, "On time");
        assert.deepEqual(published, ["title:Ada"]);
        const revs = await store.revisions("pages", "home", "title");
        assert.equal(revs[0].published !== undefined, true);
        assert.equal(revs[0].editor, "Ada");
      } finally {
        await scheduler.stop();
      }
    }
    // 2. Made, then every instance stops before its time.
    let at: number;
    {
      using kv = await Deno.openKv(path);
      const store = new KvContentStore(kv);
      await draft(store, "summary", "Missed");
      const scheduler = new Scheduler({ store });
      await scheduler.start();
      at = Date.now() + 200;
      const res = await createPublishHandler(options(store, { scheduler }))(
        post("/api/cms/publish", {
          at: new Date(at).toISOString(),
          fields: ["pages:home:summary"],
        }),
      );
      assert.equal(res.status, 202);
      await res.body?.cancel();
      await scheduler.stop();
      assert.equal((await store.schedules()).length, 1);
    }
    // Nothing runs until its time has passed (bounded wait for the clock).
    for (let i = 0; i < 100 && Date.now() <= at; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // 3. The next start fires it.
    {
      using kv = await Deno.openKv(path);
      const store = new KvContentStore(kv);
      const scheduler = new Scheduler({ store });
      await scheduler.start();
      await scheduler.stop();
      assert.equal((await store.get("pages", "home"))?.summary, "Missed");
      assert.deepEqual(await store.schedules(), []);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
