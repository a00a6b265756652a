/**
 * The speed of the content checks (`checkContent`): a 7,000-word article
 * (headings, paragraphs with links and emphasis, lists, images, a table,
 * code, and a few findings) checked again and again in this thread. The
 * goal: median ≤ 20 ms, so a check after a pause in typing never stalls
 * the editor.
 *
 * Run: `deno run -A bench/checks.ts` (prints words, bytes, median and the
 * spread: fastest, 90th percentile, slowest).
 *
 * @module
 */
import { checkContent } from "../core/checks.ts";

/** The goal for the median, in milliseconds. */
export const GOAL_MS = 20;

const WORDS = ("the editor writes about gardens rivers and small towns while " +
  "readers follow every step from planning to harvest with notes on soil " +
  "water light and the patience a good season needs").split(" ");

/** A sentence of `n` words from a fixed list, starting at word `i`. */
function sentence(i: number, n: number): string {
  const words: string[] = [];
  for (let k = 0; k < n; k++) words.push(WORDS[(i * 7 + k * 3) % WORDS.length]);
  const text = words.join(" ");
  return text[0].toUpperCase() + text.slice(1) + ".";
}

/** Deterministic article HTML of at least `words` words. */
export function article(words: number): string {
  const parts: string[] = [];
  let count = 0;
  for (let i = 0; count < words; i++) {
    const s = [sentence(i, 12), sentence(i + 1, 9), sentence(i + 2, 14)];
    parts.push(`<h2>Part ${i + 1}</h2>`);
    parts.push(
      `<p>${s[0]} <a href="/guide/${i}">Our guide to part ${i + 1}</a> ` +
        `has <strong>more</strong> and <em>${s[1]}</em></p>`,
    );
    parts.push(`<h3>Details ${i + 1}</h3><p>${s[2]} ${s[0]}</p>`);
    parts.push(`<ul><li>${s[1]}</li><li>${s[2]}</li></ul>`);
    count += 3 + 12 + 5 + 9 + 2 + 14 + 12 + 9 + 14;
    if (i % 4 === 0) {
      parts.push(
        `<p><img src="/media/${i}.jpg" alt="Garden in part ${i}" ` +
          `width="800" height="600"></p>`,
      );
    }
    if (i % 10 === 0) {
      parts.push(
        `<table><tr><th>Month</th><th>Rain</th></tr>` +
          `<tr><td>May</td><td>${i} mm</td></tr></table>` +
          `<pre><code>plant --row ${i} --depth 2cm</code></pre>`,
      );
      count += 8;
    }
    if (i % 25 === 0) {
      // A few findings, as a real draft has.
      parts.push(
        `<p><a href="/more">read more</a></p><p></p><p><br></p>` +
          `<p>• one</p><p>• two</p><p>the the end</p>`,
      );
      count += 7;
    }
  }
  return parts.join("");
}

/** What one run measured. */
export interface ChecksBench {
  words: number;
  bytes: number;
  findings: number;
  medianMs: number;
  minMs: number;
  p90Ms: number;
  maxMs: number;
}

/** Checks a 7,000-word article `rounds` times after a warm-up. */
export function run(rounds = 60): ChecksBench {
  const html = article(7000);
  const words = html.replace(/<[^>]*>/g, " ").split(/\s+/).filter(Boolean)
    .length;
  let findings = 0;
  for (let i = 0; i < 10; i++) findings = checkContent(html).length;
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    checkContent(html);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, q)];
  return {
    words,
    bytes: html.length,
    findings,
    medianMs: at(Math.floor(rounds / 2)),
    minMs: times[0],
    p90Ms: at(Math.floor(rounds * 0.9)),
    maxMs: times[times.length - 1],
  };
}

if (import.meta.main) {
  const r = run();
  console.log(
    `checkContent, ${r.words} words (${r.bytes} bytes, ${r.findings} findings): ` +
      `median ${r.medianMs.toFixed(2)} ms (goal ≤ ${GOAL_MS} ms); ` +
      `fastest ${r.minMs.toFixed(2)}, p90 ${r.p90Ms.toFixed(2)}, ` +
      `slowest ${r.maxMs.toFixed(2)} ms`,
  );
}
