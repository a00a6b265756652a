/**
 * Bench: `mountCms()` on 1,000 plain markers in Chromium vs a bare loop on
 * the same page: `querySelectorAll`, read each marker's `data-cms-field`,
 * set `contentEditable`. The mount is measured up to `ready` (regions
 * editable, the edit bar in the page, drafts checked). Median of several
 * alternating runs; both measured in the same page.
 *
 * The goal (issue 20: "stays ≤ 0.5× the bare loop") is read as the mount's
 * overhead: the mount does the bare loop's work too, so what it adds on top
 * of the loop must stay ≤ 0.5× the loop, i.e. the whole mount ≤ 1.5× it.
 *
 * Run: `deno run -A bench/client_mount.ts`
 *
 * @module
 */
import { launch } from "../tests/helpers/browser.ts";
import {
  buildTempBundle,
  median,
  type PageGlobals,
  startClientSite,
} from "../tests/helpers/client_page.ts";

/** Result in milliseconds (medians) and their ratio. */
export interface MountResult {
  markers: number;
  baselineMs: number;
  mountMs: number;
  /** `mountMs / baselineMs`. */
  ratio: number;
  /** What the mount adds to the loop, against the loop: `ratio - 1`. */
  overhead: number;
}

/** The goal: the mount's overhead over the bare loop, at most this. */
export const GOAL_OVERHEAD = 0.5;

/** Runs the bench and returns medians. */
export async function run(markers = 1000, runs = 21): Promise<MountResult> {
  const body = Array.from(
    { length: markers },
    (_, i) => `<p data-cms-field="pages:bench:f${i}">Paragraph ${i}</p>`,
  ).join("\n");
  const dist = await buildTempBundle();
  const site = startClientSite({
    dist,
    pages: { "/": () => body },
    script: `import * as cms from "/dist/mod.js"; window.cms = cms;`,
    isolated: true,
  });
  const browser = await launch("chromium");
  try {
    const page = await browser.newPage();
    await page.goto(site.url + "/");
    const times = await page.evaluate(async (runs: number) => {
      const w = globalThis as unknown as PageGlobals;
      // What any mount must do: find the markers, read each address, make
      // each region editable. Indexed, like `findMarkers` (a NodeList's
      // iterator costs more than the rest of this loop).
      const ids: (string | null)[] = [];
      const baseline = () => {
        const t = performance.now();
        const els = document.querySelectorAll<HTMLElement>("[data-cms-field]");
        for (let i = 0, n = els.length; i < n; i++) {
          const el = els[i];
          ids[i] = el.getAttribute("data-cms-field");
          el.contentEditable = "plaintext-only";
        }
        const ms = performance.now() - t;
        for (const el of els) el.removeAttribute("contenteditable");
        return ms;
      };
      const mount = async () => {
        const t = performance.now();
        const handle = w.cms.mountCms();
        await handle.ready;
        const ms = performance.now() - t;
        handle.unmount();
        return ms;
      };
      await mount(); // warm-up: loads the session chunk once
      baseline();
      const b: number[] = [], m: number[] = [];
      for (let i = 0; i < runs; i++) {
        b.push(baseline());
        m.push(await mount());
        await new Promise((r) => setTimeout(r, 20));
      }
      return { b, m };
    }, runs);
    const baselineMs = median(times.b), mountMs = median(times.m);
    const ratio = mountMs / baselineMs;
    return { markers, baselineMs, mountMs, ratio, overhead: ratio - 1 };
  } finally {
    await browser.close();
    await site.close();
    await Deno.remove(dist, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  console.table([
    {
      case: "bare loop (query, read, contentEditable)",
      ms: r.baselineMs.toFixed(2),
    },
    { case: `mountCms() on ${r.markers} markers`, ms: r.mountMs.toFixed(2) },
  ]);
  console.log(
    `(median of 21 alternating runs, cross-origin isolated timers)\n` +
      `ratio mountCms / bare loop: ${r.ratio.toFixed(2)}x\n` +
      `overhead (mount - loop) / loop: ${r.overhead.toFixed(2)}x ` +
      `(goal <= ${GOAL_OVERHEAD}x, i.e. mount <= ${
        1 + GOAL_OVERHEAD
      }x the loop) ${r.overhead <= GOAL_OVERHEAD ? "OK" : "MISSED"}`,
  );
}
