/**
 * The client build's regrouping of `deno bundle`'s chunks: the shared
 * chunks the session imports and tiny shared chunks join one kit chunk, a
 * facade chunk takes in the chunk it re-exports, everything else stays on
 * its own; and the real build has one shared chunk and no facade.
 */
import assert from "node:assert/strict";
import { buildClient, chunkGroups } from "../../tools/build_client.ts";

Deno.test("chunkGroups: kit, tiny and facade chunks are grouped", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-groups-" });
  try {
    const files: Record<string, string> = {
      "mod.js": `import("./cms-AAAAAAAA.js");export{};`,
      "cms-AAAAAAAA.js":
        `import{a as l}from"./chunk-LABELS00.js";import{b as t}from"./chunk-THEME000.js";export const m=l+t;`,
      "chunk-LABELS00.js": `var a="${"label ".repeat(50)}";export{a};`,
      "chunk-THEME000.js": `var b="${"theme ".repeat(50)}";export{b};`,
      "chunk-TINY0000.js": `var c="x";export{c};`,
      "chunk-UPLOAD00.js": `var d="${"upload ".repeat(50)}";export{d};`,
      "chunk-ALONE000.js": `var e="${"alone ".repeat(50)}";export{e};`,
      "upload-BBBBBBBB.js":
        `import{d as u}from"./chunk-UPLOAD00.js";export{u as upload};`,
      "list-CCCCCCCC.js":
        `import{e as a}from"./chunk-ALONE000.js";export const f=a;`,
    };
    for (const [name, code] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, code);
    }
    const groups = Object.fromEntries(await chunkGroups(dir));
    assert.deepEqual(groups, {
      "chunk-LABELS00.js": "chunk",
      "chunk-THEME000.js": "chunk",
      "chunk-TINY0000.js": "chunk",
      "chunk-UPLOAD00.js": "upload",
      "upload-BBBBBBBB.js": "upload",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("buildClient: one shared chunk, no facade, entry mod.js", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-build-" });
  try {
    const { files } = await buildClient(dir);
    assert.equal(files[0].name, "mod.js");
    const shared = files.filter((f) => f.name.startsWith("chunk-"));
    assert.equal(shared.length, 1, files.map((f) => f.name).join(" "));
    const session = files.find((f) => f.name.startsWith("cms-"))!;
    assert.deepEqual(session.imports, [shared[0].name]);
    // No chunk is only a re-export of another (the uploader holds its code).
    for (const f of files) {
      const code = await Deno.readTextFile(`${dir}/${f.name}`);
      assert.doesNotMatch(
        code,
        /^import\{[^}]*\}from"[^"]+";export\{[^}]*\};?$/,
      );
    }
    assert.ok(files.find((f) => f.name.startsWith("upload-"))!.bytes > 500);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
