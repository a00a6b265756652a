/**
 * A review site for the tests: `createCms` over a given store, in draft
 * mode, with review on, `requireApproval`, a `canEdit` rule and a way to
 * send requests as an editor, a reviewer or a stranger.
 */
import { type Cms, createCms } from "../../../server/app/mod.ts";
import type { CmsOptions } from "../../../server/app/options.ts";
import type { DraftStore } from "../../../server/store/types.ts";
import { reviewSigner } from "../../../server/review/mod.ts";

/** The review secret of every test site. */
export const SECRET = "review-secret-of-at-least-32-bytes!!";

/** The signer of that secret. */
export const signer = reviewSigner(SECRET);

/** One request's sender and body. */
export interface Send {
  /** JSON body. */
  body?: unknown;
  /** Raw body text (instead of `body`). */
  raw?: string;
  /** An editor's name (the `X-Editor` header the test `authorize` reads). */
  editor?: string;
  /** A review token sent in `X-CMS-Review`. */
  token?: string;
  /** A `Cookie` header. */
  cookie?: string;
  /** An `Origin` header. */
  origin?: string;
}

/** A site and its request helper. */
export interface ReviewSite {
  /** The service. */
  cms: Cms;
  /** Sends `method path` and answers the response. */
  send(method: string, path: string, send?: Send): Promise<Response>;
  /** Sends, expects `status`, and answers the JSON body (or text). */
  expect<T = unknown>(
    status: number,
    method: string,
    path: string,
    send?: Send,
  ): Promise<T>;
}

/** The content of the test site: pages with a title and a body. */
export const CONTENT = { pages: { title: "plain", body: "rich" } } as const;

/**
 * A site over `store`: editors are named by `X-Editor`; "Restricted" may
 * not edit bodies; a field of page `key` is on `/key`.
 */
export function reviewSite(
  store: DraftStore,
  more: Partial<CmsOptions> = {},
): ReviewSite {
  const cms = createCms({
    authorize: (req) => {
      const name = req.headers.get("X-Editor");
      return name ? { name } : null;
    },
    allowlist: CONTENT,
    store,
    publishMode: "draft",
    canEdit: (_req, field, editor) =>
      editor.name !== "Restricted" || field.field !== "body",
    pageUrl: (a) => `/${a.key}`,
    review: { secret: SECRET, reviewerRequestsPerMinute: 1000 },
    requireApproval: true,
    client: false,
    ...more,
  });
  async function send(method: string, path: string, s: Send = {}) {
    const headers: Record<string, string> = { Host: "localhost" };
    if (s.editor) headers["X-Editor"] = s.editor;
    if (s.token) headers["X-CMS-Review"] = s.token;
    if (s.cookie) headers.Cookie = s.cookie;
    if (s.origin) headers.Origin = s.origin;
    let body: string | undefined = s.raw;
    if (s.body !== undefined) {
      body = JSON.stringify(s.body);
      headers["Content-Type"] = "application/json";
    }
    return await cms.fetch(
      new Request(`http://localhost${path}`, { method, headers, body }),
    );
  }
  return {
    cms,
    send,
    async expect<T>(status: number, method: string, path: string, s?: Send) {
      const res = await send(method, path, s);
      const text = await res.text();
      if (res.status !== status) {
        throw new Error(
          `${method} ${path}: expected ${status}, got ${res.status} ${text}`,
        );
      }
      const type = res.headers.get("Content-Type") ?? "";
      return (type.includes("json") ? JSON.parse(text) : text) as T;
    },
  };
}

/** An anchor on `field` quoting `quote`. */
export function anchor(field: string, quote: string) {
  return { field, quote, prefix: "", suffix: "" };
}
