/**
 * Builds the browser bundle of `client/mod.ts` with `deno bundle`
 * (`--platform browser --minify --code-splitting`): `mod.js` is the entry
 * chunk a host serves; the rich text editor is a separate lazy chunk.
 *
 * Run `deno task build` (writes `dist/client/`) to print the sizes.
 *
 * @module
 */

/** One output file with its raw and gzip sizes in bytes. */
export interface BuiltFile {
  /** File name inside the output directory, e.g. `mod.js`. */
  name: string;
  /** Minified size in bytes. */
  bytes: number;
  /** Gzip size in bytes. */
  gzip: number;
  /** Chunks this file imports statically (loaded with it). */
  imports: string[];
  /** Chunks this file may load later with `import()`. */
  lazy: string[];
}

const ENTRY = new URL("../client/mod.ts", import.meta.url);

/** Gzip size of `bytes`. */
export async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as BlobPart]).stream()
    .pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/**
 * Runs `deno bundle --quiet --platform browser --minify` with `args`; throws
 * with its stderr when it fails.
 */
export async function denoBundle(args: string[]): Promise<void> {
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "browser", "--minify", ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) {
    throw new Error(`deno bundle failed:\n${new TextDecoder().decode(stderr)}`);
  }
}

/**
 * Bundles the client into `outDir` (emptied first) and lists the chunks,
 * entry (`mod.js`) first.
 *
 * @example
 * ```ts ignore
 * const { files } = await buildClient("dist/client");
 * ```
 */
export async function buildClient(
  outDir = "dist/client",
): Promise<{ files: BuiltFile[] }> {
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  await denoBundle(["--code-splitting", "--outdir", outDir, ENTRY.pathname]);
  const files: BuiltFile[] = [];
  for await (const entry of Deno.readDir(outDir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const bytes = await Deno.readFile(`${outDir}/${entry.name}`);
    const code = new TextDecoder().decode(bytes);
    const refs = (
      re: RegExp,
    ) => [...new Set([...code.matchAll(re)].map((m) => m[1]))];
    files.push({
      name: entry.name,
      bytes: bytes.byteLength,
      gzip: await gzipSize(bytes),
      imports: refs(/(?:from|import)\s*"\.\/([\w.-]+\.js)"/g),
      lazy: refs(/import\(\s*"\.\/([\w.-]+\.js)"\s*\)/g),
    });
  }
  files.sort((a, b) =>
    a.name === "mod.js"
      ? -1
      : b.name === "mod.js"
      ? 1
      : a.name.localeCompare(b.name)
  );
  return { files };
}

if (import.meta.main) {
  const outDir = Deno.args[0] ?? "dist/client";
  const { files } = await buildClient(outDir);
  const kb = (n: number) => (n / 1024).toFixed(2).padStart(7) + " KiB";
  console.log(`Built ${outDir}/`);
  for (const f of files) {
    console.log(`  ${f.name.padEnd(28)} ${kb(f.bytes)} min ${kb(f.gzip)} gz`);
  }
  const total = files.reduce((s, f) => s + f.gzip, 0);
  console.log(`  ${"all chunks".padEnd(28)} ${" ".repeat(15)}${kb(total)} gz`);
}
