/**
 * The host's side of access: who the signed-in editor is ({@linkcode Authorize}),
 * which records they may touch ({@linkcode CanEdit}), and what a framework
 * wrapper passes per call ({@linkcode EndpointCall}).
 *
 * @module
 */
import type { FieldAddress } from "../../core/address.ts";

/** The signed-in editor, as the host's session knows them. */
export interface Editor {
  /** Display name, shown in the edit bar. */
  name: string;
  /** Anything else the host keeps about the editor (id, role, …). */
  [extra: string]: unknown;
}

/**
 * Resolves the editor from the server-side session of a request, or `null`
 * when nobody authorized is signed in. The page's edit mode is never a basis.
 * `context` is the per-call {@linkcode EndpointCall.context}, if any.
 */
export type Authorize = (
  req: Request,
  context?: unknown,
) => Editor | null | undefined | Promise<Editor | null | undefined>;

export type { Allowlist, FieldKind } from "../../core/content.ts";

/**
 * Per-record authorization: runs once the field is known (after the
 * allowlist, before the value is read), with the editor that
 * {@linkcode Authorize} returned. `false` gets 403 and nothing is written.
 * `context` is what the caller passed per call (the Fresh wrappers pass the
 * Fresh context).
 *
 * @example
 * ```ts
 * import type { CanEdit } from "@inplace/cms";
 * // Authors may edit only their own posts.
 * const canEdit: CanEdit = (_req, field, editor) =>
 *   field.collection !== "posts" || field.key.startsWith(`${editor.id}-`);
 * ```
 */
export type CanEdit = (
  req: Request,
  field: FieldAddress,
  editor: Editor,
  context?: unknown,
) => boolean | Promise<boolean>;

/**
 * The optional second argument of a handler, for what differs per request:
 * a framework wrapper passes the page's public origin and its own context.
 */
export interface EndpointCall {
  /** The site's public origin for this request (overrides the option). */
  publicOrigin?: string | readonly string[];
  /** Handed to `authorize` and `canEdit` as their last argument. */
  context?: unknown;
}

/** What {@linkcode mayEdit} reads: the host's optional `canEdit` rule. */
export interface EditRule {
  /** Per-record authorization; none lets every editor edit every field. */
  canEdit?: CanEdit;
}

/**
 * The one rule for what an editor may see and change: whether `canEdit`
 * lets `editor` edit `field` (no rule: yes). Every endpoint that shows
 * content (values, drafts, history, presence, the media library's alt
 * texts) asks it, so a field an editor may not edit is never shown to them.
 *
 * @example
 * ```ts
 * import { mayEdit } from "./auth.ts";
 * const rule = { canEdit: (_req: Request, f: { field: string }) => f.field === "title" };
 * const req = new Request("http://localhost/");
 * const ada = { name: "Ada" };
 * const at = { collection: "pages", key: "home" };
 * await mayEdit(rule, req, { ...at, field: "title" }, ada); // true
 * await mayEdit(rule, req, { ...at, field: "body" }, ada); // false
 * ```
 */
export async function mayEdit(
  rule: EditRule,
  req: Request,
  field: FieldAddress,
  editor: Editor,
  call?: EndpointCall,
): Promise<boolean> {
  return !rule.canEdit ||
    Boolean(await rule.canEdit(req, field, editor, call?.context));
}
