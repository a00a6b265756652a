/**
 * The decoders' memory budget: the process's limit as read from cgroup v2,
 * cgroup v1 or the machine; the default budget; the queue that makes work
 * over the budget wait (never more than one job past it at a time); and the
 * 422 of an image whose decoding alone passes the budget.
 */
import assert from "node:assert/strict";
import { HttpError } from "../../../server/http/pipeline.ts";
import {
  ASSUMED_LIMIT,
  defaultMemoryBudget,
  estimateMemory,
  MEMORY_RESERVE,
  memoryLimit,
} from "../../../server/image/memory.ts";
import { ImagePipeline } from "../../../server/image/pipeline.ts";
import { WorkQueue } from "../../../server/image/queue.ts";
import { sniffImage } from "../../../server/image/sniff/mod.ts";
import { solid } from "../../fixtures/images.ts";

const MiB = 1024 * 1024;

Deno.test("memoryLimit: cgroup v2, then v1, then 512 MiB on Deno Deploy, else the machine; 'max' and v1's huge number mean none", () => {
  const files = (map: Record<string, string>) => (path: string) =>
    map[path] ?? null;
  const v2 = "/sys/fs/cgroup/memory.max";
  const v1 = "/sys/fs/cgroup/memory/memory.limit_in_bytes";
  assert.equal(memoryLimit(files({ [v2]: "536870912\n" }), false), 512 * MiB);
  assert.equal(
    memoryLimit(files({ [v2]: "max\n", [v1]: "268435456\n" }), false),
    256 * MiB,
  );
  const machine = Deno.systemMemoryInfo().total;
  assert.equal(
    memoryLimit(files({ [v1]: "9223372036854771712\n" }), false),
    machine,
  );
  assert.equal(memoryLimit(files({}), false), machine);
  // Deno Deploy: its instances' 512 MB, not the machine's memory.
  assert.equal(memoryLimit(files({}), true), 512 * MiB);
  assert.equal(memoryLimit(files({ [v2]: "268435456" }), true), 256 * MiB);
  assert.equal(ASSUMED_LIMIT, 512 * MiB);
});

Deno.test("defaultMemoryBudget: the limit less the reserve, at least 64 MiB", () => {
  assert.equal(MEMORY_RESERVE, 128 * MiB);
  assert.equal(defaultMemoryBudget(512 * MiB), 384 * MiB);
  assert.equal(defaultMemoryBudget(100 * MiB), 64 * MiB);
  // In a 512 MiB process: a 40 MP JPEG fits alone, a 40 MP AVIF does not.
  const budget = defaultMemoryBudget(512 * MiB);
  assert.ok(estimateMemory("image/jpeg", 40e6, 10 * MiB) <= budget);
  assert.ok(estimateMemory("image/avif", 40e6, 4 * MiB) > budget);
  assert.ok(estimateMemory("image/avif", 19e6, 4 * MiB) <= budget);
});

Deno.test("WorkQueue: work over the memory budget waits its turn, first come first served; one job alone always runs", async () => {
  const queue = new WorkQueue({ concurrency: 4, waiting: 4, maxMemory: 100 });
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const job = (name: string) => () =>
    new Promise<string>((r) => {
      started.push(name);
      gates.set(name, () => r(name));
    });
  const tick = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  const big = queue.run(job("big"), { memory: 150 }); // alone: runs
  const a = queue.run(job("a"), { memory: 60 });
  const b = queue.run(job("b"), { memory: 30 });
  await tick();
  assert.deepEqual(started, ["big"]);
  assert.deepEqual([queue.running, queue.waiting, queue.memory], [1, 2, 150]);
  gates.get("big")!();
  await big;
  await tick();
  assert.deepEqual(started, ["big", "a", "b"], "60 + 30 fit together");
  assert.equal(queue.memory, 90);
  // c (20) would fit beside a and b, but d (50) came first and does not:
  // c waits behind it rather than overtaking.
  const d = queue.run(job("d"), { memory: 50 });
  const c = queue.run(job("c"), { memory: 5 });
  await tick();
  assert.deepEqual(started, ["big", "a", "b"]);
  gates.get("a")!();
  await a;
  await tick();
  assert.deepEqual(started, ["big", "a", "b", "d", "c"]);
  for (const name of ["b", "c", "d"]) gates.get(name)!();
  await Promise.all([b, c, d]);
  assert.deepEqual([queue.running, queue.waiting, queue.memory], [0, 0, 0]);
});

