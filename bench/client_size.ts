/**
 * Bench: sizes of the browser bundle, built in this run as `deno task build`
 * builds it (`tools/build_client.ts`: `deno bundle --code-splitting`, chunks
 * regrouped with rollup, terser), gzip, KiB = 1024 bytes:
 *
 * - the entry: `mod.js` with its static imports (goal ≤ 2 KiB);
 * - everything loaded for editing: the entry, the session chunk (`cms-*`)
 *   and the rich text chunk (`rich-*`), with their static imports (goal
 *   ≤ 20 KiB). The sanitizer is not in it: its chunk (`clean-*`, the
 *   policy's own rebuild, `core/rebuild.ts`; no DOMPurify in the browser)
 *   loads at the first paste or drop of HTML, or a value set from outside;
 * - the sanitizer chunk alone, with what it imports beyond the editing set;
 * - loaded after the first paste: the editing set plus the sanitizer chunk
 *   (also ≤ 20 KiB);
 * - each lazy panel: every other chunk but the sanitizer, with what it
 *   imports statically beyond the editing set (goal ≤ 4 KiB each);
 * - all chunks together (goal ≤ 52 KiB);
 * - the editor without the opt-in features' own chunks, for context: the
 *   opt-in features are the chunks named in {@linkcode OPT_IN}, each loaded
 *   only when the host configures it;
 * - DOMPurify alone, bundled and measured in the same run, for context
 *   (what the browser loaded for the sanitizer before the rebuild).
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

/** One lazy panel: its chunk and its gzip size with its own imports. */
export interface Panel {
  name: string;
  gzip: number;
}

/** Sizes in bytes, gzip. */
export interface SizeResult {
  /** `mod.js` plus its static imports. */
  entry: number;
  /** Entry + session + rich text editor, with static imports. */
  editing: number;
  /** The sanitizer chunk with its imports beyond the editing set. */
  sanitizer: number;
  /** `editing` plus the sanitizer chunk, loaded at the first paste of
   * HTML. */
  afterPaste: number;
  /** The lazy chunks outside the editing set. */
  panels: Panel[];
  /** Every emitted chunk but the opt-in features' own ({@linkcode OPT_IN}). */
  editor: number;
  /** The opt-in features' own chunks, by name. */
  optIn: Panel[];
  /** Every emitted chunk. */
  all: number;
  /** DOMPurify alone, minified and gzipped in this run. */
  dompurify: number;
  files: BuiltFile[];
}

/** Goals in bytes (`all`: every chunk; `editor` is compared with it too). */
export const GOALS = {
  entry: 2048,
  editing: 20480,
  panel: 4096,
  all: 53248,
};

/**
 * Chunks of the opt-in features (name prefixes), each loaded only when the
 * host configures it: live presence (the host serves `events`), locales (a
 * page config with `locale` and `locales`), scheduled publishing (draft
 * mode's "Publish at…") and the media library (opened from an image panel).
 * Each is still a panel ≤ 4 KiB.
 */
export const OPT_IN = [
  "presence_view-",
  "locales-",
  "schedule-",
  "media_library-",
  "review-",
  "review_panel-",
  "review_de-",
];

/** Whether chunk `name` is one of the opt-in features' ({@linkcode OPT_IN}). */
export const isOptIn = (name: string): boolean =>
  OPT_IN.some((p) => name.startsWith(p));

/** Names of `names` and everything they import statically. */
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
    const sum = (names: Set<string>) =>
      files.filter((f) => names.has(f.name)).reduce((s, f) => s + f.gzip, 0);
    const named = (prefix: string) =>
      files.filter((f) => f.name.startsWith(prefix)).map((f) => f.name);
    const editingSet = closure(files, [
      "mod.js",
      ...named("cms-"),
      ...named("rich-"),
    ]);
    const pasteSet = closure(files, [...editingSet, ...named("clean-")]);
    const lazy = new Set(files.flatMap((f) => f.lazy));
    const panels = files
      .filter((f) =>
        lazy.has(f.name) && !editingSet.has(f.name) &&
        !f.name.startsWith("clean-")
      )
      .map((f) => {
        const own = closure(files, [f.name]);
        for (const n of editingSet) own.delete(n);
        return { name: f.name, gzip: sum(own) };
      });
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
      entry: sum(closure(files, ["mod.js"])),
      editing: sum(editingSet),
      sanitizer: sum(pasteSet) - sum(editingSet),
      afterPaste: sum(pasteSet),
      panels,
      editor: files.filter((f) => !isOptIn(f.name))
        .reduce((s, f) => s + f.gzip, 0),
      optIn: files.filter((f) => isOptIn(f.name))
        .map((f) => ({ name: f.name, gzip: f.gzip })),
      all: files.reduce((s, f) => s + f.gzip, 0),
      dompurify,
      files,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `n` bytes in KiB. */
export const kib = (n: number): string => (n / 1024).toFixed(2) + " KiB";

/** `v` bytes against the goal `max`: `"2.00 KiB: OK"` or `"…: MISSED"`. */
export const goal = (v: number, max: number): string =>
  `${kib(max)}: ${v <= max ? "OK" : "MISSED"}`;

if (import.meta.main) {
  const r = await run();
  console.table(
    r.files.map((f) => ({
      chunk: f.name,
      min: kib(f.bytes),
      gzip: kib(f.gzip),
      imports: f.imports.join(" "),
      lazy: f.lazy.join(" "),
    })),
  );
  console.table([
    {
      what: "entry + static imports",
      gzip: kib(r.entry),
      goal: goal(r.entry, GOALS.entry),
    },
    {
      what: "everything loaded for editing (entry, session, rich)",
      gzip: kib(r.editing),
      goal: goal(r.editing, GOALS.editing),
    },
    {
      what: "sanitizer chunk (the policy's rebuild), beyond editing",
      gzip: kib(r.sanitizer),
      goal: "",
    },
    {
      what: "loaded after the first paste (+ sanitizer)",
      gzip: kib(r.afterPaste),
      goal: goal(r.afterPaste, GOALS.editing),
    },
    ...r.panels.map((p) => ({
      what: `lazy panel ${p.name}`,
      gzip: kib(p.gzip),
      goal: goal(p.gzip, GOALS.panel),
    })),
    {
      what: `all chunks together (opt-in: ${
        r.optIn.map((p) => `${p.name.replace(/-\w+\.js$/, "")} ${kib(p.gzip)}`)
          .join(", ")
      })`,
      gzip: kib(r.all),
      goal: goal(r.all, GOALS.all),
    },
    {
      what: "all chunks but the opt-in features'",
      gzip: kib(r.editor),
      goal: "",
    },
    {
      what: "DOMPurify alone (context: no longer in the client)",
      gzip: kib(r.dompurify),
      goal: "",
    },
  ]);
}
