/**
 * Builds the browser bundle of `client/mod.ts` in three steps:
 *
 * 1. `deno bundle --platform browser --minify --code-splitting` turns the
 *    TypeScript into chunks: `mod.js` is the entry a host serves, each
 *    `import()` target (session, rich text editor, panels) a lazy chunk.
 * 2. Rollup regroups those chunks ({@linkcode chunkGroups}): `deno bundle`
 *    gives every set of modules shared by a different set of lazy chunks a
 *    file of its own, and a small file gzipped alone pays the whole
 *    compression warm-up. The shared files the session loads anyway become
 *    one, and a lazy chunk that only re-exports a shared file takes it in.
 *    Same modules, fewer files.
 * 3. Terser minifies each chunk once more (two compress passes, ES2020
 *    output, no `unsafe` options).
 *
 * `deno task build` rebuilds the bundle and writes it into
 * `server/bundle/_generated.ts` (the files as strings, served by
 * `createClientHandler`, so hosts need no build step), then prints the
 * sizes. Run it after every change under `client/` or `core/`;
 * `tests/server/bundle/handler_test.ts` fails while the module is stale.
 * `deno run -A tools/build_client.ts DIR` only writes the files into `DIR`.
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

import { minify } from "terser";
import { rollup } from "rollup";

const ENTRY = new URL("../client/mod.ts", import.meta.url);

/** Terser's options: an ES module (ES2020 syntax), safe transforms only. */
const TERSER = {
  module: true,
  ecma: 2020,
  compress: { passes: 2, ecma: 2020 },
  mangle: true,
  format: { comments: false, ecma: 2020 },
} as const;

/** A shared chunk this small (bytes) joins the kit rather than stand alone. */
const TINY = 200;

/**
 * How the chunks `deno bundle` wrote into `dir` are regrouped (file name to
 * group; files not named stay on their own). `deno bundle` splits every set
 * of modules shared by a different set of lazy chunks into its own file, and
 * each file is gzipped alone: a small file pays the whole compression
 * warm-up. So:
 *
 * - the shared chunks the session chunk (`cms-*`) imports statically (labels,
 *   theme, names, links, refusals) and any tiny shared chunk become one
 *   `chunk-*` (the kit): all are loaded for editing anyway;
 * - a lazy chunk that only re-exports one shared chunk (a facade) takes that
 *   chunk in, instead of loading it as a second file.
 */
export async function chunkGroups(dir: string): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  const code = new Map<string, string>();
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile) code.set(e.name, await Deno.readTextFile(`${dir}/${e.name}`));
  }
  const imports = (src: string) =>
    [...src.matchAll(/(?:from|import)\s*"\.\/(chunk-[\w-]+\.js)"/g)].map((m) =>
      m[1]
    );
  for (const [name, src] of code) {
    if (name.startsWith("cms-")) {
      for (const i of imports(src)) groups.set(i, "chunk");
    }
    if (name.startsWith("chunk-") && src.length < TINY) {
      groups.set(name, "chunk");
    }
  }
  for (const [name, src] of code) {
    const facade =
      /^import\{[^}]*\}from"\.\/(chunk-[\w-]+\.js)";export\{[^}]*\};?\s*$/
        .exec(src);
    if (facade && !groups.has(facade[1])) {
      const group = name.replace(/-\w+\.js$/, "");
      groups.set(facade[1], group).set(name, group);
    }
  }
  return groups;
}

/**
 * Regroups the chunks in `rawDir` (see {@linkcode chunkGroups}) with rollup
 * into `outDir`: same modules, same entry `mod.js`, fewer files.
 */
