/**
 * Bench: `mountCms()` on 1,000 plain markers in Chromium vs a bare loop on
 * the same page: `querySelectorAll`, read each marker's `data-cms-field`,
 * set `contentEditable`. Medians of alternating runs in the same page.
 *
 * - **mount**: how long `mountCms()` blocks the page (the session chunk
 *   loaded). Goal: ≤ 0.5× the bare loop. The mount touches no
 *   marker: regions are activated in slices in the next tasks, and the
 *   first input activates the rest at once.
 * - **ready**: until `ready` (every region editable, drafts checked), the
 *   slices and the task hops between them included. Reported.
 * - **first input**: a `mousedown` on the last marker right after the
 *   mount, before any slice ran: the whole activation in one go, the worst
 *   a first input waits. Reported.
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

/** Result in milliseconds (medians) and the ratios to the bare loop. */
export interface MountResult {
  markers: number;
  baselineMs: number;
  /** `mountCms()` until it returns. */
  mountMs: number;
  /** `mountCms()` until `ready`. */
  readyMs: number;
  /** A first input right after the mount. */
  firstInputMs: number;
  /** `mountMs / baselineMs`: the goal's ratio. */
  ratio: number;
}

/** The goal: the mount, at most this times the bare loop. */
export const GOAL = 0.5;

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
      // The mount as the page feels it: the main thread is blocked until
      // `mountCms()` returns (the session chunk is loaded: warm).
      const mount = async () => {
        const t = performance.now();
        const handle = w.cms.mountCms();
        const ms = performance.now() - t;
        const t2 = performance.now();
        await handle.ready;
        const ready = performance.now() - t2 + ms;
        handle.unmount();
        return [ms, ready];
      };
      // The worst first input: a pointer on the last marker right after
      // the mount, before any slice ran: every region is activated in it.
      const urgent = async () => {
        const handle = w.cms.mountCms();
        const last = document.querySelector<HTMLElement>(
          "[data-cms-field]:last-of-type",
        )!;
        const t = performance.now();
        last.dispatchEvent(new MouseEvent("mousedown", { bubbles: true }));
        const ms = performance.now() - t;
        const ok = last.isContentEditable;
        await handle.ready;
        handle.unmount();
        if (!ok) throw new Error("the first input did not activate");
        return ms;
      };
      await mount(); // warm-up: loads the session chunk once
      baseline();
      const b: number[] = [], m: number[] = [], r: number[] = [];
      const u: number[] = [];
      for (let i = 0; i < runs; i++) {
        b.push(baseline());
        const [ms, ready] = await mount();
        m.push(ms);
        r.push(ready);
        u.push(await urgent());
        await new Promise((r) => setTimeout(r, 20));
      }
      return { b, m, r, u };
    }, runs);
    const baselineMs = median(times.b), mountMs = median(times.m);
    return {
      markers,
      baselineMs,
      mountMs,
      readyMs: median(times.r),
      firstInputMs: median(times.u),
      ratio: mountMs / baselineMs,
    };
  } finally {
    await browser.close();
    await site.close();
    await Deno.remove(dist, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  const x = (ms: number) => (ms / r.baselineMs).toFixed(2) + "x";
  console.table([
    {
      case: "bare loop (query, read, contentEditable)",
      ms: r.baselineMs.toFixed(3),
      "× loop": "1.00x",
    },
    {
      case: `mountCms() on ${r.markers} markers (until it returns)`,
      ms: r.mountMs.toFixed(3),
      "× loop": x(r.mountMs),
    },
    {
      case: "  until ready (all regions editable; a frame between)",
      ms: r.readyMs.toFixed(3),
      "× loop": x(r.readyMs),
    },
    {
      case: "  a first input right after the mount",
      ms: r.firstInputMs.toFixed(3),
      "× loop": x(r.firstInputMs),
    },
  ]);
  console.log(
    `(median of 21 alternating runs, cross-origin isolated timers)\n` +
      `mountCms / bare loop: ${r.ratio.toFixed(2)}x (goal <= ${GOAL}x) ${
        r.ratio <= GOAL ? "OK" : "MISSED"
      }`,
  );
}
