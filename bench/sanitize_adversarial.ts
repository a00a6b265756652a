/**
 * Adversarial sanitize benchmark: attribute floods, deep nesting, wide
 * unwrap, entity floods, comment floods and long attribute values at
 * growing sizes, through the server pipeline (`server/sanitize/dom.ts`, in
 * process, as the worker runs it). Prints time against size; a refused
 * value shows the status it got. Each size doubles the previous one, so a
 * linear pipeline shows a ratio near 2. Each kind ends with its worst
 * accepted case: the largest size the default limits accept (found by
 * bisecting with the limit scan), which must stay within 250 ms.
 *
 * Run: `deno run -A bench/sanitize_adversarial.ts`
 *
 * @module
 */
import {
  createDomSanitizer,
  HTML_LIMITS,
  scanLimits,
} from "../server/sanitize/mod.ts";

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
    const worst = largestAccepted(generate);
    if (worst !== undefined) {
      const html = generate(worst);
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        sanitize(html);
        times.push(performance.now() - started);
      }
      rows.push({
        kind: `${kind}, worst accepted`,
        bytes: html.length,
        result: `${median(times).toFixed(1)} ms`,
        ratio: "",
      });
    }
  }
  return rows;
}

/** The save endpoint's default body cap: no larger value arrives. */
const BODY_CAP = 1024 * 1024;

/**
 * The largest n (up to 2^17) whose input fits the body cap and the default
 * limits accept.
 */
function largestAccepted(generate: (n: number) => string): number | undefined {
  const accepted = (n: number) => {
    const html = generate(n);
    if (html.length > BODY_CAP) return false;
    try {
      scanLimits(html, HTML_LIMITS);
      return true;
    } catch {
      return false;
    }
  };
  let low = 1;
  let high = 1 << 17;
  if (!accepted(low)) return undefined;
  if (accepted(high)) return high;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (accepted(mid)) low = mid;
    else high = mid;
  }
  return low;
}

if (import.meta.main) console.table(await run());
