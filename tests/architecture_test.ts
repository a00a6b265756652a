/**
 * The walls of the house, read from the code's own imports (parsed with the
 * TypeScript compiler, so comments, strings and doc examples never count):
 *
 * - `core/` imports nothing outside `core/` (no npm, node or Deno module
 *   either): it is shared by the browser and the server.
 * - `client/` and `server/` never import each other.
 * - No import cycle among the package's files, counting type-only imports,
 *   `import()` and `typeof import()`.
 * - A folder of `server/` is entered from outside only through its `mod.ts`.
 * - The optional backends stay optional: what `mod.ts`, `fresh/mod.ts` and
 *   `client/mod.ts` reach never loads `postgres` or `aws4fetch`.
 * - In the library folders, no file over 600 lines (generated files aside)
 *   and no function over 80 lines.
 * - No internal tracker numbers ("issue" and a number) in code, tests,
 *   benchmarks or docs: a reader on JSR can't look them up.
 *
 * Each rule is a pure function of an import graph, so the last tests here
 * break each wall on a small made-up graph and watch the rule fail.
 */
import assert from "node:assert/strict";
import ts from "typescript";

const ROOT = new URL("../", import.meta.url);
/** Folders (and files) of non-test code whose imports are read. */
const CODE = [
  "core",
  "server",
  "client",
  "fresh",
  "postgres",
  "s3",
  "mod.ts",
  "demo",
  "tools",
  "bench",
];
/** Folders where the size rules hold. */
const LIBRARY = ["core/", "server/", "client/", "fresh/"];
const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 80;

/** A file's path from the repository root, and what it imports. */
interface Module {
  path: string;
  imports: string[];
  source: ts.SourceFile;
}

type Graph = Map<string, string[]>;

function walk(path: string, out: string[]) {
  const info = Deno.statSync(new URL(path, ROOT));
  if (info.isFile) {
    if (/\.(ts|tsx|js)$/.test(path) && !path.endsWith(".d.ts")) out.push(path);
    return;
  }
  for (const entry of Deno.readDirSync(new URL(path + "/", ROOT))) {
    walk(`${path}/${entry.name}`, out);
  }
}

/** Joins a relative specifier to the importing file's folder. */
function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** Every module specifier a file names: static, type-only and dynamic. */
function specifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function readModules(): Module[] {
  const paths: string[] = [];
  for (const top of CODE) walk(top, paths);
  return paths.map((path) => {
    const text = Deno.readTextFileSync(new URL(path, ROOT));
    const kind = path.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(
      path,
      text,
      ts.ScriptTarget.Latest,
      true,
      kind,
    );
    const imports = specifiers(source).map((s) =>
      s.startsWith(".") ? resolve(path, s) : s
    );
    return { path, imports, source };
  });
}

/** `core/` reaches nothing outside itself. */
export function coreWalls(graph: Graph): string[] {
  const broken: string[] = [];
  for (const [file, imports] of graph) {
    if (!file.startsWith("core/")) continue;
    for (const target of imports) {
      if (!target.startsWith("core/")) broken.push(`${file} → ${target}`);
    }
  }
  return broken;
}

/** `client/` and `server/` never import each other. */
export function sideWalls(graph: Graph): string[] {
  const broken: string[] = [];
  for (const [file, imports] of graph) {
    const side = file.split("/")[0];
    const other = side === "client"
      ? "server/"
      : side === "server"
      ? "client/"
      : null;
    if (!other) continue;
    for (const target of imports) {
      if (target.startsWith(other)) broken.push(`${file} → ${target}`);
    }
  }
  return broken;
}

/** The folder of `server/` a file is in (`server/save`), if any. */
function serverFolder(path: string): string | null {
  const parts = path.split("/");
  return parts[0] === "server" && parts.length > 2 ? parts[1] : null;
}

/** Server folders are entered from outside only through their `mod.ts`. */
export function frontDoors(graph: Graph): string[] {
  const broken: string[] = [];
  for (const [file, imports] of graph) {
    for (const target of imports) {
      const folder = serverFolder(target);
      if (!folder || serverFolder(file) === folder) continue;
      if (target !== `server/${folder}/mod.ts`) {
        broken.push(`${file} → ${target}`);
      }
    }
  }
  return broken;
}

/** Every cycle of the graph (strongly connected parts of two or more). */
export function cycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1 || graph.get(v)?.includes(v)) found.push(part.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}

/** Every file and package `from` reaches through static imports. */
export function reach(graph: Graph, from: string): Set<string> {
  const seen = new Set<string>();
  const visit = (v: string) => {
    if (seen.has(v)) return;
    seen.add(v);
    for (const w of graph.get(v) ?? []) visit(w);
  };
  visit(from);
  return seen;
}

