/**
 * Runs test files again and again, optionally under CPU load, and counts
 * the runs that fail: the habit that keeps flaky tests out of CI.
 *
 * ```sh
 * deno task flakes --runs 20 --load 2 tests/multi/instances_test.ts tests/multi/publish_test.ts
 * ```
 *
 * `--load N` starts N `yes > /dev/null` processes for the whole hunt (the
 * machines have 2 cores, so 2 doubles the demand). Each failing run's
 * output is kept in a temp folder, named in the report. Exits 1 when any
 * run failed.
 *
 * @module
 */

/** What a hunt found for one test file. */
export interface HuntResult {
  /** The test file. */
  file: string;
  /** Runs that passed. */
  passed: number;
  /** Output files of the runs that failed. */
  failures: string[];
  /** Seconds per run. */
  seconds: number[];
}

/** Options of {@linkcode hunt}. */
export interface HuntOptions {
  /** Runs per file. */
  runs: number;
  /** CPU hogs (`yes` processes) kept running meanwhile. */
  load: number;
  /** Called after each run. */
  onRun?: (file: string, run: number, ok: boolean, seconds: number) => void;
}

/**
 * Runs each of `files` `runs` times with `deno test -A`, under `load` CPU
 * hogs, and returns what passed and failed.
 *
 * @example
 * ```ts ignore
 * import { hunt } from "./flake_hunt.ts";
 * const [r] = await hunt(["tests/server/ops/shutdown_test.ts"], { runs: 3, load: 0 });
 * console.log(`${r.passed}/3`);
 * ```
 */
export async function hunt(
  files: string[],
  options: HuntOptions,
): Promise<HuntResult[]> {
  const hogs = Array.from(
    { length: options.load },
    () => new Deno.Command("yes", { stdout: "null", stderr: "null" }).spawn(),
  );
  const logs = await Deno.makeTempDir({ prefix: "cms-flakes-" });
  try {
    const results: HuntResult[] = [];
    for (const file of files) {
      const result: HuntResult = { file, passed: 0, failures: [], seconds: [] };
      for (let run = 1; run <= options.runs; run++) {
        const started = performance.now();
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["test", "-A", file],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const seconds = (performance.now() - started) / 1000;
        result.seconds.push(seconds);
        if (out.success) result.passed++;
        else {
          const log = `${logs}/${file.replace(/\W+/g, "_")}-${run}.log`;
          await Deno.writeFile(
            log,
            new Uint8Array([...out.stdout, ...out.stderr]),
          );
          result.failures.push(log);
        }
        options.onRun?.(file, run, out.success, seconds);
      }
      results.push(result);
    }
    return results;
  } finally {
    for (const hog of hogs) {
      hog.kill();
      await hog.status;
    }
  }
}

if (import.meta.main) {
  const args = [...Deno.args];
  const take = (flag: string, fallback: number) => {
    const at = args.indexOf(flag);
    if (at < 0) return fallback;
    const [, value] = args.splice(at, 2);
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${flag} ${value}?`);
    return n;
  };
  const runs = take("--runs", 20);
  const load = take("--load", 2);
  if (args.length === 0) {
    console.error("usage: deno task flakes [--runs N] [--load N] FILE…");
    Deno.exit(2);
  }
  const results = await hunt(args, {
    runs,
    load,
    onRun: (file, run, ok, s) =>
      console.log(
        `${file} run ${run}: ${ok ? "ok" : "FAILED"} (${s.toFixed(0)} s)`,
      ),
  });
  for (const r of results) {
    const slowest = Math.max(...r.seconds).toFixed(0);
    console.log(
      `${r.file}: ${r.passed}/${runs} passed under ${load} CPU hogs (slowest ${slowest} s)`,
    );
    for (const log of r.failures) console.log(`  failed run's output: ${log}`);
  }
  Deno.exit(results.every((r) => r.failures.length === 0) ? 0 : 1);
}
