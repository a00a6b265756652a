/**
 * The documentation holds up: every relative link in README.md, docs/ and
 * bench/README.md reaches a file (and, with a `#fragment`, a heading of
 * it), and so does every link of the entry points' `@module` docs, each
 * of which names its guide; every ```ts / ```tsx block type-checks in a new app outside the
 * repository that links this checkout, with the strict defaults a new app
 * has; README.md stays short enough to read as a package page.
 *
 * A block marked ```ts ignore is a fragment and is not checked.
 *
 * @module
 */
import assert from "node:assert/strict";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The README's ceiling, in lines. */
export const README_MAX_LINES = 300;

/** Markdown files the links and code checks read, relative to the root. */
export function docFiles(root = ROOT): string[] {
  const out = ["README.md", "bench/README.md"];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(`${root}/${dir}`)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) walk(path);
      else if (e.name.endsWith(".md")) out.push(path);
    }
  };
  walk("docs");
  return out.sort();
}

/** The text with fenced code blocks blanked out (line numbers kept). */
function unfenced(text: string): string {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  }).join("\n");
}

/** The text without code: no fenced blocks, no inline code spans. */
function prose(text: string): string {
  return unfenced(text).replace(/`[^`\n]*`/g, "");
}

/**
 * The anchors GitHub (and JSR) give the headings of a markdown text:
 * lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` … for
 * repeats.
 */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of unfenced(text).split("\n")) {
    const m = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!m) continue;
    const base = m[1]
      .replace(/<[^>]+>/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/** One link found in a markdown file. */
export interface Link {
  /** The file it is in, relative to the root. */
  file: string;
  /** Its line, from 1. */
  line: number;
  /** The target as written. */
  target: string;
}

/** Relative link targets of a markdown text: `[](…)`, `![](…)`, `src="…"`. */
export function linksOf(file: string, text: string): Link[] {
  const out: Link[] = [];
  prose(text).split("\n").forEach((line, i) => {
    const found = [
      ...line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
      ...line.matchAll(/\b(?:src|href)="([^"]+)"/g),
    ];
    for (const m of found) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      out.push({ file, line: i + 1, target });
    }
  });
  return out;
}

/** Why each link that does not resolve fails, as `file:line target: why`. */
export function brokenLinks(root: string, files: string[]): string[] {
  const texts = new Map<string, string | null>();
  const read = (path: string) => {
    if (!texts.has(path)) {
      try {
        const text = Deno.readTextFileSync(`${root}/${path}`);
        // A module's links are those of its `@module` doc.
        texts.set(
          path,
          path.endsWith(".ts") ? text.slice(0, text.indexOf("@module")) : text,
        );
      } catch {
        texts.set(path, null);
      }
    }
    return texts.get(path)!;
  };
  const broken: string[] = [];
  for (const file of files) {
    for (const link of linksOf(file, read(file) ?? "")) {
      const [rawPath, fragment] = link.target.split("#", 2);
      const dir = file.includes("/")
        ? file.slice(0, file.lastIndexOf("/"))
        : "";
      const path = rawPath
        ? new URL(decodeURI(rawPath), `file:///${dir ? dir + "/" : ""}`)
          .pathname.slice(1)
        : file;
      const where = `${link.file}:${link.line} (${link.target})`;
      let stat: Deno.FileInfo | null = null;
      try {
        stat = Deno.statSync(`${root}/${path}`);
      } catch { /* missing */ }
      if (!stat) {
        broken.push(`${where}: no file ${path}`);
        continue;
      }
      if (!fragment || !path.endsWith(".md") || stat.isDirectory) continue;
      if (!headingAnchors(read(path) ?? "").has(fragment)) {
        broken.push(`${where}: ${path} has no heading #${fragment}`);
      }
    }
  }
  return broken;
}

/** One TypeScript block of a markdown file. */
export interface Block {
  /** The file it is in, relative to the root. */
  file: string;
  /** The line of its opening fence, from 1. */
  line: number;
  /** `ts` or `tsx`. */
  lang: "ts" | "tsx";
  /** Its code. */
  code: string;
}

/** The ```ts and ```tsx blocks of a markdown text, but ```ts ignore ones. */
export function tsBlocks(file: string, text: string): Block[] {
  const out: Block[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(\s*)```(ts|tsx|typescript)(\s+\S.*)?\s*$/);
    if (!open) {
      // Another language's block is skipped whole.
      if (/^\s*```\S/.test(lines[i])) {
        while (++i < lines.length && lines[i].trim() !== "```") continue;
      }
      continue;
    }
    const flags = (open[3] ?? "").trim().split(/\s+/);
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && lines[i].trim() !== "```") {
      body.push(lines[i].slice(open[1].length));
    }
    if (flags.includes("ignore")) continue;
    out.push({
      file,
      line: start + 1,
      lang: open[2] === "tsx" ? "tsx" : "ts",
      code: body.join("\n"),
    });
  }
  return out;
}

/** The repository's import map entries a new app would add with `deno add`. */
function appImports(): Record<string, string> {
  const config = JSON.parse(Deno.readTextFileSync(`${ROOT}/deno.json`));
  return {
    ...config.imports,
    "@inplace/cms": "jsr:@inplace/cms@^0.1.0",
  };
}

/**
 * Type-checks blocks in a new app outside the repository that links this
 * checkout (default strict compiler options; JSX through Preact, as a
 * Fresh app has). Returns `deno check`'s output per failing block.
 */
