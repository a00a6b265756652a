/**
 * Review links and what a reviewer does with one: `POST review/links`
 * (editors) signs a link to one page; `POST review/name` binds the name a
 * reviewer gives to their link (an HttpOnly cookie); `POST
 * review/approve?page=P` records a verdict on the page's drafts; and
 * {@linkcode reviewOf} tells the host that a page request comes with a
 * valid link (render the drafts and the reviewer's client).
 *
 * @module
 */
import {
  type Approval,
  REVIEW_LINK_DEFAULT_SECONDS,
  REVIEW_LINK_MAX_SECONDS,
  REVIEW_PARAM,
  type ReviewLinkAnswer,
} from "../../core/protocol/review.ts";
import { Status } from "../../core/protocol/mod.ts";
import { HttpError, json, readJsonObject, requestUrl } from "../http/mod.ts";
import type { PreviewSigner } from "../drafts/mod.ts";
import { checkName, nameCookie, reviewCookie, tokenExpiry } from "./_access.ts";
import { checkPage, checkText, checkVerdict } from "./_checks.ts";
import { authorOf, type Call } from "./comments.ts";

/** Shortest review link, in seconds. */
const MIN_SECONDS = 60;

/** The site's public origin for this request (the first one named). */
function originOf(c: Call): string {
  const publicOrigin = c.call?.publicOrigin ?? c.front.options.publicOrigin;
  return typeof publicOrigin === "string"
    ? publicOrigin
    : Array.isArray(publicOrigin) && publicOrigin.length
    ? publicOrigin[0]
    : requestUrl(c.req).origin;
}

/** `POST review/links` `{page, expiresIn?}` → `{url, expires}` (editors only). */
export async function createLink(c: Call): Promise<Response> {
  if (c.admitted.kind !== "editor") {
    throw new HttpError(Status.Forbidden, "Only editors create review links");
  }
  const body = await readJsonObject(c.req, 4096);
  const page = checkPage(body.page);
  const { allowPath, signer } = c.front.options;
  if (allowPath && !allowPath(page)) {
    throw new HttpError(Status.BadRequest, "This page cannot be reviewed");
  }
  const seconds = body.expiresIn ?? REVIEW_LINK_DEFAULT_SECONDS;
  if (
    typeof seconds !== "number" || !Number.isInteger(seconds) ||
    seconds < MIN_SECONDS || seconds > REVIEW_LINK_MAX_SECONDS
  ) {
    throw new HttpError(
      Status.BadRequest,
      `expiresIn must be whole seconds from ${MIN_SECONDS} to ${REVIEW_LINK_MAX_SECONDS} (30 days)`,
    );
  }
  const { token, expires } = await signer.sign(page, seconds);
  const url = new URL(page, originOf(c));
  url.searchParams.set(REVIEW_PARAM, token);
  const answer: ReviewLinkAnswer = {
    url: url.href,
    expires: expires.toISOString(),
  };
  return json(Status.OK, answer, { "Cache-Control": "no-store" });
}

/**
 * `POST review/name` `{name, page}` (or `?page=P`): binds the reviewer's
 * name to their link in an HttpOnly cookie that ends with the link → 204.
 */
export async function setName(c: Call): Promise<Response> {
  if (c.admitted.kind !== "token") {
    throw new HttpError(
      Status.BadRequest,
      "Editors comment under their own name",
    );
  }
  const body = await readJsonObject(c.req, 4096);
  const page = checkPage(
    body.page ?? requestUrl(c.req).searchParams.get("page"),
  );
  const reviewer = await c.front.scope(c.req, c.admitted, page);
  const name = checkName(body.name);
  if (name === null) {
    throw new HttpError(
      Status.BadRequest,
      "A name must be 1 to 80 characters, without control characters",
    );
  }
  const secure = new URL(originOf(c)).protocol === "https:";
  const token = (reviewer as { token: string }).token;
  return new Response(null, {
    status: Status.NoContent,
    headers: {
      "Set-Cookie": nameCookie(token, name, tokenExpiry(token), secure),
      "Cache-Control": "no-store",
    },
  });
}

/**
 * `POST review/approve?page=P` `{verdict, note?}` → 201 the
 * {@linkcode Approval}: the page's drafts and their versions now.
 */
export async function approve(c: Call): Promise<Response> {
  const page = checkPage(requestUrl(c.req).searchParams.get("page"));
  const caller = await c.front.scope(c.req, c.admitted, page);
  const by = authorOf(caller);
  const body = await readJsonObject(c.req, 16 * 1024);
  const verdict = checkVerdict(body.verdict);
  const note = body.note === undefined || body.note === ""
    ? undefined
    : checkText(body.note, "Note");
  const { store } = c.front.options;
  // The latest verdict decides: this one must sort after every earlier
  // one, even within the same millisecond.
  const last = Math.max(
    0,
    ...(await store.approvals(page)).map((a) => Date.parse(a.at)),
  );
  const approval: Approval = {
    id: crypto.randomUUID(),
    page,
    verdict,
    by,
    at: new Date(Math.max(Date.now(), last + 1)).toISOString(),
    ...(note === undefined ? {} : { note }),
    fields: await c.front.draftsOf(page, caller, c.req, c.call),
  };
  const stored = await store.addApproval(approval);
  await c.front.changed(page);
  return json(201, stored);
}

/** What {@linkcode reviewOf} finds: the page a valid review link opens. */
export interface ReviewVisit {
  /** The page's path (the request's). */
  page: string;
  /** The name the reviewer gave on this link, if any. */
  name?: string;
}

/**
 * Whether a page request comes with a valid review link for its own path:
 * the `review` query parameter holds a token signed for exactly this path
 * that has not expired (the name comes from the review cookie, when it
 * carries the same token). Then the host renders
 * the page's drafts and the reviewer's client; `null` otherwise.
 *
 * @example
 * ```ts
 * import { reviewOf } from "./links.ts";
 * import { reviewSigner } from "./options.ts";
 * const signer = reviewSigner("a-long-random-secret-of-32-bytes-or-more");
 * const { token } = await signer.sign("/about", 3600);
 * const req = new Request(`http://localhost/about?review=${token}`, {
 *   headers: { Host: "localhost" },
 * });
 * await reviewOf(req, signer); // { page: "/about" }
 * ```
 */
export async function reviewOf(
  req: Request,
  signer: PreviewSigner,
): Promise<ReviewVisit | null> {
  let url: URL;
  try {
    url = requestUrl(req);
  } catch {
    return null;
  }
  // Only the link opens a review page: the cookie alone does not, so an
  // editor who tried a link still sees their own pages as usual.
  const token = url.searchParams.get(REVIEW_PARAM);
  if (!token || !await signer.verify(token, url.pathname)) return null;
  const bound = reviewCookie(req);
  const name = bound?.token === token ? bound.name : undefined;
  return name === undefined
    ? { page: url.pathname }
    : { page: url.pathname, name };
}
