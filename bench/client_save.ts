/**
 * Bench: in Chromium, against a local server running the real save handler
 * (memory store), the time for Save with 50 changed fields (50 PATCH
 * requests through the client's model) vs the floor: 50 bare concurrent
 * `fetch` PATCHes of the same bodies to a 204 route of the same server, in
 * the same page and run (goal ≤ 1.2×). Save with one changed field is
 * reported for context. Median of alternating runs.
 *
 * Run: `deno run -A bench/client_save.ts`
 *
 * @module
 */
import { launch } from "../tests/helpers/browser.ts";
import {
  buildTempBundle,
  median,
  type PageGlobals,
} from "../tests/helpers/client_page.ts";
import { serve } from "../tests/helpers/serve.ts";
import { createSaveHandler } from "../server/save/mod.ts";
import { MemoryContentStore } from "../server/store/mod.ts";
import { setLogger } from "../server/ops/mod.ts";

/** Medians in milliseconds and their ratios. */
export interface SaveResult {
  fields: number;
  /** Save with one changed field. */
  oneMs: number;
  /** Save with `fields` changed fields. */
  manyMs: number;
  /** Network floor: `fields` concurrent bare fetches to a 204 route. */
  bareManyMs: number;
  /** `manyMs / bareManyMs` (goal ≤ 1.2). */
  ratio: number;
  /** Save requests answered in the run (all 204). */
  requests: number;
}

/** Runs the bench and returns medians. */
export async function run(fields = 50, runs = 15): Promise<SaveResult> {
  const names = Array.from({ length: fields }, (_, i) => `f${i}`);
  const dist = await buildTempBundle();
  const store = new MemoryContentStore({
    "bench:page": Object.fromEntries(names.map((n) => [n, `Value ${n}`])),
  });
  // The bare 204 route writes no log line; the handler's request log is
  // silenced so both sides do the same server I/O (the handler's own work,
  // store and sanitizing included, stays in the measured time).
  const restoreLogger = setLogger(() => {});
  const save = createSaveHandler({
    authorize: () => ({ name: "Ada" }),
    store,
    allowlist: { bench: Object.fromEntries(names.map((n) => [n, "plain"])) },
  });
  const statuses: number[] = [];
  const page = `<!doctype html><meta charset="utf-8"><title>Bench</title>${
    names.map((n) => `<p data-cms-field="bench:page:${n}">Value ${n}</p>`)
      .join("")
  }<script type="module">import * as cms from "/dist/mod.js"; window.cmsHandle = cms.mountCms();</script>`;
  const isolated = {
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-embedder-policy": "require-corp",
  };
  const site = serve(async (req) => {
    const { pathname } = new URL(req.url);
    if (pathname === "/api/cms/save") {
      const res = await save(req);
      statuses.push(res.status);
      return res;
    }
    if (pathname === "/noop") return new Response(null, { status: 204 });
    if (pathname === "/dist/mod.js" || /^\/dist\/[\w-]+\.js$/.test(pathname)) {
      const js = await Deno.readFile(dist + pathname.slice(5)).catch(() =>
        null
      );
      if (js) {
        return new Response(js, {
          headers: { "content-type": "text/javascript", ...isolated },
        });
      }
    }
    if (pathname === "/") {
      return new Response(page, {
        headers: { "content-type": "text/html", ...isolated },
      });
    }
    return new Response("Not found", { status: 404 });
  });
  const browser = await launch("chromium");
  try {
    const tab = await browser.newPage();
    await tab.goto(site.url + "/");
    const times = await tab.evaluate(async (runs: number) => {
      const w = globalThis as unknown as PageGlobals;
      await w.cmsHandle.ready;
      const els = [
        ...document.querySelectorAll<HTMLElement>("[data-cms-field]"),
      ];
      let n = 0;
      const saveAfterEditing = async (count: number) => {
        n++;
        for (const el of els.slice(0, count)) {
          el.textContent = `Edit ${n}`;
          el.dispatchEvent(new InputEvent("input", { bubbles: true }));
        }
        const t = performance.now();
        await w.cmsHandle.save();
        return performance.now() - t;
      };
      const bare = async (count: number) => {
        const t = performance.now();
        await Promise.all(
          els.slice(0, count).map((el, i) =>
            fetch("/noop", {
              method: "PATCH",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                collection: "bench",
                key: "page",
                field: `f${i}`,
                value: el.textContent,
                version: "0123456789",
              }),
            }).then((r) => r.text())
          ),
        );
        return performance.now() - t;
      };
      await saveAfterEditing(els.length); // warm-up
      await bare(els.length);
      const one: number[] = [], many: number[] = [], bareMany: number[] = [];
      for (let i = 0; i < runs; i++) {
        one.push(await saveAfterEditing(1));
        many.push(await saveAfterEditing(els.length));
        bareMany.push(await bare(els.length));
      }
      return { one, many, bareMany };
    }, runs);
    const bad = statuses.filter((s) => s !== 204).length;
    if (bad) throw new Error(`${bad} saves failed`);
    const manyMs = median(times.many), bareManyMs = median(times.bareMany);
    return {
      fields,
      oneMs: median(times.one),
      manyMs,
      bareManyMs,
      ratio: manyMs / bareManyMs,
      requests: statuses.length,
    };
  } finally {
    setLogger(restoreLogger);
    await browser.close();
    await site.close();
    await Deno.remove(dist, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  console.table([
    { case: "Save, 1 changed field", ms: r.oneMs.toFixed(2) },
    { case: `Save, ${r.fields} changed fields`, ms: r.manyMs.toFixed(2) },
    {
      case: `bare fetch x${r.fields} (204 route)`,
      ms: r.bareManyMs.toFixed(2),
    },
  ]);
  console.log(
    `(median of 15 alternating runs; ${r.requests} save requests, all 204)\n` +
      `Save ${r.fields} / bare ${r.fields}: ${r.ratio.toFixed(2)}x ` +
      `(goal <= 1.2x) ${r.ratio <= 1.2 ? "OK" : "MISSED"}`,
  );
}
