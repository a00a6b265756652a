/**
 * The whole pipeline (`createDomSanitizer`, in this thread: the limits
 * counted inside jsdom's one parse) and, for comparison, the standalone
 * count (`scanLimits`, a parse of its own, which the pipeline uses only
 * where it can't count inside jsdom's parse), on typical rich HTML and on
 * the hostile shapes the limits exist for, each at its worst: the largest
 * size the body cap lets in, or the largest the default limits accept.
 * Prints the median milliseconds of each and what the pipeline answered, so
 * two versions can be compared on the same machine.
 *
 * Run: `deno run -A bench/sanitize_limits.ts`
 *
 * @module
 */
import {
  createDomSanitizer,
  HTML_LIMITS,
  scanLimits,
} from "../server/sanitize/mod.ts";
import { richHtml } from "./sanitize_ratio.ts";

/** One measured input. */
export interface LimitsRow {
  /** The input. */
  kind: string;
  /** Its size in bytes. */
  bytes: number;
  /** Median ms of the standalone count, `scanLimits`. */
  checkMs: string;
  /** Median ms of the whole pipeline (the counted parse, the policy). */
  pipelineMs: string;
  /** "accepted", or the refusal's status. */
  answer: string;
}

/** The save endpoint's default body cap. */
const MB = 1024 * 1024;

const attrs = (n: number) =>
  Array.from({ length: n }, (_, i) => `a${i}=x`).join(" ");
const bold = Array.from({ length: 200 }, (_, i) => `<b id=${i}>`).join("");

/** The inputs: typical first, then each hostile shape. */
export const INPUTS: Record<string, () => string> = {
  "typical 10 KB": () => richHtml(10_000),
  "typical 100 KB": () => richHtml(100_000),
  "formatting reopen bomb 10 KB": () =>
    "<p>" + bold + "x" + "<p>y".repeat(2000),
  "formatting reopen bomb 1 MB": () =>
    ("<p>" + bold + "x" + "<p>y".repeat(MB / 4)).slice(0, MB),
  "deep nesting 100k": () => "<b>".repeat(100_000),
  "deep nesting 1 MB": () => "<b>".repeat(MB / 3),
  "deepest accepted, 8,700 leaves": () =>
    "<b>".repeat(HTML_LIMITS.depth - 3) + "<i>x</i>".repeat(4_350),
  "40k attributes, one element": () => `<p ${attrs(40_000)}>t</p>`,
  "170k attributes, one element": () => `<p ${attrs(170_000)}>t</p>`,
  "1 MB of one repeated attribute": () => `<p ${"a ".repeat(MB / 2)}>t</p>`,
  "attributes, many elements (20k)": () =>
    "<b a b c d e f g h>x</b>".repeat(2_500),
  "wide unwrap, 9,000 nodes": () =>
    "<div>".repeat(100) + "<i>w</i> ".repeat(2_960),
  "comment flood, 9,001": () => "<!---->".repeat(HTML_LIMITS.nodes + 1),
  "misnested formatting (adoption)": () => "<b><p>x</b>".repeat(2_900),
  "entity flood 1 MB": () => "<p>" + "&amp;&lt;&#x27;".repeat(MB / 15),
  "long attribute value 1 MB": () => `<a href="/${"x".repeat(MB - 20)}">z</a>`,
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Times `fn` `runs` times; the median, and the error it threw if any. */
function time(fn: () => unknown, runs: number): [number, unknown] {
  const times: number[] = [];
  let thrown: unknown;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    try {
      fn();
    } catch (error) {
      thrown = error;
    }
    times.push(performance.now() - started);
  }
  return [median(times), thrown];
}

/** Measures every input: `runs` timings each of the check and the pipeline. */
export async function run(runs = 7): Promise<LimitsRow[]> {
  const sanitize = await createDomSanitizer();
  const rows: LimitsRow[] = [];
  for (const [kind, generate] of Object.entries(INPUTS)) {
    const html = generate();
    const [checkMs, scanned] = time(() => scanLimits(html, HTML_LIMITS), runs);
    const [pipelineMs, refused] = time(() => sanitize(html), runs);
    const answer = (error: unknown) =>
      error
        ? `refused ${(error as { status?: number }).status ?? "?"}`
        : "accepted";
    rows.push({
      kind,
      bytes: html.length,
      checkMs: checkMs.toFixed(1),
      pipelineMs: pipelineMs.toFixed(1),
      answer: answer(refused) === answer(scanned)
        ? answer(refused)
        : `${answer(refused)} (the scan: ${answer(scanned)})`,
    });
  }
  return rows;
}

if (import.meta.main) console.table(await run());
