/**
 * Schedules without a resident process: the deployment guide's `Deno.cron`
 * block, run as written (with `Deno.openKv` and `Deno.cron` pointed at a
 * KV file and a captured handler), fires due schedules on each tick, and
 * ticks from several processes' schedulers at once fire each schedule
 * exactly once.
 */
import assert from "node:assert/strict";
import { KvContentStore, type Schedule } from "../../server/store/mod.ts";
import { Scheduler } from "../../server/drafts/mod.ts";
import { setLogger } from "../../server/ops/mod.ts";

const ROOT = new URL("../../", import.meta.url);

/** The guide's ```ts block that registers the cron job. */
async function guideBlock(): Promise<string> {
  const guide = await Deno.readTextFile(new URL("docs/deployment.md", ROOT));
  const block = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1]).find((code) => code.includes("Deno.cron("));
  assert.ok(block, "the guide shows the Deno.cron line");
  return block;
}

function schedule(id: string, at: number, field: string): Schedule {
  const iso = new Date(at).toISOString();
  return {
    id,
    at: iso,
    fields: [{ collection: "pages", key: "home", field }],
    editor: "Bo",
    created: iso,
  };
}

/** A draft of `field` and a schedule publishing it at `at`. */
async function scheduled(
  store: KvContentStore,
  id: string,
  field: string,
  at: number,
) {
  await store.updateDraft("pages", "home", (r) => ({ ...r, [field]: id }), {
    field,
    editor: "Bo",
    published: false,
  });
  await store.addSchedule(schedule(id, at, field));
}

Deno.test("the guide's Deno.cron block: each tick fires the schedules due by then", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-cron-" });
  const path = `${dir}/content.kv`;
  const file = new URL(
    `tests/multi/.cron_block_${crypto.randomUUID()}.ts`,
    ROOT,
  );
  const jobs: { name: string; cron: string; run: () => unknown }[] = [];
  const realOpenKv = Deno.openKv;
  const saved = ["openKv", "cron"].map((name) =>
    [name, Object.getOwnPropertyDescriptor(Deno, name)] as const
  );
  const stub = (name: string, value: unknown) =>
    Object.defineProperty(Deno, name, { value, configurable: true });
  const opened: Deno.Kv[] = [];
  const lines: string[] = [];
  const previous = setLogger((line) => lines.push(line.msg));
  const restoreLog = () => setLogger(previous);
  const kv = await Deno.openKv(path);
  try {
    const store = new KvContentStore(kv);
    await scheduled(store, "due", "title", Date.now() - 1000);
    await scheduled(store, "later", "summary", Date.now() + 60 * 60_000);
    // The block as written, importing this checkout.
    const code = (await guideBlock()).replace(
      `from "@inplace/cms"`,
      `from ${JSON.stringify(new URL("mod.ts", ROOT).href)}`,
    );
    await Deno.writeTextFile(file, code);
    stub("openKv", async () => {
      const shared = await realOpenKv(path);
      opened.push(shared);
      return shared;
    });
    stub("cron", (name: string, cron: string, run: () => unknown) => {
      jobs.push({ name, cron, run });
      return Promise.resolve();
    });
    await import(file.href);
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].cron, "* * * * *");
    assert.deepEqual(await store.schedules({ dueBy: Date.now() }), [
      await store.schedule("due"),
    ], "nothing fires before the first tick");

    await jobs[0].run();
    assert.equal((await store.get("pages", "home"))?.title, "due");
    assert.equal(await store.schedule("due"), null);
    assert.ok(await store.schedule("later"), "the later one waits");
    assert.equal(lines.filter((l) => l === "schedule published").length, 1);
    await jobs[0].run(); // a tick with nothing due fires nothing
    assert.equal(lines.filter((l) => l === "schedule published").length, 1);
  } finally {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(Deno, name, descriptor);
      else delete (Deno as unknown as Record<string, unknown>)[name];
    }
    restoreLog();
    opened.forEach((k) => k.close());
    kv.close();
    await Deno.remove(file).catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ticks on 3 KV handles of one file at once: 5 due schedules, each fired exactly once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-cron-multi-" });
  const kvs = await Promise.all(
    [0, 1, 2].map(() => Deno.openKv(`${dir}/content.kv`)),
  );
  const lines: string[] = [];
  const previous = setLogger((line) => lines.push(line.msg));
  const restoreLog = () => setLogger(previous);
  try {
    const stores = kvs.map((kv) => new KvContentStore(kv));
    const fields = ["title", "summary", "body", "intro", "footer"];
    for (const [i, field] of fields.entries()) {
      await scheduled(stores[i % 3], `s${i}`, field, Date.now() - 100);
    }
    // Each process's cron job and its timer's round, all at once.
    await Promise.all(stores.flatMap((store) => {
      const scheduler = new Scheduler({ store });
      return [scheduler.tick(), scheduler.runDue()];
    }));
    assert.equal(lines.filter((l) => l === "schedule published").length, 5);
    assert.equal(lines.filter((l) => l === "schedule failed").length, 0);
    assert.equal(await stores[0].scheduleCount(), 0, "none left pending");
    const home = await stores[1].get("pages", "home");
    for (const [i, field] of fields.entries()) {
      const value = home?.[field];
      assert.equal(value, `s${i}`, field);
    }
  } finally {
    restoreLog();
    kvs.forEach((kv) => kv.close());
    await Deno.remove(dir, { recursive: true });
  }
});
