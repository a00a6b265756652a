/**
 * The discard endpoint (`POST /api/cms/discard`): drops one field's draft;
 * the published value stays.
 *
 * @module
 */
import { fieldPath, formatAddress } from "../../core/address.ts";
import { Status } from "../../core/protocol/mod.ts";
import {
  allowedField,
  type EndpointCall,
  type Handler,
  HttpError,
} from "../http/mod.ts";
import {
  draftEndpoint,
  type DraftHandlerOptions,
  mayEdit,
  readDraftBody,
} from "./_shared.ts";

/**
 * `POST` JSON `{"field": ADDRESS}` drops that field's draft; the published
 * value stays. 204 (also when the field had no draft: nothing to drop);
 * 400 for malformed JSON or a malformed or non-allowlisted field; 403
 * without a session, from another site, or when `canEdit` refuses; 405 for
 * other methods.
 *
 * @example
 * ```ts
 * import { createDiscardHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const discard = createDiscardHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createDiscardHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "discard",
    options,
    ["POST"],
    async (req, editor, call) => {
      const body = await readDraftBody(req);
      const address = allowedField(options.allowlist, body.field);
      if (!await mayEdit(options, req, address, editor, call)) {
        throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
      }
      await options.store.discard(
        address.collection,
        address.key,
        fieldPath(address),
      );
      try {
        await options.onDiscard?.(formatAddress(address), editor);
      } catch (err) {
        console.error("cms: onDiscard failed", err);
      }
      return new Response(null, { status: Status.NoContent });
    },
  );
}