/** Functions (declarations, methods, arrows) longer than the limit. */
function longFunctions(source: ts.SourceFile, limit: number): string[] {
  const long: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > limit) {
        const name = node.name?.getText(source) ?? "(anonymous)";
        long.push(`${source.fileName}:${start + 1} ${name}: ${lines} lines`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

const modules = readModules();
const graph: Graph = new Map(modules.map((m) => [m.path, m.imports]));

Deno.test("architecture: the package's files were read", () => {
  // A walk that found nothing would make every rule below pass vacuously.
  assert.ok(modules.length > 150, `only ${modules.length} files read`);
  assert.ok(graph.get("mod.ts")?.includes("server/save/mod.ts"));
});

Deno.test("architecture: core/ imports only core/", () => {
  assert.deepEqual(coreWalls(graph), []);
});

Deno.test("architecture: client/ and server/ never import each other", () => {
  assert.deepEqual(sideWalls(graph), []);
});

Deno.test("architecture: server folders are entered through mod.ts", () => {
  assert.deepEqual(frontDoors(graph), []);
});

Deno.test("architecture: no import cycle, type-only imports included", () => {
  assert.deepEqual(cycles(graph), []);
});

Deno.test("architecture: the main entry points load no optional backend", () => {
  for (const entry of ["mod.ts", "fresh/mod.ts", "client/mod.ts"]) {
    const reached = [...reach(graph, entry)];
    assert.deepEqual(
      reached.filter((r) => /^(postgres|aws4fetch)$|^(postgres|s3)\//.test(r)),
      [],
      entry,
    );
  }
  assert.ok(reach(graph, "postgres/mod.ts").has("postgres"));
});

Deno.test("architecture: library files and functions stay small", () => {
  const library = modules.filter((m) =>
    LIBRARY.some((dir) => m.path.startsWith(dir)) &&
    !m.path.includes("_generated")
  );
  const bigFiles = library
    .map((
      m,
    ) => [m.path, m.source.getLineAndCharacterOfPosition(m.source.end).line])
    .filter(([, lines]) => (lines as number) > MAX_FILE_LINES)
    .map(([path, lines]) => `${path}: ${lines} lines`);
  const bigFunctions = library.flatMap((m) =>
    longFunctions(m.source, MAX_FUNCTION_LINES)
  );
  assert.deepEqual([...bigFiles, ...bigFunctions], []);
});

/** Files of `dir` (recursively) whose name matches `pattern`. */
function filesUnder(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(new URL(dir + "/", ROOT))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...filesUnder(path, pattern));
    else if (pattern.test(path)) out.push(path);
  }
  return out;
}

Deno.test("architecture: no internal issue numbers in code, tests or docs", () => {
  // Built from parts, so this file does not match itself.
  const numbered = new RegExp(["\\bissues?", "\\d{1,3}\\b"].join(" "), "i");
  const texts = [
    ...modules.map((m) => m.path),
    ...filesUnder("tests", /\.(ts|tsx)$/),
    ...filesUnder("docs", /\.md$/),
    "README.md",
  ];
  const found = texts.filter((path) =>
    numbered.test(Deno.readTextFileSync(new URL(path, ROOT)))
  );
  assert.ok(texts.length > 300, `only ${texts.length} files read`);
  assert.deepEqual(found, []);
});

Deno.test("architecture: each rule fails when its wall is broken", () => {
  const broken: Graph = new Map([
    ["core/address.ts", ["server/http/mod.ts"]],
    ["client/bar.ts", ["server/save/handler.ts", "client/conflict.ts"]],
    ["client/conflict.ts", ["client/bar.ts"]],
    ["server/save/handler.ts", ["client/model.ts", "server/http/request.ts"]],
    ["server/http/request.ts", []],
    ["server/http/mod.ts", ["server/http/request.ts"]],
    ["client/model.ts", []],
  ]);
  assert.deepEqual(coreWalls(broken), [
    "core/address.ts → server/http/mod.ts",
  ]);
  assert.deepEqual(sideWalls(broken), [
    "client/bar.ts → server/save/handler.ts",
    "server/save/handler.ts → client/model.ts",
  ]);
  assert.deepEqual(frontDoors(broken), [
    "client/bar.ts → server/save/handler.ts",
    "server/save/handler.ts → server/http/request.ts",
  ]);
  assert.deepEqual(cycles(broken), [["client/bar.ts", "client/conflict.ts"]]);
  assert.ok(reach(broken, "client/bar.ts").has("server/http/request.ts"));
});
