/**
 * Large values on the Deno KV store: pieces and switch, what a crash leaves,
 * old one-entry records, and that saving one field rewrites only it.
 */
import assert from "node:assert/strict";
import { KvContentStore } from "../../../server/store/kv/mod.ts";

const big = (c: string, n = 200_000) => c.repeat(n);

async function entries(kv: Deno.Kv, part: number): Promise<number> {
  return (await Array.fromAsync(kv.list({ prefix: ["cms", part] }))).length;
}

/**
 * `kv` whose commits that check something (the switch; pieces check
 * nothing) throw; once `dead`, every commit throws, like a crashed process.
 */
function crashing(kv: Deno.Kv, dead: boolean): Deno.Kv {
  let crashed = false;
  const atomic = () => {
    const op = kv.atomic();
    let checks = false;
    const check = op.check.bind(op);
    const commit = op.commit.bind(op);
    op.check = (...a) => {
      checks = true;
      return check(...a);
    };
    op.commit = () => {
      if (crashed || checks) {
        crashed = dead;
        return Promise.reject(new Error("crash"));
      }
      return commit();
    };
    return op;
  };
  return {
    get: kv.get.bind(kv),
    getMany: kv.getMany.bind(kv),
    list: kv.list.bind(kv),
    atomic,
  } as unknown as Deno.Kv;
}

Deno.test("KvContentStore: a write that fails at the switch leaves the old value and no pieces", async () => {
  await using kv = await Deno.openKv(":memory:");
  await new KvContentStore(kv).update("p", "k", () => ({ body: big("a") }));
  const store = new KvContentStore(crashing(kv, false));
  await assert.rejects(
    store.update("p", "k", () => ({ body: big("b") }), {
      field: "body",
      editor: "Ada",
    }),
    /crash/,
  );
  assert.equal((await new KvContentStore(kv).get("p", "k"))?.body, big("a"));
  assert.equal(await entries(kv, 6), 0);
  assert.equal(await entries(kv, 5), 4);
});

Deno.test("KvContentStore: what a crash between pieces and switch leaves is collected", async () => {
  await using kv = await Deno.openKv(":memory:");
  const fresh = new KvContentStore(kv);
  await fresh.update("p", "k", () => ({ body: big("a") }));
  const before = await entries(kv, 5);
  const store = new KvContentStore(crashing(kv, true));
  await assert.rejects(store.update("p", "k", () => ({ body: big("b") })));
  // The reader sees the old value; the new pieces are orphans.
  assert.equal((await fresh.get("p", "k"))?.body, big("a"));
  assert.ok(await entries(kv, 5) > before);
  assert.equal(await fresh.collectGarbage(), 0); // still within grace
  assert.equal(await fresh.collectGarbage(Date.now() + 16 * 60_000), 1);
  assert.equal(await entries(kv, 5), before);
  assert.equal(await entries(kv, 6), 0);
  assert.equal((await fresh.get("p", "k"))?.body, big("a"));
});

Deno.test("KvContentStore: a one-entry record of the previous version reads as is and is repacked on write", async () => {
  await using kv = await Deno.openKv(":memory:");
  const old = { title: "T", body: big("é", 30_000), list: ["a", "b"] };
  await kv.set(["cms", "p", "k"], old);
  const store = new KvContentStore(kv);
  assert.deepEqual(await store.get("p", "k"), old);
  await store.update("p", "k", (r) => ({ ...r, title: "T2" }));
  assert.deepEqual(await store.get("p", "k"), { ...old, title: "T2" });
  const raw = (await kv.get<Record<string, unknown>>(["cms", "p", "k"])).value!;
  assert.equal(raw.title, "T2");
  assert.equal(typeof (raw.body as { blob: string }).blob, "string");
});

Deno.test("KvContentStore: saving one field keeps the other fields' pieces", async () => {
  await using kv = await Deno.openKv(":memory:");
  const store = new KvContentStore(kv);
  await store.update("p", "k", () => ({ title: "T", body: big("x") }));
  const raw = async () =>
    (await kv.get<Record<string, unknown>>(["cms", "p", "k"])).value!;
  const body = (await raw()).body;
  await store.update("p", "k", (r) => ({ ...r, title: "T2" }));
  assert.deepEqual((await raw()).body, body);
  await store.update("p", "k", (r) => ({ ...r, body: big("y") }));
  assert.notDeepEqual((await raw()).body, body);
  // The replaced value's pieces are gone at once.
  assert.equal(await entries(kv, 5), 4);
  assert.equal(await entries(kv, 6), 0);
});
