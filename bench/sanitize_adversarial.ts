/**
 * Adversarial sanitize benchmark: attribute floods, deep nesting, wide
 * unwrap, entity floods, comment floods and long attribute values at
 * growing sizes, through the server pipeline (`server/sanitize_dom.ts`, in
 * process, as the worker runs it). Prints time against size; a refused
 * value shows the status it got. Each size doubles the previous one, so a
 * linear pipeline shows a ratio near 2.
 *
 * Run: `deno run -A bench/sanitize_adversarial.ts`
 *
 * @module
 */
import { createDomSanitizer } from "../server/sanitize_dom.ts";

/** One measured point. */
export interface AdversarialRow {
  /** The generator. */
  kind: string;
  /** Input size in bytes. */
  bytes: number;
  /** Median milliseconds, or the refusal status. */
  result: string;
  /** Time over the previous size's time (linear: about 2). */
  ratio: string;
}

const GENERATORS: Record<string, (n: number) => string> = {
  "attribute flood (one element)": (n) =>
    "<p " + Array.from({ length: n }, (_, i) => `a${i}=x`).join(" ") + ">t</p>",
  "attribute flood (many elements)": (n) =>
    "<b a b c d e f g h>x</b>".repeat(n / 8),
  "deep nesting": (n) => "<b>".repeat(n) + "x",
  "wide unwrap": (n) => "<div>".repeat(100) + "<i>w</i> ".repeat(n / 3),
  "entity flood": (n) => "<p>" + "&amp;&lt;&#x27;".repeat(n) + "</p>",
  "comment flood": (n) => "<p>a</p><!--c-->".repeat(n / 2),
  "long attribute value": (n) =>
    `<a href="/${"x".repeat(n * 100)}" title="${"y".repeat(n * 100)}">z</a>`,
};
const SIZES = [250, 500, 1000, 2000, 4000, 8000];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Measures every generator at every size. */
export async function run(): Promise<AdversarialRow[]> {
  const sanitize = await createDomSanitizer();
  const rows: AdversarialRow[] = [];
  for (const [kind, generate] of Object.entries(GENERATORS)) {
    let previous: number | undefined;
    for (const n of SIZES) {
      const html = generate(n);
      const times: number[] = [];
      let refused: string | undefined;
      for (let i = 0; i < 5 && refused === undefined; i++) {
        const started = performance.now();
        try {
          sanitize(html);
        } catch (error) {
          refused = `refused ${(error as { status?: number }).status ?? "?"}`;
        }
        times.push(performance.now() - started);
      }
      const ms = median(times);
      rows.push({
        kind,
        bytes: html.length,
        result: refused
          ? `${refused} in ${ms.toFixed(1)} ms`
          : `${ms.toFixed(1)} ms`,
        ratio: previous === undefined || refused
          ? ""
          : `${(ms / previous).toFixed(2)}x`,
      });
      previous = refused ? undefined : ms;
    }
  }
  return rows;
}

if (import.meta.main) console.table(await run());
