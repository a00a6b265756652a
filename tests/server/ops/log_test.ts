/**
 * Request ids and structured logs: ids from X-Request-Id or traceparent,
 * echoed; a 5xx body carries the id; one JSON line per request with the
 * facts; field values and passwords never reach a log.
 */
import assert from "node:assert/strict";
import { createSaveHandler } from "../../../server/save/handler.ts";
import { createMediaHandler } from "../../../server/media/upload.ts";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";
import { requestIdOf } from "../../../server/http/pipeline.ts";
import { jsonLines, type LogLine, setLogger } from "../../../server/ops/log.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { startDemo } from "../../../demo/main.ts";
import { defineContent, list } from "../../../core/content.ts";

const allowlist = defineContent({
  pages: { title: "plain", body: "rich", features: list() },
});

function save(body: unknown, headers: Record<string, string> = {}) {
  return new Request("http://127.0.0.1/api/cms/save", {
    method: "PATCH",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

Deno.test("request id: X-Request-Id, else traceparent's trace id, else new; echoed", async () => {
  const lines: LogLine[] = [];
  const restore = setLogger((l) => lines.push(l));
  try {
    const handler = createSaveHandler({
      authorize: () => ({ name: "Ada", id: "ed-7" }),
      allowlist,
      store: new MemoryContentStore(),
    });
    const value = { collection: "pages", key: "home", field: "title" };
    const a = await handler(save({ ...value, value: "x" }, {
      "X-Request-Id": "lb-123.abc",
    }));
    assert.equal(a.headers.get("X-Request-Id"), "lb-123.abc");
    const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const b = await handler(save({ ...value, value: "y" }, {
      traceparent: `00-${trace}-00f067aa0ba902b7-01`,
    }));
    assert.equal(b.headers.get("X-Request-Id"), trace);
    const c = await handler(save({ ...value, value: "z" }, {
      "X-Request-Id": `bad id "quoted" ${"x".repeat(80)}`,
    }));
    assert.match(c.headers.get("X-Request-Id")!, /^[0-9a-f]{16}$/);
    assert.deepEqual(lines.map((l) => l.requestId), [
      "lb-123.abc",
      trace,
      c.headers.get("X-Request-Id"),
    ]);
    // Fresh ids differ.
    const ids = new Set(
      Array.from({ length: 50 }, () => requestIdOf(new Request("http://x/"))),
    );
    assert.equal(ids.size, 50);
  } finally {
    setLogger(restore);
  }
});

Deno.test("logs: one JSON line per request with its facts; a 5xx body carries the id", async () => {
  const lines: LogLine[] = [];
  const restore = setLogger((l) => lines.push(l));
  try {
    const handler = createSaveHandler({
      authorize: () => ({ name: "Ada", id: "ed-7" }),
      allowlist,
      store: {
        get: () => Promise.resolve(null),
        update: () => Promise.reject(new Error("pool exhausted")),
      },
    });
    const res = await handler(
      save({ collection: "pages", key: "home", field: "title", value: "v" }, {
        "X-Request-Id": "req-500",
      }),
    );
    assert.equal(res.status, 500);
    assert.equal(await res.text(), "Internal error (id req-500)");
    assert.equal(lines.length, 1);
    const [line] = lines;
    assert.equal(line.level, "error");
    assert.equal(line.requestId, "req-500");
    assert.equal(line.route, "save");
    assert.equal(line.field, "pages:home:title");
    assert.equal(line.collection, "pages");
    assert.equal(line.status, 500);
    assert.equal(line.editor, "ed-7");
    assert.equal(typeof line.durationMs, "number");
    assert.ok(!Number.isNaN(Date.parse(line.time)));
    assert.match(line.error!.message, /pool exhausted/);
  } finally {
    setLogger(restore);
  }
});

Deno.test("logs: the JSON logger writes lines (info to stdout, warn/error through the console); a throwing logger breaks nothing", async () => {
  const out: string[] = [];
  const warned: string[] = [];
  const failed: string[] = [];
  const { stdout } = Deno;
  const { writeSync } = stdout;
  const { warn, error } = console;
  // A pipe may take a line in parts: this one takes 7 bytes at a time.
  stdout.writeSync = (bytes: Uint8Array) => {
    out.push(new TextDecoder().decode(bytes.subarray(0, 7)));
    return Math.min(7, bytes.length);
  };
  console.warn = (s: string) => warned.push(s);
  console.error = (s: string) => failed.push(s);
  try {
    jsonLines({ level: "info", msg: "hi", time: "t", requestId: "r" });
    jsonLines({ level: "warn", msg: "refused", time: "t", status: 413 });
    jsonLines({ level: "error", msg: "failed", time: "t", status: 500 });
  } finally {
    stdout.writeSync = writeSync;
    console.warn = warn;
    console.error = error;
  }
  // info: straight to stdout, one line, whole.
  assert.ok(out.join("").endsWith("\n"));
  assert.deepEqual(JSON.parse(out.join("")), {
    level: "info",
    msg: "hi",
    time: "t",
    requestId: "r",
  });
  // warn and error: through the console (Deno exports those to OTel).
  assert.equal(JSON.parse(warned[0]).status, 413);
  assert.equal(JSON.parse(failed[0]).status, 500);
  assert.equal(warned.length + failed.length, 2);
  const restore = setLogger(() => {
    throw new Error("logger down");
  });
  try {
    const handler = createSaveHandler({
      authorize: () => ({ name: "Ada" }),
      allowlist,
      store: new MemoryContentStore(),
    });
    const res = await handler(
      save({ collection: "pages", key: "home", field: "title", value: "x" }),
    );
    assert.equal(res.status, 204);
  } finally {
    setLogger(restore);
  }
});

Deno.test("logs: the demo's output holds no field value and no password, whatever the outcome", async () => {
  const lines: string[] = [];
  const restore = setLogger((l) => lines.push(JSON.stringify(l)));
  const captured: string[] = [];
  const { log, error, warn } = console;
  const keep = (...args: unknown[]) =>
    captured.push(args.map(String).join(" "));
  console.log = console.error = console.warn = keep;
  const dataDir = await Deno.makeTempDir({ prefix: "cms-log-" });
  const password = `pw-${crypto.randomUUID()}`;
  const demo = await startDemo({ port: 0, dataDir, password });
  try {
    // A wrong password and the right one.
    for (const pw of [`wrong-${crypto.randomUUID()}`, password]) {
      const res = await fetch(`${demo.url}/login`, {
        method: "POST",
        body: new URLSearchParams({ password: pw, next: "/" }),
        redirect: "manual",
      });
      await res.body?.cancel();
    }
    const login = await fetch(`${demo.url}/login`, {
      method: "POST",
      body: new URLSearchParams({ password, next: "/" }),
      redirect: "manual",
    });
    await login.body?.cancel();
    const cookie = login.headers.get("Set-Cookie")!.split(";")[0];
    const secrets: string[] = [password];
    const send = async (body: Record<string, unknown>) => {
      const res = await fetch(`${demo.url}/api/cms/save`, {
        method: "PATCH",
        headers: { Cookie: cookie, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      await res.body?.cancel();
      return res.status;
    };
    const base = { collection: "pages", key: "home" };
    // Values of every kind of outcome: 204, 409, 400 (bad field and bad
    // value), 413 and a rich value that the sanitizer cleans.
    const v = () => `secret-${crypto.randomUUID()}`;
    const plain = v(), rich = v(), conflict = v(), bad = v(), big = v();
    secrets.push(plain, rich, conflict, bad, big);
    assert.equal(await send({ ...base, field: "title", value: plain }), 204);
    assert.equal(
      await send({
        ...base,
        field: "body",
        value: `<p onclick="x()">${rich}</p>`,
      }),
      204,
    );
    assert.equal(
      await send({
        ...base,
        field: "title",
        value: conflict,
        version: "not-the-version",
      }),
      409,
    );
    assert.equal(await send({ ...base, field: "nope", value: bad }), 400);
    assert.equal(
      await send({ ...base, field: "title", value: big.repeat(40_000) }),
      413,
    );
    assert.ok(lines.length >= 5, "the requests were logged");
    const all = [...lines, ...captured].join("\n");
    for (const secret of secrets) {
      assert.ok(!all.includes(secret), `a log holds ${secret.slice(0, 12)}…`);
    }
    const saves = lines.map((l) => JSON.parse(l)).filter((l) =>
      l.route === "save"
    );
    assert.deepEqual(
      saves.map((l) => l.status),
      [204, 204, 409, 400, 413],
    );
    assert.ok(saves.slice(0, 3).every((l) => l.field && l.editor));
  } finally {
    await demo.close();
    console.log = log;
    console.error = error;
    console.warn = warn;
    setLogger(restore);
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("logs: the media endpoint's line names the editor, never the bytes", async () => {
  const lines: LogLine[] = [];
  const restore = setLogger((l) => lines.push(l));
  try {
    const media = createMediaHandler({
      authorize: () => ({ name: "Ada", id: "ed-9" }),
      storage: new MemoryMediaStorage(),
    });
    const res = await media(
      new Request("http://localhost/api/cms/media", {
        method: "POST",
        headers: { "Sec-Fetch-Site": "same-origin" },
        body: "not an image at all",
      }),
    );
    assert.equal(res.status, 415);
    await res.body?.cancel();
    assert.equal(lines.length, 1);
    assert.equal(lines[0].route, "media");
    assert.equal(lines[0].editor, "ed-9");
    assert.equal(lines[0].status, 415);
    assert.doesNotMatch(JSON.stringify(lines[0]), /not an image at all/);
  } finally {
    setLogger(restore);
  }
});
