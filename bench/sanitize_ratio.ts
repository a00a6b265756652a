/**
 * The sanitize speed ratio for `bench/run.ts`: the server pipeline
 * (`createDomSanitizer`, in this thread: limits counted in the parse, the
 * policy's hooks, the removal count) against bare DOMPurify on the same
 * jsdom window with the same configuration (`SANITIZER_POLICY`) and no
 * hooks, on the same typical rich HTML, measured interleaved in the same
 * run (median of the per-round ratios, so load spikes hit both sides). The
 * goals: ≤ 1.1× at 10 KB, ≤ 1.0× at 100 KB.
 *
 * Run: `deno run -A bench/sanitize_ratio.ts [bytes …]` (default 10000 and
 * 100000); `CMS_BENCH_RUNS=5` repeats each size and prints median and spread.
 *
 * @module
 */
import { JSDOM } from "jsdom";
import createDOMPurify, { type WindowLike } from "dompurify";
import { createDomSanitizer } from "../server/sanitize/mod.ts";
import { SANITIZER_POLICY } from "../core/sanitizer.ts";

/** Deterministic rich HTML of about `bytes` length, with some junk to strip. */
export function richHtml(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    let block = `<h2>Section ${i}</h2>` +
      `<p>Lorem ipsum <b>dolor</b> sit amet, <a href="/page/${i}">consectetur</a>` +
      ` adipiscing <em>elit</em>, sed do <span style="color:red" class="x">eiusmod</span>` +
      ` tempor incididunt ut <strong>labore</strong> et dolore magna aliqua.</p>` +
      `<ul><li>First point ${i}</li><li>Second <code>code()</code></li>` +
      `<li><a href="https://example.com/${i}" target="_blank" onclick="track()">link</a></li></ul>`;
    if (i % 3 === 0) {
      block +=
        `<p><img src="/media/${i}.jpg" width="640" height="480" alt="Photo ${i}"></p>`;
    }
    if (i % 10 === 0) {
      block += `<!-- pasted --><script>alert(${i})</script>` +
        `<div><img src="data:image/png;base64,AAAA" width="1" height="1"></div>`;
    }
    parts.push(block);
    size += block.length;
  }
  return parts.join("");
}

/** The measured medians and their ratio. */
export interface SanitizeRatio {
  /** Median ms of the server pipeline per value. */
  pipelineMs: number;
  /** Median ms of bare DOMPurify on jsdom per value. */
  bareMs: number;
  /** pipelineMs / bareMs. */
  ratio: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Measures both on `bytes` of rich HTML, interleaved: `rounds` rounds of
 * `batch` values each.
 */
export async function run(
  rounds = 30,
  batch = 10,
  bytes = 10_000,
): Promise<SanitizeRatio> {
  const html = richHtml(bytes);
  const { window } = new JSDOM("<!DOCTYPE html>");
  // Two DOMPurify instances on one window: hooks belong to an instance.
  const purify = createDOMPurify(window as unknown as WindowLike);
  const bare = {
    sanitize: (s: string) => purify.sanitize(s, SANITIZER_POLICY),
  };
  const pipeline = await createDomSanitizer(window);
  const time = (fn: () => unknown) => {
    const started = performance.now();
    for (let i = 0; i < batch; i++) fn();
    return (performance.now() - started) / batch;
  };
  for (let i = 0; i < 5; i++) time(() => bare.sanitize(html)); // warm up
  for (let i = 0; i < 5; i++) time(() => pipeline(html));
  const bareTimes: number[] = [];
  const pipelineTimes: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // Back to the event loop between rounds: jsdom tracks each document in
    // WeakRefs, which hold their targets until the current job ends, so a
    // loop that never yields keeps every parsed document alive.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const b = time(() => bare.sanitize(html));
    const p = time(() => pipeline(html));
    bareTimes.push(b);
    pipelineTimes.push(p);
    ratios.push(p / b);
  }
  return {
    pipelineMs: median(pipelineTimes),
    bareMs: median(bareTimes),
    ratio: median(ratios),
  };
}

if (import.meta.main) {
  const sizes = Deno.args.length > 0
    ? Deno.args.map(Number)
    : [10_000, 100_000];
  const runs = Number(Deno.env.get("CMS_BENCH_RUNS") ?? 1);
  for (const bytes of sizes) {
    const ratios: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await run(30, bytes >= 50_000 ? 2 : 10, bytes);
      ratios.push(r.ratio);
      console.log(bytes, r);
    }
    if (runs > 1) {
      const sorted = [...ratios].sort((a, b) => a - b);
      console.log(
        `${bytes} B: median ${median(ratios).toFixed(3)}x over ${runs} runs ` +
          `(${sorted[0].toFixed(3)}–${sorted[runs - 1].toFixed(3)})`,
      );
    }
  }
}
