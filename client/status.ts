/**
 * What the edit bar says about the session: its dot state and the status
 * text, from the model's summary alone (no DOM; tests call it directly).
 *
 * @module
 */

import type { BarState } from "./bar_types.ts";
import { relative, t } from "./labels.ts";
import type { ModelStatus } from "./model.ts";

/**
 * The edit bar's state and text for `s`. Offline wins, then saving, then a
 * failed save (with its retry time), then `refusal` (another request the
 * server refused, e.g. a publish, while its toast shows), then unsaved
 * changes, then `drafts` (fields saved but not published, in draft mode),
 * then clean.
 *
 * @example
 * ```ts ignore
 * barStatus({ dirty: 2, saving: false, removed: 0 }, true);
 * // ["unsaved", "2 unsaved changes"]
 * ```
 */
export function barStatus(
  s: ModelStatus,
  online: boolean,
  drafts = 0,
  refusal?: string,
): [BarState, string] {
  const { dirty, saving, failed, removed } = s;
  const e = failed?.error;
  const reason = e?.status === 409 ? t("changedElsewhere") : e?.reason ?? "";
  return !online
    ? ["offline", t("offline")]
    : saving
    ? ["saving", t("saving")]
    : failed?.retryAt
    ? ["error", t("retrying", { reason, when: relative(failed.retryAt) })]
    : failed
    ? ["error", t("notSaved", { reason })]
    : refusal
    ? ["error", refusal]
    : dirty
    ? ["unsaved", t("unsaved", { n: dirty })]
    : drafts
    ? ["drafts", t("unpublished", { n: drafts })]
    : ["clean", removed ? t("cleanRemoved", { n: removed }) : t("clean")];
}
