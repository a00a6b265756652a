/**
 * Draft mode's endpoints: the drafts listing, publish, discard and the
 * preview link.
 *
 * - Drafts: `GET` → {@linkcode DraftsListing};
 * - Publish: `POST` a {@linkcode PublishBody} → {@linkcode PublishAnswer}
 *   (`409`: {@linkcode PublishConflictBody}); with `at`, a schedule (see
 *   `schedule.ts`);
 * - Discard: `POST` a {@linkcode DiscardBody} → `204`;
 * - Preview: `POST` a {@linkcode PreviewBody} → {@linkcode PreviewAnswer}.
 *
 * @module
 */

/** Drafts endpoint, `GET`: one entry per unpublished field, oldest first. */
export interface DraftsListing {
  /**
   * Oldest first. `page`: the site path of the page showing the field
   * (the host's `pageUrl`), when known.
   */
  drafts: { field: string; at: string; editor: string; page?: string }[];
}

/**
 * Publish endpoint, `POST`: the fields to publish (all the editor may
 * publish when absent), with the draft versions the editor saw; or one
 * locale's drafts.
 */
export interface PublishBody {
  /** Field addresses; absent: every draft the editor may publish. */
  fields?: string[];
  /** Address → draft version seen; a changed draft is a 409. */
  versions?: Record<string, string>;
  /**
   * Without `fields`: publish only the drafts of this locale's values
   * (`name@locale` addresses; the default locale's are the plain ones).
   * Shared fields' drafts go with a publish of every locale.
   */
  locale?: string;
}

/** Publish endpoint, `200`: what went public. */
export interface PublishAnswer {
  /** The addresses published, in the order published. */
  published: string[];
}

/** Publish endpoint, `409`: nothing was published. */
export interface PublishConflictBody {
  /** Always `"conflict"`. */
  error: "conflict";
  /** Fields whose draft changed since the editor saw it. */
  conflicts: { field: string; value: string | string[]; version: string }[];
}

/** Discard endpoint, `POST`: drop one field's draft (`204`). */
export interface DiscardBody {
  /** The field's address. */
  field: string;
}

/** Preview endpoint, `POST`: the page to make a preview link for. */
export interface PreviewBody {
  /** A plain site path, e.g. `/about`. */
  path: string;
}

/** Preview endpoint, `200`: the link and when it stops working. */
export interface PreviewAnswer {
  /** Absolute URL of the page with `?preview=TOKEN`. */
  url: string;
  /** When the link expires, ISO 8601. */
  expires: string;
}
