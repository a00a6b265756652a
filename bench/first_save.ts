/**
 * Warm start: in a new process, a save endpoint with a rich field is
 * created, then (as an editor would arrive) the first rich save is sent a
 * few seconds later. Its time is compared with the median of the next 10
 * saves in the same process. Goal: ≤ 3× (the sanitizer's workers warm up
 * in the background when the handler is created; before, it was ~100×).
 * The machine is shared, so it runs 7 processes; each one's ratio compares
 * neighbours in time (its first save with its own next 10), and the median
 * of those ratios is reported.
 *
 * Run: `deno run -A bench/first_save.ts`
 *
 * @module
 */
import { createSaveHandler } from "../server/save/mod.ts";
import { MemoryContentStore } from "../server/store/mod.ts";
import { setLogger } from "../server/ops/mod.ts";

/** What the runs measured. */
export interface FirstSaveResult {
  /** The first rich save, ms (median over the processes). */
  firstMs: number;
  /** Median of the next 10, ms (median over the processes). */
  medianMs: number;
  /** Median over the processes of each one's first / its next-10 median. */
  ratio: number;
  /** How long after start the first save was sent, ms. */
  delayMs: number;
}

const DELAY_MS = 3_000;
const NEXT = 10;
const PROCESSES = 7;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
};

const value = (i: number) =>
  (`<h2>Section ${i}</h2><p>Some <b>bold</b> and <em>emphasis</em>, ` +
    `<a href="https://example.com/${i}" target="_blank">a link</a>.</p>` +
    `<div><span>Pasted</span> from a word processor</div><ul>` +
    `<li>One</li><li>Two</li></ul><img src="/media/a.png" width="640" ` +
    `height="480" alt="Photo ${i}" srcset="/media/a-480w.webp 480w" ` +
    `sizes="100vw"><script>x()</script>`).repeat(3);

/** The child: start, wait like an editor, then time the saves. */
async function child(): Promise<void> {
  setLogger(() => {});
  const save = createSaveHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { body: "rich" } },
    store: new MemoryContentStore(),
    mediaBase: "/media/",
  });
  await new Promise((r) => setTimeout(r, DELAY_MS));
  const times: number[] = [];
  for (let i = 0; i <= NEXT; i++) {
    const started = performance.now();
    const res = await save(
      new Request("http://127.0.0.1/api/cms/save", {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          collection: "pages",
          key: `p${i}`,
          field: "body",
          value: value(i),
        }),
      }),
    );
    times.push(performance.now() - started);
    if (res.status !== 204) throw new Error(`save answered ${res.status}`);
  }
  console.log(JSON.stringify(times));
}

/** Runs the child {@linkcode PROCESSES} times and returns the medians. */
export async function run(): Promise<FirstSaveResult> {
  const firsts: number[] = [];
  const nexts: number[] = [];
  const ratios: number[] = [];
  for (let p = 0; p < PROCESSES; p++) {
    const { success, stdout, stderr } = await new Deno.Command(
      Deno.execPath(),
      {
        args: ["run", "-A", new URL(import.meta.url).pathname, "--child"],
        stdout: "piped",
        stderr: "piped",
      },
    ).output();
    if (!success) throw new Error(new TextDecoder().decode(stderr));
    const times = JSON.parse(new TextDecoder().decode(stdout)) as number[];
    firsts.push(times[0]);
    nexts.push(median(times.slice(1)));
    ratios.push(times[0] / median(times.slice(1)));
  }
  return {
    firstMs: median(firsts),
    medianMs: median(nexts),
    ratio: median(ratios),
    delayMs: DELAY_MS,
  };
}

if (import.meta.main) {
  if (Deno.args[0] === "--child") await child();
  else {
    const r = await run();
    console.log(
      `first rich save ${r.firstMs.toFixed(2)} ms, ${r.delayMs} ms after ` +
        `start; median of the next ${NEXT} ${r.medianMs.toFixed(2)} ms; ` +
        `ratio ${r.ratio.toFixed(2)}x (goal <= 3x)`,
    );
  }
}
