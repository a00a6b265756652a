/**
 * The publish endpoint (`POST /api/cms/publish`): publishes drafts, all or
 * none; with `at`, schedules the publish instead (`schedule.ts`).
 *
 * @module
 */
import { parseAddress } from "../../core/address.ts";
import { storedAddress } from "../../core/stored_address.ts";
import { contentVersion } from "../../core/version.ts";
import { approvalCovers } from "../../core/review/approval.ts";
import {
  type PublishAnswer,
  type PublishConflictBody,
  Status,
} from "../../core/protocol/mod.ts";
import {
  type Editor,
  type EndpointCall,
  type Handler,
  HttpError,
  json,
} from "../http/mod.ts";
import { type Draft, isReviewStore } from "../store/mod.ts";
import {
  draftEndpoint,
  type DraftHandlerOptions,
  publishRefs,
  readDraftBody,
} from "./_shared.ts";
import { schedulePublish } from "./schedule.ts";
import { type PublishChecks, refuseFindings } from "../checks/mod.ts";

/** Options of the publish endpoint: the draft endpoints', and the checks. */
export type PublishHandlerOptions = DraftHandlerOptions & {
  /**
   * Publish waits for clean content: a publish (or a schedule) whose rich
   * drafts have error-level findings of the content checks
   * (`checkContent`: an image without alt text, a skipped heading level,
   * an empty heading or link) is refused with 400 and the list. `true`
   * checks every rich field; a function gives the options per field (or
   * `false` to skip it). Default: off.
   */
  checkOnPublish?: PublishChecks;
  /**
   * Publish waits for approval: a publish (or a schedule) of a field whose
   * current draft no approved verdict on its page covers (see
   * `approvalCovers`: a later edit or a later "changes" voids one) is
   * refused with 409 and a plain reason naming the fields. Needs
   * `pageUrl` (the page of each field) and a store that keeps approvals.
   * Default: off.
   */
  requireApproval?: boolean;
};

/**
 * `POST` JSON `{"fields": [ADDRESS, …], "versions": {ADDRESS: VERSION}}`
 * publishes those fields' drafts; without `fields`, every draft the editor
 * may edit, or with `{"locale": "de"}` every such draft of that locale's
 * values (shared fields' drafts go only with a publish of all). All or
 * none, in one atomic store operation; each field gets a revision marked
 * published.
 *
 * - 200 {@linkcode PublishAnswer}: the addresses that went public (fields
 *   without a draft are left out).
 * - 409 {@linkcode PublishConflictBody}: a field's draft is not the
 *   `versions` entry the editor sent (another editor changed it); nothing
 *   was published.
 * - 400: malformed JSON, `fields` not a list of allowlisted addresses (at
 *   most 1000), `versions` not an object of strings, an undeclared
 *   `locale`, `locale` with `fields`, or `at` on a site that runs no
 *   scheduler (neither `scheduler` nor `schedulerElsewhere`), or with
 *   `checkOnPublish`, drafts with error-level findings (the reason lists
 *   them); with `requireApproval`, 409 (plain text) naming the fields
 *   whose current draft no approval covers; 403 without a session,
 *   from another site, or when `canEdit` refuses a named field; 405 for
 *   other methods; 413 for a publish too large for the store.
 *
 * @example
 * ```ts
 * import { createPublishHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const publish = createPublishHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createPublishHandler(
  options: PublishHandlerOptions,
): Handler<EndpointCall> {
  if (
    options.requireApproval &&
    (!options.pageUrl || !isReviewStore(options.store))
  ) {
    throw new TypeError(
      "requireApproval needs pageUrl and a store that keeps approvals",
    );
  }
  return draftEndpoint(
    "publish",
    options,
    ["POST"],
    async (req, editor, call) => {
      const body = await readDraftBody(req);
      if (options.checkOnPublish) {
        const refs = await publishRefs(options, req, editor, call, body);
        const names = refs && new Set(refs.map(storedAddress));
        const drafts = (await options.store.drafts())
          .filter((d) => !names || names.has(storedAddress(d)));
        refuseFindings(req, options.allowlist, options.checkOnPublish, drafts);
      }
      if (options.requireApproval) {
        await refuseUnapproved(options, req, editor, call, body);
      }
      if (body.at !== undefined) {
        if (!options.scheduler && !options.schedulerElsewhere) {
          throw new HttpError(
            Status.BadRequest,
            "This site does not schedule publishes: publish now instead",
          );
        }
        return await schedulePublish(options, req, editor, call, body);
      }
      const refs = await publishRefs(options, req, editor, call, body);
      const result = await options.store.publish(refs, editor.name);
      if (result.conflicts.length) {
        const conflict: PublishConflictBody = {
          error: "conflict",
          conflicts: result.conflicts.map((c) => ({
            field: storedAddress(c),
            value: c.value,
            version: c.version,
          })),
        };
        return json(Status.Conflict, conflict);
      }
      if (options.onPublish && result.published.length) {
        try {
          await options.onPublish(result.published, editor);
        } catch (err) {
          console.error("cms: onPublish failed", err);
        }
      }
      const answer: PublishAnswer = {
        published: result.published.map(storedAddress),
      };
      return json(Status.OK, answer);
    },
  );
}

/**
 * 409 unless an approved verdict on its page covers each named field's
 * current draft (`requireApproval`).
 */
async function refuseUnapproved(
  options: PublishHandlerOptions,
  req: Request,
  editor: Editor,
  call: EndpointCall | undefined,
  body: Record<string, unknown>,
): Promise<void> {
  const refs = await publishRefs(options, req, editor, call, body);
  const names = refs && new Set(refs.map(storedAddress));
  const byPage = new Map<string | null, Draft[]>();
  for (const draft of await options.store.drafts()) {
    const field = storedAddress(draft);
    if (names && !names.has(field)) continue;
    const page = pageOf(options, field);
    byPage.set(page, [...byPage.get(page) ?? [], draft]);
  }
  const missing: string[] = [];
  const store = options.store;
  for (const [page, drafts] of byPage) {
    const versions = drafts.map((d) => ({
      field: storedAddress(d),
      version: contentVersion(d.value),
    }));
    const approvals = page !== null && isReviewStore(store)
      ? await store.approvals(page)
      : [];
    missing.push(...approvalCovers(approvals, versions).missing);
  }
  if (missing.length) {
    const list = missing.slice(0, 5).join(", ") +
      (missing.length > 5 ? ` and ${missing.length - 5} more` : "");
    throw new HttpError(
      Status.Conflict,
      `Publish needs an approval: no approved review covers the current draft of ${list}`,
    );
  }
}

/** The page of a field (`pageUrl`), `null` when it has none or fails. */
function pageOf(options: PublishHandlerOptions, field: string): string | null {
  const address = parseAddress(field);
  if (typeof address === "string" || !options.pageUrl) return null;
  try {
    return options.pageUrl(address) ?? null;
  } catch {
    return null;
  }
}
