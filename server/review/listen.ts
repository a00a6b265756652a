/**
 * Reviewers on the editor event stream: {@linkcode withReviewers} lets a
 * review link's holder open the stream of its own page, so comments and
 * approvals reach them live, while every field stays closed to them.
 *
 * @module
 */
import { REVIEW_HEADER, REVIEW_PARAM } from "../../core/protocol/review.ts";
import type { Authorize, CanEdit, Editor } from "../http/mod.ts";
import type { PreviewSigner } from "../drafts/mod.ts";
import { reviewCookie } from "./_access.ts";

/** The stream's access rules: who is admitted, and which fields they see. */
export interface StreamAccess {
  /** The editor (or reviewer) of a request, or `null`. */
  authorize: Authorize;
  /** Which fields they see: never any for a reviewer. */
  canEdit: CanEdit;
}

/**
 * The event stream's `authorize` and `canEdit` with reviewers: a `GET`
 * without a session but with a review token (the `X-CMS-Review` header,
 * the `review` query parameter, as an `EventSource` sends no headers, or
 * the review cookie) signed for its `page` is admitted as a reviewer (their
 * name, the token as their session), who may edit no field: they get
 * `comments` events of that page and presence, never a value. Editors are
 * as `authorize` and `canEdit` say.
 *
 * @example
 * ```ts
 * import { reviewSigner, withReviewers } from "@inplace/cms";
 * const access = withReviewers(
 *   { authorize: () => null },
 *   reviewSigner("a-long-random-secret-of-32-bytes-or-more"),
 * );
 * ```
 */
export function withReviewers(
  rules: { authorize: Authorize; canEdit?: CanEdit },
  signer: PreviewSigner,
): StreamAccess {
  const reviewers = new WeakSet<Editor>();
  return {
    async authorize(req, context) {
      const editor = await rules.authorize(req, context);
      if (editor || req.method !== "GET") return editor;
      const bound = reviewCookie(req);
      const query = URL.parse(req.url)?.searchParams;
      // An EventSource sends no headers: the token may come in the query.
      const token = req.headers.get(REVIEW_HEADER) ??
        query?.get(REVIEW_PARAM) ?? bound?.token;
      const page = query?.get("page");
      if (!token || !page || !await signer.verify(token, page)) return null;
      const name = bound?.token === token && bound.name
        ? bound.name
        : "Reviewer";
      const reviewer: Editor = {
        name,
        id: `review:${token.slice(-16)}`,
        session: `review:${token}`,
      };
      reviewers.add(reviewer);
      return reviewer;
    },
    async canEdit(req, field, editor, context) {
      if (reviewers.has(editor)) return false;
      return !rules.canEdit ||
        Boolean(await rules.canEdit(req, field, editor, context));
    },
  };
}
