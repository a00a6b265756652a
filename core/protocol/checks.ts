/**
 * The link check endpoint (`POST /api/cms/checks/links`): the editor's
 * client sends the site paths of a field's links; the server asks its own
 * site for each (a `HEAD`) and answers which ones are missing (404 or
 * 410), so the client marks them as `link-broken`.
 *
 * @module
 */

/** Link check endpoint, `POST`: the links to check. */
export interface LinkCheckBody {
  /**
   * Site paths (`/about`, `/blog?page=2#top`) or absolute URLs on the
   * site's own origin; at most the endpoint's `maxPaths` (default 20).
   */
  paths: string[];
}

/** Link check endpoint, `200`: the paths as sent, by outcome. */
export interface LinkCheckAnswer {
  /** The site answered 404 or 410: `link-broken`. */
  broken: string[];
  /**
   * Not known: the site did not answer in time, answered 5xx, or the
   * request's time ran out. Not a finding; ask again later.
   */
  unknown: string[];
}
