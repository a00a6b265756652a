/**
 * Sizes of the content checks in the browser bundle (built in this run,
 * gzip): the checks chunk with the checker it bundles ≤ 4 KiB, the panel
 * and the link check each ≤ 4 KiB, none of them in what loads to edit a
 * page (which stays ≤ 20 KiB).
 */
import assert from "node:assert/strict";
import { GOALS, run } from "../../bench/client_size.ts";

Deno.test("checks: chunk sizes, nothing added to editing", async () => {
  const r = await run();
  // Panels are the lazy chunks outside what editing loads, each with what
  // it imports beyond that: so the checker is counted with the checks.
  const checks = r.panels.filter((p) => p.name.startsWith("checks"));
  assert.deepEqual(
    checks.map((p) => p.name.replace(/-\w+\.js$/, "")).sort(),
    ["checks", "checks_links", "checks_panel"],
  );
  for (const p of checks) {
    assert.ok(p.gzip <= GOALS.panel, `${p.name}: ${p.gzip} B gzip`);
  }
  assert.ok(r.editing <= GOALS.editing, `editing: ${r.editing} B gzip`);
});
