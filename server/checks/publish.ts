/**
 * The check a publish may wait for: the content checks run on the drafts
 * about to go public, and error-level findings refuse the publish (400,
 * the fields and their findings listed in the plain-text reason).
 *
 * @module
 */
import { type FieldAddress, parseAddress } from "../../core/address.ts";
import { checkContent, type CheckOptions } from "../../core/checks.ts";
import type { Allowlist } from "../../core/content.ts";
import { localeOfAddress } from "../../core/locale.ts";
import { Status } from "../../core/protocol/http.ts";
import { storedAddress } from "../../core/stored_address.ts";
import { HttpError, resolveField } from "../http/mod.ts";
import type { Draft } from "../store/mod.ts";

/**
 * Whether a publish waits for clean content: `true` checks every rich
 * draft (its first heading may be an `h2`); a function gives the check's
 * options per field (e.g. `headingBase: 2` for a region under the page's
 * `h2`), or `false` to let that field through unchecked.
 */
export type PublishChecks =
  | boolean
  | ((field: FieldAddress) => CheckOptions | false | null | undefined);

/** Fields named in a refusal; the rest are counted. */
const MAX_LISTED = 10;

/**
 * Throws a 400 {@linkcode HttpError} when a rich value of `drafts` has
 * error-level findings (`checkContent`): the reason names each such field
 * and its errors, in the request's language (German for
 * `Accept-Language: de…`, else English). Nothing is published then.
 */
export function refuseFindings(
  req: Request,
  allowlist: Allowlist,
  checks: PublishChecks | undefined,
  drafts: Draft[],
): void {
  if (!checks) return;
  const lang = req.headers.get("Accept-Language")?.trim().slice(0, 2);
  const lines: string[] = [];
  for (const draft of drafts) {
    const address = parseAddress(storedAddress(draft));
    if (typeof address === "string") continue;
    const field = resolveField(allowlist, address);
    if (typeof field === "string") continue;
    const rich = field.spec.kind === "rich" || field.spec.item?.kind === "rich";
    const given = checks === true ? {} : checks(address);
    if (!rich || !given) continue;
    const options: CheckOptions = {
      locale: localeOfAddress(allowlist, address),
      ...given,
      lang,
    };
    const values = Array.isArray(draft.value) ? draft.value : [draft.value];
    const errors = new Set(
      values.flatMap((html) => checkContent(html, options))
        .filter((f) => f.severity === "error").map((f) => f.message),
    );
    if (errors.size) {
      lines.push(`${storedAddress(draft)}: ${[...errors].join("; ")}`);
    }
  }
  if (!lines.length) return;
  const more = lines.length - MAX_LISTED;
  const de = lang === "de";
  throw new HttpError(
    Status.BadRequest,
    [
      de
        ? "Veröffentlichen wartet auf fehlerfreie Inhalte: erst beheben"
        : "Publish waits for clean content: fix these first",
      ...lines.slice(0, MAX_LISTED),
      ...more > 0 ? [de ? `und ${more} weitere` : `and ${more} more`] : [],
    ].join("\n"),
  );
}
