/**
 * Bench: sizes of the browser bundle, built in this run with `deno bundle
 * --platform browser --minify --code-splitting`. Reports the entry chunk
 * (with its static imports) min+gz (goal ≤ 5 KB), what an edit-mode page
 * loads, and all chunks gz (goal ≤ 20 KB), next to DOMPurify alone (bundled
 * and measured in the same run) and medium-editor (27.8 KB gz, from the
 * issue, not measured here).
 *
 * Run: `deno run -A bench/client_size.ts`
 *
 * @module
 */
import {
  buildClient,
  type BuiltFile,
  denoBundle,
  gzipSize,
} from "../tools/build_client.ts";

/** Sizes in bytes (gzip unless named `Min`). */
export interface SizeResult {
  /** `mod.js` plus its static imports: what every page loads. */
  entry: number;
  entryMin: number;
  /** Entry + editing session: a page with plain markers only. */
  plainPage: number;
  /** Plain page + the rich chunk: a page with a rich marker. */
  richPage: number;
  /** Every emitted chunk. */
  all: number;
  /** DOMPurify alone, minified and gzipped in this run. */
  dompurify: number;
  /** medium-editor, from the issue (not measured). */
  mediumEditor: number;
  files: BuiltFile[];
}

/** Names of `name` and everything it imports statically. */
function closure(files: BuiltFile[], names: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (n: string) => {
    if (seen.has(n)) return;
    seen.add(n);
    for (const i of files.find((f) => f.name === n)?.imports ?? []) visit(i);
  };
  names.forEach(visit);
  return seen;
}

/** Builds the client and DOMPurify alone into temp dirs and measures. */
export async function run(): Promise<SizeResult> {
  const dir = await Deno.makeTempDir({ prefix: "cms-size-" });
  try {
    const { files } = await buildClient(`${dir}/client`);
    const sum = (names: Set<string>, key: "gzip" | "bytes" = "gzip") =>
      files.filter((f) => names.has(f.name)).reduce((s, f) => s + f[key], 0);
    const lazy = (prefix: string) =>
      files.find((f) => f.name.startsWith(prefix))?.name ?? "";
    const entrySet = closure(files, ["mod.js"]);
    const plainSet = closure(files, ["mod.js", lazy("cms-")]);
    const richSet = closure(files, ["mod.js", lazy("cms-"), lazy("rich-")]);
    await Deno.writeTextFile(
      `${dir}/purify.js`,
      `import DOMPurify from "npm:dompurify@^3.4.18";\nexport default DOMPurify;\n`,
    );
    const dompurify = await denoBundle([
      "--output",
      `${dir}/purify.min.js`,
      `${dir}/purify.js`,
    ]).then(
      async () => gzipSize(await Deno.readFile(`${dir}/purify.min.js`)),
      () => NaN,
    );
    return {
      entry: sum(entrySet),
      entryMin: sum(entrySet, "bytes"),
      plainPage: sum(plainSet),
      richPage: sum(richSet),
      all: files.reduce((s, f) => s + f.gzip, 0),
      dompurify,
      mediumEditor: 27_800,
      files,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const r = await run();
  // KB = 1,000 bytes, the unit of the goals and of the reference sizes.
  const kb = (n: number) => (n / 1000).toFixed(2) + " KB";
  console.table(
    r.files.map((f) => ({
      chunk: f.name,
      min: kb(f.bytes),
      gzip: kb(f.gzip),
      imports: f.imports.join(" "),
      lazy: f.lazy.join(" "),
    })),
  );
  const goal = (v: number, max: number) =>
    `${(v / max).toFixed(2)}x of goal ${v <= max ? "OK" : "MISSED"}`;
  console.table([
    {
      what: "entry chunk + static imports (every page)",
      gzip: kb(r.entry),
      min: kb(r.entryMin),
      vs: goal(r.entry, 5_000) + " (5 KB)",
    },
    { what: "edit-mode page, plain markers", gzip: kb(r.plainPage) },
    { what: "edit-mode page with a rich marker", gzip: kb(r.richPage) },
    {
      what: "all chunks",
      gzip: kb(r.all),
      vs: goal(r.all, 20_000) + " (20 KB)",
    },
    {
      what: "DOMPurify alone (measured)",
      gzip: kb(r.dompurify),
      vs: `${(r.all / r.dompurify).toFixed(2)}x = all chunks / DOMPurify`,
    },
    {
      what: "medium-editor (issue, not measured)",
      gzip: kb(r.mediumEditor),
      vs: `${
        (r.all / r.mediumEditor).toFixed(2)
      }x = all chunks / medium-editor`,
    },
  ]);
}
