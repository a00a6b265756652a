/**
 * Who may see what on the editor event stream (and the page a stream
 * listens to, {@linkcode pageOf}): a field address is shown to
 * a listener only when it is allowlisted and the save endpoint's `canEdit`
 * rule lets that listener edit it (a failing rule means no).
 *
 * @module
 */
import { parseAddress } from "../../core/address.ts";
import { Status } from "../../core/protocol/mod.ts";
import {
  type Allowlist,
  type CanEdit,
  type Editor,
  type EndpointCall,
  HttpError,
  mayEdit,
  resolveField,
} from "../http/mod.ts";

/** Longest page path accepted. */
const MAX_PAGE_LENGTH = 512;

/** The rules a listener's view is filtered by. */
export interface AccessRules {
  /** The save endpoint's allowlist. */
  allowlist: Allowlist;
  /** The save endpoint's per-record rule. */
  canEdit?: CanEdit;
}

/** The request a listener opened its stream (or sent its report) with. */
export interface Listener {
  /** The request. */
  readonly req: Request;
  /** The editor of its session. */
  readonly editor: Editor;
  /** The endpoint pipeline's call (its context goes to `canEdit`). */
  readonly call: EndpointCall | undefined;
}

/**
 * Whether `who` may edit (and so see) the field at address text `field`.
 *
 * @example
 * ```ts
 * import { may } from "./_access.ts";
 * const rules = { allowlist: { pages: { title: "plain" as const } } };
 * const who = { req: new Request("http://x/"), editor: { name: "Ada" }, call: undefined };
 * await may(rules, who, "pages:home:title"); // true
 * ```
 */
export async function may(
  rules: AccessRules,
  who: Listener,
  field: string,
): Promise<boolean> {
  const address = parseAddress(field);
  if (typeof address === "string") return false;
  if (typeof resolveField(rules.allowlist, address) === "string") {
    return false;
  }
  try {
    return await mayEdit(rules, who.req, address, who.editor, who.call);
  } catch {
    return false;
  }
}

/**
 * Whether `field` is the address text of an allowlisted field.
 *
 * @example
 * ```ts
 * import { allowlisted } from "./_access.ts";
 * allowlisted({ pages: { title: "plain" as const } }, "pages:home:title"); // true
 * ```
 */
export function allowlisted(allowlist: Allowlist, field: string): boolean {
  const address = parseAddress(field);
  return typeof address !== "string" &&
    typeof resolveField(allowlist, address) !== "string";
}

/**
 * The page a stream listens to: the `page` parameter of its request; 400
 * when missing or invalid.
 *
 * @example
 * ```ts
 * import { pageOf } from "./_access.ts";
 * pageOf(new Request("http://localhost/api/cms/events?page=/about")); // "/about"
 * ```
 */
export function pageOf(req: Request): string {
  const page = new URL(req.url).searchParams.get("page");
  if (
    page === null || !page.startsWith("/") || page.length > MAX_PAGE_LENGTH ||
    [...page].some((c) => c < " " || c === "\x7f")
  ) {
    throw new HttpError(Status.BadRequest, "Missing or invalid page");
  }
  return page;
}