async function regroup(rawDir: string, outDir: string): Promise<void> {
  const groups = await chunkGroups(rawDir);
  const base = (id: string) => id.slice(id.lastIndexOf("/") + 1);
  const bundle = await rollup({
    input: `${rawDir}/mod.js`,
    preserveEntrySignatures: "strict",
    // A cycle between chunks is valid ES modules; any other warning (a
    // missing export, an unresolved import) fails the build.
    onwarn(w) {
      if (w.code !== "CIRCULAR_DEPENDENCY") {
        throw new Error(`rollup: ${w.message}`);
      }
    },
  });
  const { output } = await bundle.generate({
    format: "es",
    entryFileNames: "[name].js",
    hashCharacters: "base36",
    chunkFileNames: (c) => `${c.name.replace(/-[A-Z0-9]{8}$/, "")}-[hash].js`,
    manualChunks: (id) => groups.get(base(id)),
  });
  // Hashes in upper case, as `deno bundle` names them: the client handler
  // caches `name-HASH.js` for a year.
  const rename = (name: string) =>
    name.replace(/-([a-z0-9]{8})\.js$/, (_, h) => `-${h.toUpperCase()}.js`);
  const refs = /(["'])\.\/([\w.-]+\.js)\1/g;
  await Deno.mkdir(outDir, { recursive: true });
  for (const file of output) {
    if (file.type !== "chunk") continue;
    await Deno.writeTextFile(
      `${outDir}/${rename(file.fileName)}`,
      file.code.replace(refs, (_, q, n) => `${q}./${rename(n)}${q}`),
    );
  }
  await bundle.close();
}

/**
 * Gzip size of `bytes`, at the level `createClientHandler` sends (the best,
 * `node:zlib` level 9).
 */
export async function gzipSize(bytes: Uint8Array): Promise<number> {
  const { gzipSync, constants: c } = await import("node:zlib");
  return gzipSync(bytes, { level: c.Z_BEST_COMPRESSION }).byteLength;
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
  const raw = await Deno.makeTempDir({ prefix: "cms-raw-" });
  try {
    await denoBundle(["--code-splitting", "--outdir", raw, ENTRY.pathname]);
    await regroup(raw, outDir);
  } finally {
    await Deno.remove(raw, { recursive: true });
  }
  const files: BuiltFile[] = [];
  for await (const entry of Deno.readDir(outDir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const path = `${outDir}/${entry.name}`;
    const { code = "" } = await minify(await Deno.readTextFile(path), TERSER);
    const bytes = new TextEncoder().encode(code);
    await Deno.writeFile(path, bytes);
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

/** The generated module that holds the built client for the handler. */
export const CLIENT_FILES_MODULE: URL = new URL(
  "../server/bundle/_generated.ts",
  import.meta.url,
);

/**
 * The source of `server/bundle/_generated.ts` for the built files in `dir`: one
 * string per file, by name.
 *
 * @example
 * ```ts ignore
 * await buildClient("/tmp/client");
 * const source = await clientFilesSource("/tmp/client");
 * ```
 */
export async function clientFilesSource(dir: string): Promise<string> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".js")) names.push(e.name);
  }
  names.sort();
  const lines = [
    "// Generated by `deno task build` (tools/build_client.ts) from client/.",
    "// Do not edit: run `deno task build` after changing client/ or core/.",
    "// deno-fmt-ignore-file",
    "// deno-lint-ignore-file",
    "/** The browser client's bundled files (entry `mod.js`), by name. */",
    "export const CLIENT_FILES: Readonly<Record<string, string>> = {",
  ];
  for (const name of names) {
    const code = await Deno.readTextFile(`${dir}/${name}`);
    lines.push(`  ${JSON.stringify(name)}: ${JSON.stringify(code)},`);
  }
  lines.push("};", "");
  return lines.join("\n");
}

if (import.meta.main && Deno.args[0]) {
  await buildClient(Deno.args[0]);
} else if (import.meta.main) {
  const outDir = await Deno.makeTempDir({ prefix: "cms-client-" });
  const { files } = await buildClient(outDir);
  await Deno.writeTextFile(
    CLIENT_FILES_MODULE,
    await clientFilesSource(outDir),
  );
  await Deno.remove(outDir, { recursive: true });
  const kb = (n: number) => (n / 1024).toFixed(2).padStart(7) + " KiB";
  console.log(`Built ${CLIENT_FILES_MODULE.pathname}`);
  for (const f of files) {
    console.log(`  ${f.name.padEnd(28)} ${kb(f.bytes)} min ${kb(f.gzip)} gz`);
  }
  const total = files.reduce((s, f) => s + f.gzip, 0);
  console.log(`  ${"all chunks".padEnd(28)} ${" ".repeat(15)}${kb(total)} gz`);
}
