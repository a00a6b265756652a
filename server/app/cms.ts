/**
 * `createCms`: one call that serves every endpoint the options turn on,
 * the browser client and local media files, under one base path.
 *
 * @module
 */
import {
  type EndpointCall,
  errorResponse,
  HttpError,
  requestUrl,
  text,
} from "../http/mod.ts";
import type { EditorEvents } from "../events/mod.ts";
import type { Scheduler } from "../drafts/mod.ts";
import type { ReviewVisit } from "../review/mod.ts";
import { log } from "../ops/mod.ts";
import { cmsScript } from "../markup/mod.ts";
import type { CmsOptions } from "./options.ts";
import { basePathOf, buildParts, type Part } from "./_parts.ts";

/** One row of {@linkcode Cms.routes}: a method on a path, and its part. */
export interface CmsRoute {
  /** The HTTP method, e.g. `PATCH`. */
  method: string;
  /** The path; one ending in `*` is a prefix (client and media files). */
  path: string;
  /**
   * The part: `save`, `media`, `library`, `history`, `drafts`, `publish`,
   * `discard`, `preview`, `schedule`, `cancelSchedule`, `events`,
   * `comments`, `comment`, `reviewLinks`, `approve`, `reviewName`, `client`
   * or `files`.
   */
  name: string;
}

/**
 * What the page tells the browser client (`<script type="application/json"
 * id="cms-config">`): the endpoints the service routes, and what only the
 * page knows. See the client's `CmsConfig`.
 */
export interface PageConfig {
  /** Save endpoint. */
  save: string;
  /** Media endpoint (when `storage` is given). */
  media?: string;
  /** History endpoint (when history is on). */
  history?: string;
  /** Publish endpoint (draft mode); drafts and discard are its siblings. */
  publish?: string;
  /** Schedule listing (when schedules are on). */
  schedule?: string;
  /** Media library (when the library is on). */
  library?: string;
  /** Editor event stream (when events are on). */
  events?: string;
  /** Public base URL of uploaded media. */
  mediaBase?: string;
  /** The editor's display name. */
  editor?: string;
  /** Where Done goes. */
  exit?: string;
  /** Whether the edit bar shows Settings (`false` for a site without a panel). */
  settings?: boolean;
  /** The page's locale. */
  locale?: string;
  /** The site's locales and this page's URL in each. */
  locales?: { tag: string; url: string }[];
  /** Comments endpoint (when review is on). */
  comments?: string;
  /** Review-links endpoint (editors, when review is on). */
  review?: string;
  /** `true` on a page opened with a review link (`Cms.reviewScripts`). */
  reviewer?: boolean;
  /** A reviewer's approve endpoint, with the page: `…/review/approve?page=P`. */
  approve?: string;
  /** A reviewer's name endpoint (`POST {name, page}`). */
  reviewName?: string;
}

/** What only the page knows: merged into {@linkcode Cms.pageConfig}. */
export type PageFacts = Pick<
  PageConfig,
  "editor" | "exit" | "settings" | "locale" | "locales"
>;

/** The service `createCms` returns. */
export interface Cms {
  /**
   * Answers a request this service routes, or resolves `null` ("not
   * mine") for any other path. A path it routes always gets an answer
   * (405 with `Allow` for a method it doesn't serve); a malformed `Host` or
   * request target gets 400. `call` carries a per-request public origin
   * and a context for `authorize` and `canEdit` (Fresh's `ctx`).
   */
  handle(req: Request, call?: EndpointCall): Promise<Response | null>;
  /** {@linkcode Cms.handle}, with 404 for what isn't routed (`app.fetch`). */
  fetch(req: Request): Promise<Response>;
  /** Every routed method and path, with its part's name. */
  readonly routes: readonly CmsRoute[];
  /** The base path, e.g. `/api/cms`. */
  readonly basePath: string;
  /**
   * The client's mount module, e.g. `/api/cms/client/mount.js`: in edit
   * mode, `<script type="module" src="…">`. `null` with `client: false`.
   */
  readonly mount: string | null;
  /** The editor event hub (when events are on), e.g. for its stats. */
  readonly events: EditorEvents | null;
  /** The scheduler this process runs (when schedules are on). */
  readonly scheduler: Scheduler | null;
  /**
   * Resolves once the scheduler's first round is done (schedules missed
   * while no instance ran have fired); at once without schedules.
   */
  readonly ready: Promise<void>;
  /** The page config: the routed endpoints, then what the page adds. */
  pageConfig(facts?: PageFacts): PageConfig;
  /**
   * What a page in edit mode adds for the editor: the page config script
   * (`<script type="application/json" id="cms-config">`, escaped) and the
   * client's mount module. Render it only for an editor.
   */
  editorScripts(facts?: PageFacts): string;
  /**
   * Whether a page request comes with a valid review link for its own path
   * (the `review` query parameter): then render
   * the page's drafts, read-only, and {@linkcode Cms.reviewScripts}.
   * `null` otherwise, and always when review is off.
   */
  review(req: Request): Promise<ReviewVisit | null>;
  /**
   * A reviewer's page config (`reviewer: true`, the comments, approve and
   * name endpoints, the event stream, their name), for a host that writes
   * its own scripts; `null` when review is off.
   */
  reviewConfig(visit: ReviewVisit, facts?: PageFacts): PageConfig | null;
  /**
   * What a page opened with a review link adds for the reviewer: the page
   * config (`reviewer: true`, the comments, approve and name endpoints,
   * the event stream) and the client's mount module. `""` when review is
   * off.
   */
  reviewScripts(visit: ReviewVisit, facts?: PageFacts): string;
  /** Stops the scheduler and closes the event streams. */
  close(): Promise<void>;
}

