/**
 * docs/fresh.md, "Fresh: the full site", shows examples/fresh line for
 * line: under each heading naming a file, the code block is that file,
 * and every code file of the example has its section.
 *
 * @module
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const EXAMPLE = new URL("examples/fresh/", ROOT);

/** Heading `## \`path\`` → the first code block under it. */
export function guideFiles(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  const sections = markdown.split(/^## /m).slice(1);
  for (const section of sections) {
    const name = /^`([^`]+)`\n/.exec(section)?.[1];
    if (!name) continue;
    const block = /^```[a-z]+(?: ignore)?\n([\s\S]*?)^```$/m.exec(section);
    assert.ok(block, `docs/fresh.md: no code block under ${name}`);
    out.set(name, block[1]);
  }
  return out;
}

async function exampleCode(dir = "", out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(new URL(dir, EXAMPLE))) {
    const path = dir + entry.name;
    if (
      entry.isDirectory &&
      ["routes", "components"].some((d) => path.startsWith(d))
    ) {
      await exampleCode(path + "/", out);
    } else if (
      entry.isFile && /\.tsx?$/.test(path) &&
      !["client.ts", "vite.config.ts"].includes(path)
    ) {
      out.push(path);
    }
  }
  return out;
}

Deno.test("docs/fresh.md: every code block is the example's file, line for line", async () => {
  const guide = guideFiles(
    await Deno.readTextFile(new URL("docs/fresh.md", ROOT)),
  );
  const files = await exampleCode();
  assert.ok(files.includes("cms.ts") && files.includes("routes/index.tsx"));
  for (const path of files) {
    assert.ok(guide.has(path), `docs/fresh.md has no section for ${path}`);
  }
  for (const [path, code] of guide) {
    const file = await Deno.readTextFile(new URL(path, EXAMPLE));
    assert.equal(
      code,
      file,
      `docs/fresh.md differs from examples/fresh/${path}`,
    );
  }
});

Deno.test("docs/fresh.md: the comparison notices a changed line", () => {
  const guide = guideFiles("## `a.ts`\n\nText.\n\n```ts\nconst a = 1;\n```\n");
  assert.equal(guide.get("a.ts"), "const a = 1;\n");
  assert.notEqual(guide.get("a.ts"), "const a = 2;\n");
});
