/**
 * Review in place: comments anchored to a page's text, review links for
 * people without an account, and approvals of a page's drafts. The
 * endpoints ({@linkcode createReviewHandlers}), the review links' signer
 * ({@linkcode reviewSigner}), the page-side check of a link
 * ({@linkcode reviewOf}) and the publish gate ({@linkcode unapproved}).
 * Guide: `docs/review.md`.
 *
 * @module
 */
export { createReviewHandlers, type ReviewHandlers } from "./handlers.ts";
export { type ReviewHandlerOptions, reviewSigner } from "./options.ts";
export { reviewOf, type ReviewVisit } from "./links.ts";
export { REVIEW_COOKIE } from "./_access.ts";
export { type StreamAccess, withReviewers } from "./listen.ts";
