/**
 * The client's editing model without a browser: dirty state, drafts (on an
 * in-memory Storage), saving with a concurrency limit, conflicts and retry
 * with backoff, driven by a fake clock and a scripted `send`.
 */
import assert from "node:assert/strict";
import type { SaveBody } from "../../core/protocol/mod.ts";
import { saveField } from "../../client/save.ts";
import { serve } from "../helpers/serve.ts";
import {
  type Clock,
  createModel,
  type FieldInit,
  type ModelOptions,
  retryAfterMs,
  type SaveAnswer,
} from "../../client/model.ts";
import {
  clearDrafts,
  type DraftStorage,
  localDrafts,
} from "../../client/drafts.ts";

/** A Web Storage on a Map. */
class MemoryStorage implements DraftStorage {
  #m = new Map<string, string>();
  get length() {
    return this.#m.size;
  }
  key(i: number) {
    return [...this.#m.keys()][i] ?? null;
  }
  getItem(k: string) {
    return this.#m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.#m.set(k, String(v));
  }
  removeItem(k: string) {
    this.#m.delete(k);
  }
  keys() {
    return [...this.#m.keys()];
  }
}

/** A clock whose time moves only with `tick`. */
class FakeClock implements Clock {
  time = 1_000_000;
  rnd = 0.5;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #next = 1;
  now = () => this.time;
  random = () => this.rnd;
  setTimeout = (fn: () => void, ms: number) => {
    this.#timers.set(this.#next, { at: this.time + ms, fn });
    return this.#next++;
  };
  clearTimeout = (id: unknown) => void this.#timers.delete(id as number);
  get pending() {
    return [...this.#timers.values()].map((t) => t.at - this.time);
  }
  /** Moves time by `ms`, running due timers in order. */
  async tick(ms: number) {
    const end = this.time + ms;
    for (let guard = 0; guard < 1000; guard++) {
      const due = [...this.#timers].filter(([, t]) => t.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.time = due[1].at;
      due[1].fn();
      await flush();
    }
    this.time = end;
    await flush();
  }
}

/** Lets pending promise callbacks run. */
const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

/** A scripted save endpoint: answers come from `answer`, or are held. */
class FakeServer {
  sent: SaveBody[] = [];
  inFlight = 0;
  maxInFlight = 0;
  held: ((a: SaveAnswer) => void)[] = [];
  hold = false;
  answer: (b: SaveBody, n: number) => SaveAnswer = () => ({
    status: 204,
    text: "",
    version: `v${this.sent.length}`,
  });
  send = (body: SaveBody): Promise<SaveAnswer> => {
    this.sent.push(body);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const done = (a: SaveAnswer) => {
      this.inFlight--;
      return a;
    };
    if (this.hold) {
      return new Promise<SaveAnswer>((r) => this.held.push(r)).then(done);
    }
    return Promise.resolve(done(this.answer(body, this.sent.length)));
  };
  release(a: SaveAnswer = { status: 204, text: "" }) {
    for (const r of this.held.splice(0)) r(a);
  }
}

const field = (name: string, version?: string): FieldInit => ({
  id: `pages:home:${name}`,
  collection: "pages",
  key: "home",
  field: name,
  rich: false,
  version,
});

function setup(
  names: string[] = ["title", "subtitle"],
  options: Partial<ModelOptions> = {},
) {
  const server = new FakeServer();
  const clock = new FakeClock();
  const storage = new MemoryStorage();
  const events: { type: string; detail: Record<string, unknown> }[] = [];
  const conflicts: string[] = [];
  const model = createModel(
    names.map((n) => field(n, `${n}-v1`)),
    names.map((n) => `${n} stored`),
    {
      send: server.send,
      clock,
      drafts: localDrafts(() => storage),
      emit: (type, detail) => events.push({ type, detail }),
      onConflict: (f) => conflicts.push(f.id),
      ...options,
    },
  );
  const of = (type: string) => events.filter((e) => e.type === type);
  return { server, clock, storage, events, of, conflicts, model };
}

const T = "pages:home:title";

Deno.test("model: dirty state, cms:dirty and drafts follow edits", () => {
  const { model, of, storage } = setup();
  assert.equal(model.fields.length, 2);
  model.edit(T, "A");
  model.edit(T, "AB");
  assert.deepEqual(model.status(), {
    dirty: 1,
    saving: false,
    failed: undefined,
    removed: 0,
  });
  assert.deepEqual(of("cms:dirty").map((e) => e.detail.dirty), [true]);
  assert.deepEqual(storage.keys(), ["cms-draft:pages:home:title:title-v1"]);
  assert.deepEqual(
    JSON.parse(storage.getItem(storage.keys()[0])!),
    { base: "title stored", value: "AB" },
  );
  model.revert(T);
  assert.equal(model.status().dirty, 0);
  assert.deepEqual(of("cms:dirty").map((e) => e.detail.dirty), [true, false]);
  assert.deepEqual(storage.keys(), []);
});

Deno.test("model: duplicate fields count once; unknown ids are ignored", () => {
  const server = new FakeServer();
  const model = createModel([field("a"), field("a"), field("b")], [
    "1",
    "1",
    "2",
  ], { send: server.send });
  assert.equal(model.fields.length, 2);
  model.edit("pages:home:nope", "x");
  assert.equal(model.status().dirty, 0);
});

Deno.test("model: save sends each dirty field once, with its version", async () => {
  const { model, server, of, storage } = setup(["a", "b", "c"]);
  model.edit("pages:home:a", "A!");
  model.edit("pages:home:c", "C!");
  await model.save();
  assert.deepEqual(server.sent, [
    {
      collection: "pages",
      key: "home",
      field: "a",
      value: "A!",
      version: "a-v1",
    },
    {
      collection: "pages",
      key: "home",
      field: "c",
      value: "C!",
      version: "c-v1",
    },
  ]);
  assert.equal(model.status().dirty, 0);
  assert.equal(model.get("pages:home:a")!.version, "v1");
  assert.equal(model.get("pages:home:c")!.version, "v2");
  assert.deepEqual(
    of("cms:saved").map((e) => e.detail),
    [
      { field: "pages:home:a", value: "A!", version: "v1" },
      { field: "pages:home:c", value: "C!", version: "v2" },
    ],
  );
  assert.deepEqual(storage.keys(), []);
  await model.save();
  assert.equal(server.sent.length, 2, "nothing dirty: no request");
});

Deno.test("model: an unversioned field stays unversioned after a save", async () => {
  const server = new FakeServer();
  const model = createModel([field("a")], ["x"], { send: server.send });
  model.edit("pages:home:a", "y");
  await model.save();
  model.edit("pages:home:a", "z");
  await model.save();
  assert.deepEqual(server.sent.map((b) => "version" in b), [false, false]);
});

Deno.test("model: at most `concurrency` requests in flight", async () => {
  const names = Array.from({ length: 20 }, (_, i) => `f${i}`);
  const { model, server } = setup(names, { concurrency: 3 });
  for (const n of names) model.edit(`pages:home:${n}`, `${n}!`);
  server.hold = true;
  const saving = model.save();
  for (let i = 0; i < 30 && server.sent.length < 20; i++) {
    await flush();
    assert.ok(server.inFlight <= 3);
    server.release();
  }
  await saving;
  assert.equal(server.maxInFlight, 3);
  assert.equal(server.sent.length, 20);
  assert.deepEqual(
    new Set(server.sent.map((b) => b.field)),
    new Set(names),
  );
  assert.equal(model.status().dirty, 0);
});

Deno.test("model: an edit during the save keeps the field dirty on the new base", async () => {
  const { model, server, storage } = setup();
  model.edit(T, "one");
  server.hold = true;
  const saving = model.save();
  await flush();
  assert.equal(model.status().saving, true);
  model.edit(T, "one two");
  server.release({ status: 204, text: "", version: "v2" });
  await saving;
  const f = model.get(T)!;
  assert.equal(f.base, "one");
  assert.equal(f.value, "one two");
  assert.equal(f.version, "v2");
  assert.deepEqual(storage.keys(), ["cms-draft:pages:home:title:v2"]);
  assert.equal(model.status().dirty, 1);
  // A save while one is in flight does not send the field twice.
  server.hold = true;
  const again = [model.save(), model.save()];
  await flush();
  assert.equal(server.sent.length, 2);
  server.release();
  await Promise.all(again);
});

Deno.test("model: 409 waits for a choice; keep mine saves over the stored version", async () => {
  const { model, server, of, conflicts } = setup();
  server.answer = () => ({
    status: 409,
    text: JSON.stringify({ error: "conflict", value: "theirs", version: "v9" }),
  });
  model.edit(T, "mine");
  await model.save();
  assert.deepEqual(conflicts, [T]);
  assert.deepEqual(of("cms:conflict")[0].detail, {
    field: T,
    value: "mine",
    stored: "theirs",
    version: "v9",
  });
  assert.equal(model.get(T)!.error?.status, 409);
  // While the choice is pending, Save leaves the field alone.
  await model.save();
  assert.equal(server.sent.length, 1);
  server.answer = () => ({ status: 204, text: "", version: "v10" });
  await model.resolve(T, "mine");
  assert.deepEqual(server.sent[1], {
    collection: "pages",
    key: "home",
    field: "title",
    value: "mine",
    version: "v9",
  });
  const f = model.get(T)!;
  assert.deepEqual([f.base, f.value, f.version, f.error], [
    "mine",
    "mine",
    "v10",
    undefined,
  ]);
});

Deno.test("model: 409 resolved with the stored value, or cancelled", async () => {
  const { model, server, of } = setup();
  server.answer = () => ({
    status: 409,
    text: JSON.stringify({ error: "conflict", value: "theirs", version: "v9" }),
  });
  model.edit(T, "mine");
  await model.save();
  await model.resolve(T, "cancel");
  assert.equal(model.status().dirty, 1);
  assert.ok(model.status().failed);
  await model.save(); // asks again
  assert.equal(server.sent.length, 2);
  await model.resolve(T, "stored");
  const f = model.get(T)!;
  assert.deepEqual([f.base, f.value, f.version], ["theirs", "theirs", "v9"]);
  assert.equal(model.status().dirty, 0);
  assert.equal(model.status().failed, undefined);
  assert.equal(server.sent.length, 2);
  assert.deepEqual(of("cms:dirty").map((e) => e.detail.dirty), [true, false]);
});

Deno.test("model: a 409 holding our own value (answer lost, retried) counts as saved", async () => {
  const { model, server, conflicts } = setup();
  server.answer = (b) => ({
    status: 409,
    text: JSON.stringify({ error: "conflict", value: b.value, version: "v3" }),
  });
  model.edit(T, "mine");
  await model.save();
  assert.deepEqual(conflicts, []);
  assert.equal(model.status().dirty, 0);
  assert.equal(model.get(T)!.version, "v3");
});

Deno.test("model: 503 and network errors retry with growing, jittered, bounded backoff", async () => {
  for (
    const failure of [{ status: 503, text: "Busy" }, { status: 0, text: "" }]
  ) {
    const { model, server, clock, of } = setup();
    server.answer = () => failure;
    model.edit(T, "x");
    await model.save();
    const delays: number[] = [];
    for (let i = 0; i < 10 && clock.pending.length; i++) {
      const f = model.get(T)!;
      assert.equal(model.status().dirty, 1, "stays dirty");
      assert.equal(f.error?.status, failure.status);
      delays.push(f.retryAt! - clock.now());
      await clock.tick(clock.pending[0]);
    }
    // rnd = 0.5: 3/4 of 1 s, 2 s, 4 s, 8 s, 16 s; 6 attempts in all.
    assert.deepEqual(delays, [750, 1500, 3000, 6000, 12000]);
    assert.equal(server.sent.length, 6);
    assert.equal(of("cms:error").length, 6);
    assert.equal(model.status().dirty, 1);
    // Saving by hand starts again, at once.
    server.answer = () => ({ status: 204, text: "" });
    await model.save();
    assert.equal(server.sent.length, 7);
    assert.equal(model.status().dirty, 0);
  }
});

Deno.test("model: the backoff is capped and the jitter stays within its half", async () => {
  for (const rnd of [0, 0.999]) {
    const { model, server, clock } = setup(["title"], {
      retry: { base: 1000, max: 4000, attempts: 5 },
    });
    clock.rnd = rnd;
    server.answer = () => ({ status: 0, text: "" });
    model.edit(T, "x");
    await model.save();
    const delays: number[] = [];
    for (let i = 0; i < 10 && clock.pending.length; i++) {
      delays.push(clock.pending[0]);
      await clock.tick(clock.pending[0]);
    }
    const steps = [1000, 2000, 4000, 4000];
    assert.equal(delays.length, 4);
    delays.forEach((d, i) => {
      assert.ok(d >= steps[i] / 2 && d < steps[i], `${d} within ${steps[i]}`);
    });
  }
});

Deno.test("model: a retry that succeeds saves the field", async () => {
  const { model, server, clock } = setup();
  server.answer = (_, n) =>
    n === 1 ? { status: 503, text: "Shutting down", retryAfter: "2" } : {
      status: 204,
      text: "",
      version: "v2",
    };
  model.edit(T, "x");
  await model.save();
  assert.equal(model.status().dirty, 1);
  // Retry-After: 2 s is a floor (+ up to 10%).
  assert.equal(clock.pending[0], 2100);
  await clock.tick(2099);
  assert.equal(server.sent.length, 1);
  await clock.tick(1);
  assert.equal(server.sent.length, 2);
  assert.equal(model.status().dirty, 0);
  assert.equal(model.get(T)!.error, undefined);
});

Deno.test("model: 429 honours Retry-After as seconds or an HTTP date", () => {
  assert.equal(retryAfterMs("5", 0), 5000);
  assert.equal(retryAfterMs(" 0 ", 0), 0);
  const now = Date.parse("2030-01-01T00:00:00Z");
  assert.equal(
    retryAfterMs("Tue, 01 Jan 2030 00:00:30 GMT", now),
    30_000,
  );
  assert.equal(retryAfterMs("Tue, 01 Jan 2029 00:00:30 GMT", now), 0);
  assert.equal(retryAfterMs("soon", now), undefined);
  assert.equal(retryAfterMs(undefined, now), undefined);
});

Deno.test("model: 4xx other than 409/429, and 500, are not retried", async () => {
  for (const status of [400, 403, 404, 413, 422, 500]) {
    const { model, server, clock, of } = setup();
    server.answer = () => ({ status, text: `no ${status}` });
    model.edit(T, "x");
    await model.save();
    assert.deepEqual(clock.pending, [], `${status}`);
    assert.equal(server.sent.length, 1);
    assert.equal(model.status().failed?.error?.reason, `no ${status}`);
    assert.equal(of("cms:error")[0].detail.status, status);
    assert.equal(model.status().dirty, 1);
  }
  const { model, server, clock } = setup();
  server.answer = () => ({ status: 429, text: "Slow down" });
  model.edit(T, "x");
  await model.save();
  assert.equal(clock.pending.length, 1, "429 is retried");
});

Deno.test("model: reverting cancels a scheduled retry; saving sends it now", async () => {
  const { model, server, clock } = setup();
  server.answer = () => ({ status: 503, text: "" });
  model.edit(T, "x");
  await model.save();
  assert.equal(clock.pending.length, 1);
  model.revert(T);
  assert.deepEqual(clock.pending, []);
  assert.equal(model.status().failed, undefined);
  model.edit(T, "y");
  await model.save();
  assert.equal(clock.pending.length, 1);
  server.answer = () => ({ status: 204, text: "" });
  await model.save();
  assert.deepEqual(clock.pending, []);
  assert.equal(server.sent.length, 3);
  model.edit(T, "z");
  server.answer = () => ({ status: 503, text: "" });
  await model.save();
  server.answer = () => ({ status: 204, text: "" });
  model.retryNow();
  await flush();
  assert.equal(server.sent.length, 5);
  assert.equal(model.status().dirty, 0);
});

Deno.test("model: a send that throws counts as no answer", async () => {
  const { model, clock } = setup(["title"], {
    send: () => Promise.reject(new TypeError("Failed to fetch")),
  });
  model.edit(T, "x");
  await model.save();
  assert.equal(model.status().failed?.error?.status, 0);
  assert.equal(clock.pending.length, 1);
  assert.equal(model.status().saving, false);
});

Deno.test("model: drafts are restored for the same base only, and cleared", () => {
  const storage = new MemoryStorage();
  const drafts = localDrafts(() => storage);
  const make = () =>
    createModel([field("title", "v1"), field("sub", "v1")], ["T", "S"], {
      send: new FakeServer().send,
      drafts,
    });
  const first = make();
  first.edit(T, "T draft");
  first.edit("pages:home:sub", "S draft");
  const second = make();
  assert.deepEqual(second.restoreDrafts().map((f) => f.id), [
    T,
    "pages:home:sub",
  ]);
  assert.equal(second.get(T)!.value, "T draft");
  // Another stored value (same version string): the draft does not apply.
  const third = createModel([field("title", "v1")], ["T changed"], {
    send: new FakeServer().send,
    drafts,
  });
  assert.deepEqual(third.restoreDrafts(), []);
  second.dropDrafts();
  assert.deepEqual(storage.keys(), []);
  first.edit(T, "again");
  storage.setItem("unrelated", "1");
  clearDrafts(() => storage);
  assert.deepEqual(storage.keys(), ["unrelated"]);
});

Deno.test("model: saved drafts are removed in one batch once the queue drains", async () => {
  const storage = new MemoryStorage();
  const server = new FakeServer();
  // Unversioned fields: a draft keeps its key across saves.
  const model = createModel([field("title"), field("sub")], ["T", "S"], {
    send: server.send,
    drafts: localDrafts(() => storage),
  });
  const removed: string[] = [];
  const removeItem = storage.removeItem.bind(storage);
  storage.removeItem = (key: string) => (removed.push(key), removeItem(key));
  model.edit(T, "T1");
  model.edit("pages:home:sub", "S1");
  server.hold = true;
  const saving = model.save();
  await flush();
  // Edited while in flight: the same key now holds the newer draft.
  model.edit(T, "T2");
  server.hold = false;
  server.release();
  await saving;
  assert.deepEqual(removed, ["cms-draft:pages:home:sub:"]);
  assert.deepEqual(storage.keys(), ["cms-draft:pages:home:title:"]);
  assert.deepEqual(
    JSON.parse(storage.getItem("cms-draft:pages:home:title:")!),
    { base: "T1", value: "T2" },
  );
  await model.save();
  assert.deepEqual(storage.keys(), []);
});

Deno.test("model: storage failures never break editing", async () => {
  const broken = () => {
    throw new DOMException("denied", "SecurityError");
  };
  const server = new FakeServer();
  const model = createModel([field("title")], ["T"], {
    send: server.send,
    drafts: localDrafts(broken),
  });
  model.edit(T, "x");
  assert.deepEqual(model.restoreDrafts(), []);
  await model.save();
  assert.equal(model.status().dirty, 0);
  clearDrafts(broken);
});

Deno.test("model: after destroy, timers are gone and late answers are ignored", async () => {
  const { model, server, clock, events } = setup();
  model.edit(T, "x");
  server.hold = true;
  const saving = model.save();
  await flush();
  model.destroy();
  await saving;
  const before = events.length;
  server.release({ status: 503, text: "" });
  await flush();
  assert.equal(events.length, before);
  assert.deepEqual(clock.pending, []);
});

Deno.test("model: the sanitizer's removed count (CMS-Removed) shows in status until that field saves clean", async () => {
  const { model, server } = setup(["a", "b"]);
  server.answer = (body) => ({
    status: 204,
    text: "",
    ...(String(body.value).includes("<script>") ? { removed: 2 } : {}),
  });
  model.edit("pages:home:a", "A<script>x</script>");
  model.edit("pages:home:b", "B<script>x</script>");
  await model.save();
  assert.deepEqual(model.status(), {
    dirty: 0,
    saving: false,
    failed: undefined,
    removed: 4,
  });
  model.edit("pages:home:a", "A");
  await model.save();
  assert.equal(model.status().removed, 2, "a saved clean: only b's count");
  server.answer = () => ({ status: 500, text: "boom" });
  model.edit("pages:home:b", "B<script>y</script>");
  await model.save();
  assert.equal(model.status().removed, 2, "a failed save keeps the last count");
});

Deno.test("saveField reads CMS-Removed from the 204 (absent or 0: no count)", async () => {
  const counts = ["3", "0", null];
  const server = serve(() => {
    const removed = counts.shift();
    return new Response(null, {
      status: 204,
      headers: removed === null || removed === undefined
        ? { "CMS-Version": "v" }
        : { "CMS-Version": "v", "CMS-Removed": removed },
    });
  });
  try {
    const body = { collection: "pages", key: "home", field: "b", value: "x" };
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await saveField(server.url, body));
    assert.deepEqual(answers.map((a) => a.removed), [3, undefined, undefined]);
    assert.deepEqual(answers.map((a) => a.version), ["v", "v", "v"]);
  } finally {
    await server.close();
  }
});
