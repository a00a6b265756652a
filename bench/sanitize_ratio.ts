/**
 * The sanitize speed ratio for `bench/run.ts`: the server pipeline
 * (`createDomSanitizer`, in this thread) against bare DOMPurify on jsdom
 * (default configuration, no hooks) on the same 10 KB of typical rich HTML,
 * measured interleaved in the same run (median of rounds, so load spikes
 * hit both sides). The goal: ≤ 1.1×.
 *
 * Run: `deno run -A bench/sanitize_ratio.ts`
 *
 * @module
 */
import { JSDOM } from "jsdom";
import createDOMPurify, { type WindowLike } from "dompurify";
import { createDomSanitizer } from "../server/sanitize/mod.ts";

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
  /** Median ms of the server pipeline per 10 KB value. */
  pipelineMs: number;
  /** Median ms of bare DOMPurify on jsdom per 10 KB value. */
  bareMs: number;
  /** pipelineMs / bareMs. */
  ratio: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Measures both, interleaved: `rounds` rounds of `batch` values each. */
export async function run(rounds = 30, batch = 10): Promise<SanitizeRatio> {
  const html = richHtml(10_000);
  const bare = createDOMPurify(new JSDOM("").window as unknown as WindowLike);
  const pipeline = await createDomSanitizer();
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

if (import.meta.main) console.log(await run());