Deno.test("WorkQueue: a full line is still 503; an aborted waiter lets the next one start", async () => {
  const queue = new WorkQueue({ concurrency: 2, waiting: 2, maxMemory: 100 });
  const gates: (() => void)[] = [];
  const job = () => new Promise<void>((r) => gates.push(r));
  const first = queue.run(job, { memory: 90 });
  const abort = new AbortController();
  const waiting = queue.run(job, { memory: 90, signal: abort.signal });
  const small = queue.run(job, { memory: 5 });
  const err = await queue.run(job, { memory: 1 }).catch((e) => e);
  assert.ok(err instanceof HttpError);
  assert.equal(err.status, 503);
  assert.ok(new Headers(err.headers).get("Retry-After"));
  abort.abort(new Error("left"));
  await assert.rejects(waiting, /left/);
  for (let i = 0; i < 10; i++) await Promise.resolve();
  assert.equal(gates.length, 2, "the small job starts beside the first");
  gates.forEach((g) => g());
  await Promise.all([first, small]);
});

Deno.test("WorkQueue: what waiting jobs hold counts against the memory budget: one that does not fit is 503", async () => {
  const queue = new WorkQueue({ concurrency: 1, waiting: 8, maxMemory: 100 });
  const gates: (() => void)[] = [];
  const job = () => new Promise<void>((r) => gates.push(r));
  const running = queue.run(job, { memory: 80, held: 10 });
  const waits = queue.run(job, { memory: 40, held: 15 });
  assert.equal(queue.held, 15);
  const err = await queue.run(job, { memory: 10, held: 6 }).catch((e) => e);
  assert.ok(err instanceof HttpError, "80 running + 15 held + 6 > 100");
  assert.equal(err.status, 503);
  const fits = queue.run(job, { memory: 10, held: 5 });
  assert.equal(queue.held, 20);
  gates[0]();
  await running;
  for (let i = 0; i < 10; i++) await Promise.resolve();
  assert.equal(queue.held, 5, "started jobs hold nothing as waiters");
  gates[1]();
  await waits;
  for (let i = 0; i < 10; i++) await Promise.resolve();
  gates[2]();
  await fits;
  assert.deepEqual([queue.memory, queue.held, queue.running], [0, 0, 0]);
});

Deno.test("ImagePipeline: an image whose decoding alone passes the memory budget is 422 with the numbers", async () => {
  const data = await solid(2000, 1000, "png");
  const info = sniffImage(data)!;
  const images = new ImagePipeline({ memoryBudget: 8 * MiB });
  const err = await images.prepare(data, info).catch((e) => e);
  assert.ok(err instanceof HttpError);
  assert.equal(err.status, 422);
  assert.match(
    err.message,
    /^Image too large to process in this server's memory: 2000x1000 PNG needs about 16 MiB, the limit is 8 MiB$/,
  );
  // Under a budget it fits, the same image is processed.
  const ok = await new ImagePipeline({ memoryBudget: 32 * MiB })
    .prepare(data, info);
  assert.equal(ok.processed, true);
  assert.throws(() => new ImagePipeline({ memoryBudget: 0 }), RangeError);
});

Deno.test("WorkQueue: bodies being read count against the budget, so a burst gets 503 before it reads", async () => {
  const queue = new WorkQueue({ concurrency: 2, waiting: 4, maxMemory: 100 });
  // An idle queue always takes one body, however large.
  const first = queue.holdBody(150);
  assert.equal(queue.held, 150);
  // A second body while the first is read: over the budget, refused.
  assert.throws(() => queue.holdBody(10), (e: HttpError) => e.status === 503);
  first();
  first(); // releasing twice counts once
  assert.equal(queue.held, 0);
  // Two bodies that fit together are both held, a third that doesn't is 503.
  const a = queue.holdBody(40);
  const b = queue.holdBody(40);
  assert.throws(() => queue.holdBody(30), (e: HttpError) => e.status === 503);
  a();
  b();
  // A running job's memory counts too.
  let done!: () => void;
  const job = queue.run(() => new Promise<void>((r) => done = r), {
    memory: 80,
  });
  assert.throws(() => queue.holdBody(30), (e: HttpError) => e.status === 503);
  queue.holdBody(20)();
  done();
  await job;
  assert.deepEqual([queue.held, queue.memory], [0, 0]);
});