export async function checkBlocks(blocks: Block[]): Promise<string[]> {
  if (!blocks.length) return [];
  const dir = await Deno.makeTempDir({ prefix: "cms-docs-" });
  assert.ok(!dir.startsWith(ROOT), "the app must be outside the repository");
  try {
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({
        imports: appImports(),
        links: [ROOT],
        unstable: ["kv", "no-legacy-abort"],
        compilerOptions: { jsx: "react-jsx", jsxImportSource: "preact" },
      }),
    );
    const names = blocks.map((b, i) => {
      const name = `${
        b.file.replace(/[^\w]+/g, "_")
      }_L${b.line}_${i}.${b.lang}`;
      // `export {}` makes each block a module of its own, as a file is.
      Deno.writeTextFileSync(`${dir}/${name}`, `${b.code}\nexport {};\n`);
      return name;
    });
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", ...names],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    if (code === 0) return [];
    const out = new TextDecoder().decode(stdout) +
      new TextDecoder().decode(stderr);
    const failing = blocks.filter((_, i) => out.includes(names[i]));
    if (!failing.length) return [out];
    // deno check separates its diagnostics with blank lines.
    const diagnostics = out.split(/\n\s*\n/);
    return failing.map((b) => {
      const name = names[blocks.indexOf(b)];
      const mine = diagnostics.filter((d) => d.includes(name));
      return `${b.file}:${b.line} (\`\`\`${b.lang} block):\n${mine.join("\n")}`;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("docs: README.md is at most 300 lines", () => {
  const lines = Deno.readTextFileSync(`${ROOT}/README.md`).trimEnd()
    .split("\n").length;
  assert.ok(
    lines <= README_MAX_LINES,
    `README.md has ${lines} lines (at most ${README_MAX_LINES}): move the ` +
      "detail into a guide in docs/",
  );
});

Deno.test("docs: every relative link and #anchor in README.md, docs/ and bench/README.md resolves", () => {
  const files = docFiles();
  assert.ok(files.includes("docs/architecture.md"), files.join());
  const broken = brokenLinks(ROOT, files);
  assert.deepEqual(broken, [], "broken links:\n" + broken.join("\n"));
});

/** The entry points, whose `@module` docs link to their guides. */
const ENTRY_POINTS = [
  "mod.ts",
  "client/mod.ts",
  "core/mod.ts",
  "fresh/mod.ts",
  "postgres/mod.ts",
  "s3/mod.ts",
];

Deno.test("docs: each entry point's module doc links to its guide, and the links resolve", () => {
  for (const file of ENTRY_POINTS) {
    const doc = Deno.readTextFileSync(`${ROOT}/${file}`).split("@module")[0];
    assert.ok(
      linksOf(file, doc).some((l) => /docs\/\w+\.md/.test(l.target)),
      `${file}: its @module doc links to no guide in docs/`,
    );
  }
  const broken = brokenLinks(ROOT, ENTRY_POINTS);
  assert.deepEqual(broken, [], "broken links:\n" + broken.join("\n"));
});

Deno.test("docs: every ts/tsx block in README.md, docs/ and bench/README.md type-checks in a new app", async () => {
  const blocks = docFiles().flatMap((file) =>
    tsBlocks(file, Deno.readTextFileSync(`${ROOT}/${file}`))
  );
  assert.ok(blocks.some((b) => b.file === "README.md"), "no README block");
  const failing = await checkBlocks(blocks);
  assert.deepEqual(failing, [], failing.join("\n\n"));
});

Deno.test("docs: the checks find what they are for", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-docs-links-" });
  try {
    Deno.mkdirSync(`${dir}/docs`);
    Deno.writeTextFileSync(
      `${dir}/README.md`,
      [
        "# Title",
        "## Two words, and `code`!",
        "## Two words, and code",
        "[ok](docs/a.md#the-part) [ok](#two-words-and-code-1)",
        "[bad](docs/missing.md) [bad](docs/a.md#nowhere) [bad](#nope)",
        "[web](https://example.com) ![img](docs/a.md)",
        "```md",
        "[in a block](nowhere.md)",
        "```",
        "`[in code](nowhere.md)`",
      ].join("\n"),
    );
    Deno.writeTextFileSync(`${dir}/docs/a.md`, "# A\n\n## The part\n");
    const broken = brokenLinks(dir, ["README.md", "docs/a.md"]);
    assert.equal(broken.length, 3, broken.join("\n"));
    assert.match(broken[0], /README\.md:5 \(docs\/missing\.md\): no file/);
    assert.match(broken[1], /docs\/a\.md has no heading #nowhere/);
    assert.match(broken[2], /README\.md has no heading #nope/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const text = [
    "```ts",
    'import { defineContent } from "@inplace/cms";',
    "const n: number = defineContent({ pages: { title: 'plain' } });",
    "```",
    "```ts ignore",
    "not even code",
    "```",
    "```ts",
    "const ok: string = 'fine';",
    "```",
  ].join("\n");
  const blocks = tsBlocks("x.md", text);
  assert.deepEqual(blocks.map((b) => b.line), [1, 8]);
  const failing = await checkBlocks(blocks);
  assert.equal(failing.length, 1, failing.join("\n"));
  assert.match(failing[0], /^x\.md:1 /);
});
