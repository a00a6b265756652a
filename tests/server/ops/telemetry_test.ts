/**
 * OpenTelemetry: the demo runs with Deno's built-in exporter
 * (`OTEL_DENO=true`, OTLP/HTTP JSON) against a receiver written here; the
 * spans and metrics of a save, a conflict and a refused upload arrive, and
 * the warning lines as logs tied to their traces.
 */
import assert from "node:assert/strict";
import { buildClient } from "../../../tools/build_client.ts";
import {
  type DemoProcess,
  login,
  spawnDemo,
  stopDemo,
} from "../../helpers/demo.ts";

const PASSWORD = "otel-test-password";

// deno-lint-ignore no-explicit-any
type Json = any;

/** OTLP attribute list → plain object. */
function attrs(list: Json[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? value.intValue ?? value.doubleValue ??
      value.boolValue;
  }
  return out;
}

/** Every span of the received trace exports. */
function spansOf(
  bodies: Json[],
): {
  name: string;
  traceId: string;
  startMs: number;
  endMs: number;
  attributes: Json;
}[] {
  return bodies.flatMap((b) =>
    (b.resourceSpans ?? []).flatMap((r: Json) =>
      (r.scopeSpans ?? []).flatMap((s: Json) =>
        (s.spans ?? []).map((span: Json) => ({
          name: span.name,
          traceId: span.traceId,
          startMs: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1000,
          endMs: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1000,
          attributes: attrs(span.attributes),
        }))
      )
    )
  );
}

/** Every log record of the received log exports: its text and trace id. */
function logsOf(bodies: Json[]): { text: string; traceId: string }[] {
  return bodies.flatMap((b) =>
    (b.resourceLogs ?? []).flatMap((r: Json) =>
      (r.scopeLogs ?? []).flatMap((s: Json) =>
        (s.logRecords ?? []).map((l: Json) => ({
          text: String(l.body?.stringValue ?? ""),
          traceId: l.traceId,
        }))
      )
    )
  );
}

/** Every data point of the received metric exports, by metric name. */
function pointsOf(bodies: Json[]): Map<string, Json[]> {
  const out = new Map<string, Json[]>();
  for (const b of bodies) {
    for (const r of b.resourceMetrics ?? []) {
      for (const s of r.scopeMetrics ?? []) {
        for (const m of s.metrics ?? []) {
          const points = (m.sum ?? m.histogram ?? m.gauge)?.dataPoints ?? [];
          const list = out.get(m.name) ?? [];
          list.push(...points.map((p: Json) => ({
            ...p,
            attributes: attrs(p.attributes),
          })));
          out.set(m.name, list);
        }
      }
    }
  }
  return out;
}

