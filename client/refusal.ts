/**
 * Refusals: the one place where a failed request of the editor (save,
 * publish, discard, restore, schedule, upload, media library) becomes a
 * short reason, and where it is reported. The server's reason is its
 * plain-text body, capped at 200 characters; an HTML error page (a proxy's
 * 413, say) is never shown as text: the status stands in for it. A report
 * is a `cms:error` event on `document`, which the session shows in the edit
 * bar's status and a toast; the panel that asked shows it too.
 *
 * @module
 */

import { t } from "./labels.ts";

/**
 * The reason to show for an answer with `status`, `type` (its
 * `Content-Type`) and body `text`; status 0 is no answer (network, offline).
 *
 * @example
 * ```ts
 * import { reasonText } from "./refusal.ts";
 * reasonText(413, "text/plain", "value too large"); // "value too large"
 * reasonText(413, "text/html", "<html>…"); // "HTTP 413"
 * ```
 */
export function reasonText(
  status: number,
  type: string | null,
  text: string,
): string {
  return (!type || type.startsWith("text/plain") ? text.trim() : "")
    .slice(0, 200) ||
    (status
      ? `HTTP ${status}`
      : t(navigator.onLine === false ? "offlineReason" : "unreachable"));
}

/** The reason of `res`, a refused answer (`null`: none came). */
export async function reasonOf(res: Response | null): Promise<string> {
  return reasonText(
    res?.status ?? 0,
    res?.headers.get("content-type") ?? null,
    res ? await res.text().catch(() => "") : "",
  );
}

/** What a `cms:error` event says beyond a failed save's fields. */
export interface Refusal {
  /** What was refused: `save`, `publish`, `discard`, `restore`, `schedule`,
   * `upload`, `library`. */
  action: string;
  /** HTTP status; 0 when no answer came. */
  status: number;
  /** The server's short reason (see {@linkcode reasonText}). */
  reason: string;
  /** The sentence the editor reads, e.g. "Not published: too large". */
  message: string;
  /** The field's address, when one field was concerned. */
  field?: string;
  /** `true` on an upload's refusal (as `action: "upload"`). */
  upload?: boolean;
}

/**
 * Reports `refusal` (a `cms:error` event on `document`); returns its
 * message, for the panel that asked.
 */
export function refuse(refusal: Refusal): string {
  document.dispatchEvent(new CustomEvent("cms:error", { detail: refusal }));
  return refusal.message;
}

/** Reports a refused upload for `field` (`upload: true` for older hosts). */
export const uploadRefused = (
  field: string,
  status: number,
  reason: string,
): string =>
  refuse({
    action: "upload",
    field,
    status,
    reason,
    message: t("uploadFailed", { reason }),
    upload: true,
  });
