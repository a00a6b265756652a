/**
 * Which of a page's drafts an approval covers: the publish gate's rule.
 *
 * @module
 */
import type { Approval } from "../protocol/review.ts";

/** A field's current draft: its address and its draft version. */
export interface DraftVersion {
  /** The field's address (as the approvals list it). */
  field: string;
  /** The draft's version now. */
  version: string;
}

/** What {@linkcode approvalCovers} finds. */
export interface ApprovalCoverage {
  /** The fields whose current draft an approval covers, with that approval. */
  covered: { field: string; approval: Approval }[];
  /** The fields whose current draft no approval covers, in the order given. */
  missing: string[];
}

/**
 * Which fields' current drafts are approved. For each field, the latest
 * verdict (by time; on a tie the later in `approvals`) that lists it
 * decides: it is covered when that verdict is `approved` and lists the
 * field's current draft version. A later `changes` voids an approval, and
 * so does a draft edited after it (its version differs): both need a new
 * approval. A field no verdict lists is missing. Versions are content
 * hashes, so a draft edited back to exactly the approved value is covered
 * again, unless a later verdict listed it otherwise.
 *
 * @example
 * ```ts
 * import { approvalCovers } from "./approval.ts";
 * const by = { name: "Ada", kind: "reviewer" as const };
 * const approved = { id: "a1", page: "/", verdict: "approved" as const, by,
 *   at: "2030-01-01T00:00:00Z", fields: [{ field: "pages:home:title", version: "2x" }] };
 * approvalCovers([approved], [{ field: "pages:home:title", version: "2x" }]).missing; // []
 * approvalCovers([approved], [{ field: "pages:home:title", version: "3x" }]).missing;
 * // ["pages:home:title"]
 * ```
 */
export function approvalCovers(
  approvals: readonly Approval[],
  drafts: readonly DraftVersion[],
): ApprovalCoverage {
  const latest = new Map<string, { approval: Approval; version: string }>();
  const order = approvals.map((approval, i) => ({ approval, i }))
    .sort((a, b) =>
      (Date.parse(a.approval.at) - Date.parse(b.approval.at)) || a.i - b.i
    );
  for (const { approval } of order) {
    for (const { field, version } of approval.fields) {
      latest.set(field, { approval, version });
    }
  }
  const coverage: ApprovalCoverage = { covered: [], missing: [] };
  for (const { field, version } of drafts) {
    const last = latest.get(field);
    if (last?.approval.verdict === "approved" && last.version === version) {
      coverage.covered.push({ field, approval: last.approval });
    } else coverage.missing.push(field);
  }
  return coverage;
}