/**
 * Creates the whole service from one options object: the save endpoint,
 * and each optional part the options turn on (see {@linkcode CmsOptions}),
 * under `basePath` (default `/api/cms`). What isn't turned on isn't
 * routed, and {@linkcode Cms.pageConfig} names only what is. Mistakes in
 * the options (schedules without draft mode, a store without drafts in
 * draft mode, a bad base path) throw a `TypeError` here, not at the first
 * request. With `schedules`, a {@linkcode Scheduler} starts at once; call
 * `cms.close()` on shutdown.
 *
 * @example
 * ```ts
 * import { createCms, defineContent, MemoryContentStore } from "@inplace/cms";
 * const cms = createCms({
 *   authorize: () => ({ name: "Ada" }), // your session lookup
 *   allowlist: defineContent({ pages: { title: "plain", body: "rich" } }),
 *   store: new MemoryContentStore(),
 *   publishMode: "draft",
 * });
 * Deno.serve(async (req) =>
 *   await cms.handle(req) ?? new Response("Your page", { status: 200 })
 * );
 * ```
 */
export function createCms(options: CmsOptions): Cms {
  const basePath = basePathOf(options);
  const built = buildParts(options, basePath);
  const { parts, events, scheduler, mount, review } = built;
  const exact = new Map<string, Part>();
  const prefixed: Part[] = [];
  for (const part of parts) {
    if (part.prefix) prefixed.push(part);
    else exact.set(part.path, part);
  }
  const routes = parts.flatMap((part) =>
    part.methods.map((method) => ({
      method,
      path: part.prefix ? `${part.path}*` : part.path,
      name: part.name,
    }))
  );
  const started = start(scheduler);
  const config = configOf(parts, options, basePath);
  const reviewConfig = (visit: ReviewVisit, facts: PageFacts = {}) =>
    review ? reviewerConfig(config, basePath, visit, facts) : null;

  async function handle(
    req: Request,
    call?: EndpointCall,
  ): Promise<Response | null> {
    let path: string;
    try {
      path = requestUrl(req).pathname;
    } catch (err) {
      return err instanceof HttpError
        ? text(err.status, err.message)
        : text(400, "Malformed request");
    }
    const part = exact.get(path) ??
      prefixed.find((p) => path.startsWith(p.path));
    if (!part) return null;
    try {
      return await part.handle(req, call);
    } catch (err) {
      // The endpoints answer their own errors; this catches the rest (a
      // failing disk under the media files): logged, with an error id.
      return errorResponse(err, { name: part.name });
    }
  }

  return {
    handle,
    fetch: async (req) =>
      await handle(req) ??
        text(404, "Not found", { "Cache-Control": "no-cache" }),
    routes,
    basePath,
    mount,
    events,
    scheduler,
    ready: started,
    pageConfig: (facts = {}) => ({ ...config, ...facts }),
    editorScripts(facts = {}) {
      return cmsScript({
        editing: true,
        mount,
        config: { ...config, ...facts },
      });
    },
    review: async (req) => await review?.reviewOf(req) ?? null,
    reviewConfig,
    reviewScripts(visit, facts = {}) {
      const config = reviewConfig(visit, facts);
      return config ? cmsScript({ editing: true, mount, config }) : "";
    },
    async close() {
      await started;
      await scheduler?.stop();
      await events?.close();
    },
  };
}

/** A reviewer's page config (see `Cms.reviewConfig`), or `null`. */
function reviewerConfig(
  config: PageConfig,
  basePath: string,
  visit: ReviewVisit,
  facts: PageFacts,
): PageConfig | null {
  if (!config.comments) return null;
  const page = encodeURIComponent(visit.page);
  return {
    save: config.save,
    reviewer: true,
    comments: config.comments,
    approve: `${basePath}/review/approve?page=${page}`,
    reviewName: `${basePath}/review/name`,
    events: config.events,
    ...(visit.name === undefined ? {} : { editor: visit.name }),
    ...facts,
  };
}

/** Starts the scheduler; resolves when its first round is done (logged on failure). */
function start(scheduler: Scheduler | null): Promise<void> {
  return (scheduler?.start() ?? Promise.resolve()).catch((err: Error) => {
    const { name, message, stack } = err;
    log({ level: "error", msg: "scheduler", error: { name, message, stack } });
  });
}

/** The page config: the routed endpoints the client calls. */
function configOf(
  parts: Part[],
  options: CmsOptions,
  basePath: string,
): PageConfig {
  const config: PageConfig = { save: `${basePath}/save` };
  for (const part of parts) {
    if (part.name === "media" && options.storage) {
      config.media = part.path;
      config.mediaBase = options.storage.url("");
    } else if (part.name in NAMED) config[NAMED[part.name]] = part.path;
  }
  return config;
}

/** Parts named in the page config under another key, or their own. */
const NAMED: Record<
  string,
  | "history"
  | "publish"
  | "schedule"
  | "library"
  | "events"
  | "comments"
  | "review"
> = {
  comments: "comments",
  reviewLinks: "review",
  history: "history",
  publish: "publish",
  schedule: "schedule",
  library: "library",
  events: "events",
};
