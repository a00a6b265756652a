/**
 * The drafts list endpoint (`GET /api/cms/drafts`): the drafts an editor
 * may publish.
 *
 * @module
 */
import { type FieldAddress, parseAddress } from "../../core/address.ts";
import { storedAddress } from "../../core/stored_address.ts";
import { type DraftsListing, Status } from "../../core/protocol/mod.ts";
import { type EndpointCall, type Handler, json } from "../http/mod.ts";
import { draftEndpoint, type DraftHandlerOptions, mayEdit } from "./_shared.ts";

/** The page of `address` by the host's `pageUrl`: a site path, or none. */
function pageOf(
  options: DraftHandlerOptions,
  address: FieldAddress,
): string | undefined {
  try {
    const page = options.pageUrl?.(address);
    // Only a site path: the editor follows it as a same-site link.
    return typeof page === "string" && /^\/(?!\/)/.test(page)
      ? page
      : undefined;
  } catch (err) {
    console.error("cms: pageUrl failed", err);
    return undefined;
  }
}

/**
 * `GET` the drafts an editor may publish:
 * 200 `{"drafts": [{"field", "at", "editor", "page"?}]}`, oldest first;
 * `page` is the site path the host's `pageUrl` gives (links in the
 * publish panel). Drafts of
 * fields that `canEdit` refuses to this editor are left out.
 * 403 without a session or from another site; 405 for other methods.
 *
 * @example
 * ```ts
 * import { createDraftsHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const drafts = createDraftsHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createDraftsHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "drafts",
    options,
    ["GET", "HEAD"],
    async (req, editor, call) => {
      const out: DraftsListing = { drafts: [] };
      for (const d of await options.store.drafts()) {
        const field = storedAddress(d);
        const address = parseAddress(field);
        if (typeof address === "string") continue;
        if (!await mayEdit(options, req, address, editor, call)) continue;
        const page = pageOf(options, address);
        out.drafts.push({
          field,
          at: d.at,
          editor: d.editor,
          ...page ? { page } : {},
        });
      }
      return json(Status.OK, out, { "Cache-Control": "no-store" });
    },
  );
}
