/**
 * Bench: in Chromium, against a local server running the real save handler,
 * the time for Save with 50 changed fields (50 PATCH requests, bounded
 * concurrency) vs Save with one changed field (goal ≤ 1.5×). Median of
 * several alternating runs.
 *
 * Run: `deno run -A bench/client_save.ts`
 *
 * @module
 */
import {
  median,
  type PageGlobals,
  withClientSite,
} from "../tests/helpers/client_page.ts";

/** Medians in milliseconds and their ratios. */
export interface SaveResult {
  fields: number;
  /** Save with one changed field. */
  oneMs: number;
  /** Save with `fields` changed fields. */
  manyMs: number;
  /** `manyMs / oneMs` (goal ≤ 1.5). */
  ratio: number;
  /** Network floor: `fields` concurrent bare fetches to a 204 route. */
  bareManyMs: number;
  /** One bare fetch to a 204 route. */
  bareOneMs: number;
  /** Save requests answered in the run (all 204). */
  requests: number;
}

/** Runs the bench and returns medians. */
export async function run(fields = 50, runs = 9): Promise<SaveResult> {
  const names = Array.from({ length: fields }, (_, i) => `f${i}`);
  return await withClientSite({
    allowlist: { bench: Object.fromEntries(names.map((n) => [n, "plain"])) },
    seed: {
      "bench:page": Object.fromEntries(names.map((n) => [n, `Value ${n}`])),
    },
    pages: {
      "/": () =>
        names.map((n) => `<p data-cms-field="bench:page:${n}">Value ${n}</p>`)
          .join("\n"),
    },
    script:
      `import * as cms from "/dist/mod.js"; window.cmsHandle = cms.mountCms();`,
    isolated: true,
  }, async (site, browser) => {
    const page = await browser.newPage();
    await page.goto(site.url + "/");
    const times = await page.evaluate(async (runs: number) => {
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
          Array.from(
            { length: count },
            () => fetch("/noop", { method: "PATCH", body: "{}" }),
          ),
        );
        return performance.now() - t;
      };
      await saveAfterEditing(els.length); // warm-up
      await bare(els.length);
      const one: number[] = [], many: number[] = [];
      const bareOne: number[] = [], bareMany: number[] = [];
      for (let i = 0; i < runs; i++) {
        one.push(await saveAfterEditing(1));
        many.push(await saveAfterEditing(els.length));
        bareOne.push(await bare(1));
        bareMany.push(await bare(els.length));
      }
      return { one, many, bareOne, bareMany };
    }, runs);
    const oneMs = median(times.one), manyMs = median(times.many);
    const bad = site.saves.filter((s) => s.status !== 204).length;
    if (bad) throw new Error(`${bad} saves failed`);
    return {
      fields,
      oneMs,
      manyMs,
      ratio: manyMs / oneMs,
      bareOneMs: median(times.bareOne),
      bareManyMs: median(times.bareMany),
      requests: site.saves.length,
    };
  });
}

if (import.meta.main) {
  const r = await run();
  console.table([
    { case: "Save, 1 changed field", ms: r.oneMs.toFixed(2) },
    { case: `Save, ${r.fields} changed fields`, ms: r.manyMs.toFixed(2) },
    { case: "bare fetch x1 (204 route)", ms: r.bareOneMs.toFixed(2) },
    {
      case: `bare fetch x${r.fields} (204 route)`,
      ms: r.bareManyMs.toFixed(2),
    },
  ]);
  console.log(
    `(median of 9 alternating runs; ${r.requests} save requests, all 204)\n` +
      `ratio Save ${r.fields} / Save 1: ${r.ratio.toFixed(2)}x (goal <= 1.5x) ${
        r.ratio <= 1.5 ? "OK" : "MISSED"
      }\n` +
      `network floor, bare ${r.fields} / bare 1: ${
        (r.bareManyMs / r.bareOneMs).toFixed(2)
      }x; Save ${r.fields} / bare ${r.fields}: ${
        (r.manyMs / r.bareManyMs).toFixed(2)
      }x`,
  );
}
