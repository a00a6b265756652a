/**
 * `createReviewHandlers`: every review endpoint from one options object,
 * sharing one front (one rate per review token across them all).
 *
 * @module
 */
import { endpoint, type EndpointCall, type Handler } from "../http/mod.ts";
import { ReviewFront } from "./_front.ts";
import {
  addComment,
  type Call,
  deleteComment,
  listComments,
  patchComment,
} from "./comments.ts";
import {
  approve,
  createLink,
  reviewOf,
  type ReviewVisit,
  setName,
} from "./links.ts";
import type { ReviewHandlerOptions } from "./options.ts";

/** The review endpoints, and the page-side check of a review link. */
export interface ReviewHandlers {
  /** `GET comments?page=P` → `CommentsAnswer`; `POST comments` → 201 `Comment`. */
  comments: Handler<EndpointCall>;
  /** `PATCH comments/ID` → 200 `Comment`; `DELETE comments/ID` → 204. */
  comment: Handler<EndpointCall>;
  /** `POST review/links` (editors) → `ReviewLinkAnswer`. */
  links: Handler<EndpointCall>;
  /** `POST review/approve?page=P` → 201 `Approval`. */
  approve: Handler<EndpointCall>;
  /** `POST review/name` (reviewers) → 204 with the name cookie. */
  name: Handler<EndpointCall>;
  /** The review link a page request comes with (see `reviewOf`), or `null`. */
  reviewOf(req: Request): Promise<ReviewVisit | null>;
}

/**
 * The review endpoints. Every refusal is a plain-text 4xx: 400 for a bad
 * page, anchor, verdict, name or body; 403 without a session or a valid
 * review token for the page (expired, tampered, another page), for a
 * reviewer who gave no name, for another author's text, or a field
 * `canEdit` refuses; 404 for an unknown comment or thread; 405 for other
 * methods; 409 past 1000 comments on a page; 413 for text past 2000
 * characters; 421/403 from another host or site; 429 past the review
 * link's rate (`Retry-After`).
 *
 * @example
 * ```ts
 * import { createReviewHandlers, MemoryContentStore, reviewSigner } from "@inplace/cms";
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const review = createReviewHandlers({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 *   signer: reviewSigner("a-long-random-secret-of-32-bytes-or-more"),
 * });
 * ```
 */
export function createReviewHandlers(
  options: ReviewHandlerOptions,
): ReviewHandlers {
  const front = new ReviewFront(options);
  const make = (
    name: string,
    methods: readonly string[],
    handle: (c: Call) => Promise<Response>,
  ): Handler<EndpointCall> =>
    endpoint<EndpointCall>(name, async (req, _ctx, call) => {
      const admitted = await front.admit(req, methods, call);
      return await handle({ front, req, call, admitted });
    });
  return {
    comments: make(
      "comments",
      ["GET", "POST"],
      (c) => c.req.method === "GET" ? listComments(c) : addComment(c),
    ),
    comment: make(
      "comment",
      ["PATCH", "DELETE"],
      (c) => c.req.method === "PATCH" ? patchComment(c) : deleteComment(c),
    ),
    links: make("reviewLinks", ["POST"], createLink),
    approve: make("approve", ["POST"], approve),
    name: make("reviewName", ["POST"], setName),
    reviewOf: (req) => reviewOf(req, options.signer),
  };
}
