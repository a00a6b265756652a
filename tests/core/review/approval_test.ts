import assert from "node:assert/strict";
import { approvalCovers } from "../../../core/review/approval.ts";
import type { Approval } from "../../../core/protocol/review.ts";

const by = { name: "Ada", kind: "reviewer" as const };
function verdict(
  id: string,
  at: string,
  verdict: Approval["verdict"],
  fields: Record<string, string>,
): Approval {
  return {
    id,
    page: "/",
    verdict,
    by,
    at: `2030-01-0${at}T00:00:00.000Z`,
    fields: Object.entries(fields).map(([field, version]) => ({
      field,
      version,
    })),
  };
}
const missing = (approvals: Approval[], drafts: Record<string, string>) =>
  approvalCovers(
    approvals,
    Object.entries(drafts).map(([field, version]) => ({ field, version })),
  ).missing;

Deno.test("approvalCovers: an approval covers the draft versions it lists", () => {
  const a = verdict("a", "1", "approved", { t: "1", b: "5" });
  const coverage = approvalCovers([a], [{ field: "t", version: "1" }]);
  assert.deepEqual(coverage, {
    covered: [{ field: "t", approval: a }],
    missing: [],
  });
  assert.deepEqual(missing([a], { t: "1", b: "5" }), []);
});

Deno.test("approvalCovers: a later draft edit voids it", () => {
  const a = verdict("a", "1", "approved", { t: "1", b: "5" });
  assert.deepEqual(missing([a], { t: "2", b: "5" }), ["t"]);
});

Deno.test("approvalCovers: a later 'changes' voids it, a later approval restores it", () => {
  const a = verdict("a", "1", "approved", { t: "1" });
  const c = verdict("c", "2", "changes", { t: "1" });
  const again = verdict("x", "3", "approved", { t: "1" });
  assert.deepEqual(missing([a, c], { t: "1" }), ["t"]);
  assert.deepEqual(missing([a, c, again], { t: "1" }), []);
  // Time decides, not the order given.
  assert.deepEqual(missing([c, a], { t: "1" }), ["t"]);
  assert.deepEqual(missing([again, c, a], { t: "1" }), []);
});

Deno.test("approvalCovers: the latest verdict listing the field decides", () => {
  const old = verdict("a", "1", "approved", { t: "1" });
  const newer = verdict("b", "2", "approved", { t: "2" });
  // Back to version 1 after version 2 was approved: not covered.
  assert.deepEqual(missing([old, newer], { t: "1" }), ["t"]);
  // A verdict that does not list a field leaves its approval alone.
  const other = verdict("c", "3", "changes", { b: "9" });
  assert.deepEqual(missing([newer, other], { t: "2", b: "9" }), ["b"]);
});

Deno.test("approvalCovers: a tie in time goes to the later one given", () => {
  const a = verdict("a", "1", "approved", { t: "1" });
  const c = verdict("c", "1", "changes", { t: "1" });
  assert.deepEqual(missing([a, c], { t: "1" }), ["t"]);
  assert.deepEqual(missing([c, a], { t: "1" }), []);
});

Deno.test("approvalCovers: nothing approved, nothing covered", () => {
  assert.deepEqual(missing([], { t: "1", b: "2" }), ["t", "b"]);
  assert.deepEqual(approvalCovers([], []), { covered: [], missing: [] });
});
