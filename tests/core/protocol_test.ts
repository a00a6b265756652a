import assert from "node:assert/strict";
import * as protocol from "../../core/protocol/mod.ts";
import * as core from "../../core/mod.ts";

Deno.test("protocol: @inplace/cms/core gives the protocol's values", () => {
  for (const [name, value] of Object.entries(protocol)) {
    assert.equal((core as Record<string, unknown>)[name], value, name);
  }
});

Deno.test("protocol: constants keep their values", () => {
  assert.equal(protocol.VERSION_HEADER, "CMS-Version");
  assert.equal(protocol.REMOVED_HEADER, "CMS-Removed");
  assert.equal(protocol.ERROR_CONTENT_TYPE, "text/plain; charset=utf-8");
  assert.equal(protocol.SCHEDULED, 202);
  assert.ok(Object.isFrozen(protocol.Status));
  assert.equal(protocol.Status.NoContent, 204);
  assert.equal(protocol.Status.ServiceUnavailable, 503);
});

Deno.test("protocol: each module imports nothing (declarations only)", async () => {
  const dir = new URL("../../core/protocol/", import.meta.url);
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name === "mod.ts" || !entry.name.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(new URL(entry.name, dir));
    assert.doesNotMatch(source, /^\s*import\b/m, entry.name);
    assert.doesNotMatch(source, /\bissue \d+/i, entry.name);
  }
});