Deno.test({
  name:
    "otel: the demo exports spans and metrics of a save, a conflict and a refused upload over OTLP/HTTP JSON",
  sanitizeResources: false,
  async fn() {
    const received: Record<string, Json[]> = {
      "/v1/traces": [],
      "/v1/metrics": [],
      "/v1/logs": [],
    };
    const receiver = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async (req) => {
        const { pathname } = new URL(req.url);
        const type = req.headers.get("Content-Type") ?? "";
        const text = await req.text();
        if (pathname in received && type.includes("json")) {
          received[pathname].push(JSON.parse(text));
        }
        return Response.json({});
      },
    );
    const dataDir = await Deno.makeTempDir({ prefix: "cms-otel-" });
    const clientDir = await Deno.makeTempDir({ prefix: "cms-client-" });
    let demo: DemoProcess | undefined;
    try {
      await buildClient(clientDir);
      demo = await spawnDemo({
        CMS_DATA_DIR: dataDir,
        CMS_CLIENT_DIR: clientDir,
        CMS_EDITOR_PASSWORD: PASSWORD,
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.addr.port}`,
        OTEL_METRIC_EXPORT_INTERVAL: "500",
        OTEL_BSP_SCHEDULE_DELAY: "200",
        OTEL_BLRP_SCHEDULE_DELAY: "200",
        OTEL_SERVICE_NAME: "cms-demo",
      }, { stderr: "null" });
      const base = demo.url;
      const cookie = await login(base, PASSWORD);
      const testStarted = Date.now();
      const send = async (path: string, body: BodyInit, type: string) => {
        const res = await fetch(`${base}${path}`, {
          method: path.endsWith("save") ? "PATCH" : "POST",
          headers: { Cookie: cookie, "Content-Type": type },
          body,
        });
        await res.body?.cancel();
        return res.status;
      };
      const json = "application/json";
      const field = { collection: "pages", key: "home", field: "body" };
      assert.equal(
        await send(
          "/api/cms/save",
          JSON.stringify({ ...field, value: "<p>Hello <b>OTel</b></p>" }),
          json,
        ),
        204,
      );
      assert.equal(
        await send(
          "/api/cms/save",
          JSON.stringify({ ...field, value: "<p>x</p>", version: "stale" }),
          json,
        ),
        409,
      );
      assert.equal(
        await send("/api/cms/media", "not an image at all", "image/png"),
        415,
      );

      // Wait (bounded) for the exports: a sanitize span, and the counters.
      const want = () => {
        const spans = spansOf(received["/v1/traces"]);
        const points = pointsOf(received["/v1/metrics"]);
        return spans.some((s) => s.name === "cms.media") &&
          spans.some((s) => s.name === "cms.sanitize") &&
          (points.get("cms.refusals") ?? []).length > 0 &&
          (points.get("cms.conflicts") ?? []).length > 0 &&
          logsOf(received["/v1/logs"]).some((l) =>
            l.text.includes('"status":409')
          );
      };
      for (let i = 0; i < 100 && !want(); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }

      const spans = spansOf(received["/v1/traces"]);
      const saves = spans.filter((s) => s.name === "cms.save");
      const outcomes = saves.map((s) => s.attributes["cms.outcome"]).sort();
      assert.deepEqual(outcomes, ["204", "409"]);
      for (const s of saves) {
        // Spans go to the exporter in batches, with the times they had.
        assert.ok(s.startMs >= testStarted - 1 && s.endMs <= Date.now());
        assert.ok(s.endMs > s.startMs, "a save span lasts");
        assert.equal(s.attributes["cms.collection"], "pages");
        assert.equal(s.attributes["cms.field"], "pages:home:body");
        assert.ok(Number(s.attributes["cms.body.size"]) > 0);
        assert.ok(s.attributes["cms.request_id"]);
      }
      const sanitize = spans.filter((s) => s.name === "cms.sanitize");
      assert.ok(sanitize.length >= 2, "one sanitize span per rich save");
      assert.ok(sanitize.every((s) => s.attributes["cms.outcome"] === "ok"));
      assert.ok(
        sanitize.every((s) => Number(s.attributes["cms.body.size"]) > 0),
      );
      const media = spans.find((s) => s.name === "cms.media");
      assert.equal(media?.attributes["http.response.status_code"], 415);
      assert.equal(media?.attributes["cms.reason"], "unsupported_type");
      assert.equal(media?.attributes["cms.body.size"], 19);

      const points = pointsOf(received["/v1/metrics"]);
      const total = (name: string, match: Record<string, unknown>) =>
        (points.get(name) ?? []).filter((p) =>
          Object.entries(match).every(([k, v]) => p.attributes[k] === v)
        ).reduce(
          (max: number, p: Json) =>
            Math.max(max, Number(p.asInt ?? p.asDouble ?? p.count ?? 0)),
          0,
        );
      assert.equal(total("cms.saves", { outcome: "204" }), 1);
      assert.equal(total("cms.saves", { outcome: "409" }), 1);
      assert.equal(total("cms.conflicts", { collection: "pages" }), 1);
      assert.equal(
        total("cms.refusals", {
          endpoint: "media",
          reason: "unsupported_type",
        }),
        1,
      );
      assert.ok(total("cms.sanitize.duration", { outcome: "ok" }) >= 2);
      assert.equal(total("cms.upload.size", { status: 415 }), 1);
      // Warning and error lines go out as OTel logs, tied to the request's
      // trace; info lines stay on stdout (the span holds the same facts).
      const logs = logsOf(received["/v1/logs"]);
      const conflictLog = logs.find((l) => l.text.includes('"status":409'));
      const conflictSpan = saves.find((s) =>
        s.attributes["cms.outcome"] === "409"
      );
      assert.ok(conflictLog?.traceId, "the 409 line has a trace id");
      assert.equal(conflictLog.traceId, conflictSpan?.traceId);
      assert.ok(logs.some((l) => l.text.includes('"status":415')));
      assert.ok(!logs.some((l) => l.text.includes('"status":204')));
    } finally {
      if (demo) await stopDemo(demo, "SIGKILL");
      await receiver.shutdown();
      await Deno.remove(dataDir, { recursive: true });
      await Deno.remove(clientDir, { recursive: true });
    }
  },
});
