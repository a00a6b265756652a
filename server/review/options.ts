/**
 * The options every review endpoint shares ({@linkcode ReviewHandlerOptions})
 * and the review links' signer ({@linkcode reviewSigner}).
 *
 * @module
 */
import type { FieldAddress } from "../../core/address.ts";
import type {
  Allowlist,
  Authorize,
  CanEdit,
  OriginOptions,
} from "../http/mod.ts";
import { PreviewSigner } from "../drafts/mod.ts";
import type { ContentStore, DraftStore, ReviewStore } from "../store/mod.ts";

/** Options of the review endpoints (`createReviewHandlers`). */
export interface ReviewHandlerOptions extends OriginOptions {
  /** The editor from the server-side session, or `null` (then a review token is needed). */
  authorize: Authorize;
  /** The save endpoint's allowlist: a comment's field must be on it. */
  allowlist: Allowlist;
  /**
   * The per-record rule: an editor sees and writes comments only on
   * fields they may edit, and approves only those fields' drafts.
   */
  canEdit?: CanEdit;
  /** Keeps comments and approvals; its drafts are what an approval covers. */
  store: ReviewStore & ContentStore & Partial<Pick<DraftStore, "drafts">>;
  /**
   * Signs and checks review links: a {@linkcode PreviewSigner} with the
   * `review` capability ({@linkcode reviewSigner}).
   */
  signer: PreviewSigner;
  /**
   * The site path of the page that shows a field: an approval of a page
   * covers the drafts of fields on it. Without it, an approval covers
   * every draft (a one-page site).
   */
  pageUrl?: (address: FieldAddress) => string | null | undefined;
  /** Which paths may get a review link. Default: any canonical path. */
  allowPath?: (path: string) => boolean;
  /** Requests one review link may make per minute (→ 429). Default 120. */
  reviewerRequestsPerMinute?: number;
  /**
   * Called after a page's comments or approvals changed (e.g.
   * `EditorEvents.onComments`, so listeners re-read). Its errors are logged.
   */
  onComments?: (page: string) => void | Promise<void>;
}

/**
 * The signer of review links: a {@linkcode PreviewSigner} with the
 * `review` capability over `secret` (at least 32 bytes). Its tokens are
 * not preview tokens and the other way round, even with the same secret.
 *
 * @example
 * ```ts
 * import { reviewSigner } from "./options.ts";
 * const signer = reviewSigner("a-long-random-secret-of-32-bytes-or-more");
 * const { token } = await signer.sign("/about", 3600);
 * ```
 */
export function reviewSigner(secret: string | Uint8Array): PreviewSigner {
  return new PreviewSigner(secret, "review");
}
