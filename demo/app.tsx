/**
 * The demo host's request handler: pages, login, the two endpoints, media
 * and the client bundle, on plain `Deno.serve`.
 *
 * @module
 */
import {
  type Authorize,
  type Editor,
  errorResponse,
  HttpError,
  isCrossSite,
  readBody,
  requestUrl,
  text,
} from "../server/http/mod.ts";
import { log } from "../server/ops/mod.ts";
import type { ListableMediaStorage } from "../server/media/mod.ts";
import { draftStore } from "../server/save/mod.ts";
import type { EventBus } from "../server/events/mod.ts";
import { PREVIEW_PARAM, type PreviewSigner } from "../server/drafts/mod.ts";
import type { HistoryStore, PublishMode } from "../server/store/mod.ts";
import { type Cms, createCms } from "../server/app/mod.ts";
import type { ReviewVisit } from "../server/review/mod.ts";
import { REVIEW_PARAM } from "../core/protocol/review.ts";
import { demoContent, HERO_PLACEHOLDER, loadHome } from "./content.ts";
import {
  clientAddress,
  type ClientAddressOptions,
  contentSecurityPolicy,
  hostAllowed,
  LoginThrottle,
  safeNext,
} from "./security.ts";
import {
  HomePageView,
  LoginPageView,
  MessagePageView,
  renderDocument,
} from "./pages.tsx";
import {
  passwordMatches,
  randomToken,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
  type Sessions,
} from "./session.ts";

/** What the demo handler needs. */
export interface DemoAppOptions {
  /** Content of `pages:home`. */
  store: HistoryStore;
  /** Where uploads go (a local storage's files are served at its URL). */
  media: ListableMediaStorage;
  /** Session storage. */
  sessions: Sessions;
  /** The editor password. */
  password: string;
  /** Display name of the demo editor. */
  editorName: string;
  /** Folder with the built client (`mod.js` + chunks). */
  clientDir: string;
  /**
   * Host headers the site answers to (e.g. `127.0.0.1:8000`); any other Host
   * gets 421 before anything runs (DNS rebinding). Read on every request, so
   * the caller may fill it once the port is known. Empty: any Host.
   */
  allowedHosts?: readonly string[];
  /** Extra origins images load from (an S3 bucket), for the CSP. */
  imageOrigins?: readonly string[];
  /** The login throttle. Default: {@linkcode LoginThrottle}'s defaults. */
  throttle?: LoginThrottle;
  /**
   * Where a login's client address comes from behind a proxy (a trusted
   * proxy's header). Default: the connection's peer.
   */
  clientAddress?: ClientAddressOptions;
  /**
   * The site's public origin behind a proxy, e.g. `https://cms.example.com`:
   * its scheme decides the cookie's `Secure` flag, preview links are minted
   * on it, and the endpoints require it in `Origin`. Default: the request
   * URL's origin.
   */
  publicOrigin?: string;
  /** `direct` (default: saves go live) or `draft` (saves are drafts). */
  publishMode?: PublishMode;
  /** Signs preview links (draft mode). */
  previewSigner?: PreviewSigner;
  /** Turns review in place on (draft mode): the review links' secret. */
  reviewSecret?: string;
  /** Publish waits for an approval from a review link (draft mode). */
  requireApproval?: boolean;
  /** The editor event stream's bus (default: in-process) and heartbeat. */
  events?: { bus?: EventBus; heartbeatMs?: number };
  /**
   * Longest wait of the scheduler (draft mode) between two looks at the
   * store, in ms. Default: the scheduler's.
   */
  schedulePollMs?: number;
  /** Gets the CMS service once made (the caller closes it). */
  created?: (cms: Cms) => void;
  /**
   * The site's locales (`CMS_LOCALES`), the first the default: it is served
   * at `/`, every other one at `/<locale>/`. Default: none (one language).
   */
  locales?: readonly string[];
}

const CLIENT_PREFIX = "/cms/";
const CLIENT_ENTRY = CLIENT_PREFIX + "mod.js";
const DRAWER_PATH = "/demo/drawer.js";
const HERO_PLACEHOLDER_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="400" viewBox="0 0 1200 400">` +
  `<rect width="1200" height="400" fill="#eef1fa"/>` +
  `<path d="M540 230l50-60 40 45 30-30 60 75H520z" fill="#b8c0da"/>` +
  `<circle cx="640" cy="160" r="16" fill="#b8c0da"/>` +
  `<text x="600" y="300" font-family="system-ui,sans-serif" font-size="28" fill="#556" text-anchor="middle">Click or drop an image here</text></svg>`;
const DRAWER_SOURCE = new URL("./drawer.js", import.meta.url);

/** Creates the demo's `(req) => Response` handler. */
export async function createDemoApp(
  options: DemoAppOptions,
): Promise<
  (req: Request, info?: { remoteAddr: Deno.Addr }) => Promise<Response>
> {
  const { store, sessions } = options;
  const drawer = await Deno.readTextFile(DRAWER_SOURCE);
  const throttle = options.throttle ?? new LoginThrottle();
  await sessions.usePassword(options.password);

  const authorize: Authorize = async (req) => {
    const id = readCookie(req, SESSION_COOKIE);
    return id ? await sessions.get(id) : null;
  };
  // The endpoints check the Host allowlist themselves too (DNS rebinding).
  const { allowedHosts, publicOrigin } = options;
  /** Whether cookies get `Secure`: from the public origin, else the URL. */
  const secure = (url: URL) =>
    (publicOrigin ? new URL(publicOrigin).protocol : url.protocol) ===
      "https:";
  const publishMode = options.publishMode ?? "direct";
  const content = demoContent(options.locales);
  // Path → locale of the home page: `/` the default, `/de/` German, ….
  const homes = new Map<string, string | undefined>([[
    "/",
    options.locales?.[0],
  ]]);
  for (const locale of options.locales?.slice(1) ?? []) {
    homes.set(`/${locale}/`, locale);
  }
  // The edit bar's locale switcher: each locale and its home page's URL.
  const localeUrls = options.locales?.length
    ? [...homes].map(([url, tag]) => ({ tag: tag!, url }))
    : undefined;
  // Every endpoint of the CMS, from one options object; the demo serves
  // its own build of the client (rebuilt by `deno task dev`).
  const cms = createCms({
    authorize,
    allowlist: content,
    store,
    storage: options.media,
    allowedHosts,
    publicOrigin,
    publishMode,
    client: false,
    events: {
      heartbeatMs: options.events?.heartbeatMs,
      // Streams are capped per session: the session is this cookie's value.
      sessionCookie: SESSION_COOKIE,
    },
    bus: options.events?.bus,
    schedules: publishMode === "draft"
      ? { pollMs: options.schedulePollMs }
      : undefined,
    // Every field is on a home page: the default locale's at `/`.
    pageUrl: (a) =>
      a.locale && homes.has(`/${a.locale}/`) ? `/${a.locale}/` : "/",
    // Preview links (draft mode): for the home pages only.
    preview: publishMode === "draft" && options.previewSigner
      ? { signer: options.previewSigner, allowPath: (path) => homes.has(path) }
      : undefined,
    // Review in place (draft mode): comments, review links, approvals.
    review: publishMode === "draft" && options.reviewSecret
      ? { secret: options.reviewSecret, allowPath: (path) => homes.has(path) }
      : undefined,
    requireApproval: publishMode === "draft" && options.reviewSecret
      ? options.requireApproval
      : undefined,
  });
  options.created?.(cms);
  const { publish, schedule, comments, review } = cms.pageConfig();
  const drafted = publishMode === "draft" ? draftStore(store) : null;
  const signer = options.previewSigner;

  async function home(req: Request, url: URL): Promise<Response> {
    const token = url.searchParams.get(PREVIEW_PARAM);
    if (drafted && token !== null) return await preview(url, token);
    const visit = drafted ? await cms.review(req) : null;
    if (visit) return await reviewPage(url, visit);
    if (drafted && url.searchParams.has(REVIEW_PARAM)) {
      return forbidden("This review link is invalid or has expired.");
    }
    const editor = await authorize(req) ?? null;
    const editing = editor !== null && url.searchParams.has("edit");
    const nonce = randomToken(16);
    // Visitors and every page outside edit mode get the published values.
    const locale = homes.get(url.pathname);
    const html = renderDocument(HomePageView({
      page: await loadHome(
        editing && drafted ? drafted : store,
        editing,
        locale === undefined ? undefined : { content, locale },
      ),
      content,
      locale,
      locales: localeUrls,
      path: url.pathname,
      editor,
      editing,
      clientSrc: CLIENT_ENTRY,
      drawerSrc: DRAWER_PATH,
      nonce,
      mediaBase: options.media.url(""),
      publish,
      schedule,
      comments,
      review,
    }));
    // What an editor sees depends on their session: never in a shared cache.
    return page(html, 200, {
      "Cache-Control": editing
        ? "private, no-store"
        : editor
        ? "private, no-cache"
        : "no-cache",
      "Content-Security-Policy": contentSecurityPolicy(
        nonce,
        options.imageOrigins,
      ),
    });
  }

  /** A preview link: this page's drafts, read-only, without a session. */
  async function preview(url: URL, token: string): Promise<Response> {
    if (!drafted || !signer || !await signer.verify(token, url.pathname)) {
      return forbidden("This preview link is invalid or has expired.");
    }
    const nonce = randomToken(16);
    const locale = homes.get(url.pathname);
    const html = renderDocument(HomePageView({
      page: await loadHome(
        drafted,
        true,
        locale === undefined ? undefined : { content, locale },
      ),
      content,
      locale,
      path: url.pathname,
      editor: null,
      editing: false,
      preview: true,
      clientSrc: CLIENT_ENTRY,
      drawerSrc: DRAWER_PATH,
      nonce,
    }));
    return page(html, 200, unlistedHeaders(nonce));
  }

  /** A page shown through a signed link: not cached, indexed or referred. */
  function unlistedHeaders(nonce: string): Record<string, string> {
    return {
      "Cache-Control": "private, no-store",
      "X-Robots-Tag": "noindex",
      "Referrer-Policy": "no-referrer",
      "Content-Security-Policy": contentSecurityPolicy(
        nonce,
        options.imageOrigins,
      ),
    };
  }

  /**
   * A review link: this page's drafts, with field markers and the
   * reviewer's client (comments, approval), without a session.
   */
  async function reviewPage(url: URL, visit: ReviewVisit): Promise<Response> {
    const nonce = randomToken(16);
    const locale = homes.get(url.pathname);
    const html = renderDocument(HomePageView({
      page: await loadHome(
        drafted!,
        true,
        locale === undefined ? undefined : { content, locale },
      ),
      content,
      locale,
      path: url.pathname,
      editor: null,
      editing: false,
      reviewer: cms.reviewConfig(visit, { exit: url.pathname }) ?? undefined,
      clientSrc: CLIENT_ENTRY,
      drawerSrc: DRAWER_PATH,
      nonce,
    }));
    return page(html, 200, unlistedHeaders(nonce));
  }

  async function login(
    req: Request,
    url: URL,
    client: string,
  ): Promise<Response> {
    if (req.method === "GET" || req.method === "HEAD") {
      const next = safeNext(url.searchParams.get("next"));
      return page(renderDocument(LoginPageView({ next })));
    }
    if (req.method !== "POST") return methodNotAllowed("GET, HEAD, POST");
    if (isCrossSite(req, [], publicOrigin)) {
      return forbidden("Cross-site login refused.");
    }
    // A client in backoff: no password is even compared, the right one
    // included. A client that has not failed is never held back.
    const wait = throttle.wait(client, ACCOUNT);
    if (wait > 0) {
      return text(429, "Too many failed logins; try again later", {
        "Retry-After": String(Math.ceil(wait / 1000)),
      });
    }
    const form = await readForm(req);
    if (form instanceof Response) return form;
    const next = safeNext(form.get("next"));
    const password = form.get("password");
    if (
      typeof password !== "string" ||
      !await passwordMatches(password, options.password)
    ) {
      const hold = throttle.failure(client, ACCOUNT);
      // Under attack, wrong answers are slowed (right ones never are).
      if (hold > 0) await new Promise((r) => setTimeout(r, hold));
      const html = renderDocument(
        LoginPageView({ next, error: "Wrong password." }),
      );
      return page(html, 401);
    }
    throttle.success(client, ACCOUNT);
    const editor: Editor = { name: options.editorName };
    const id = await sessions.create(editor);
    return redirect(next, { "Set-Cookie": sessionCookie(id, secure(url)) });
  }

  async function logout(req: Request, url: URL): Promise<Response> {
    if (req.method !== "POST") return methodNotAllowed("POST");
    if (isCrossSite(req, [], publicOrigin)) {
      return forbidden("Cross-site logout refused.");
    }
    const id = readCookie(req, SESSION_COOKIE);
    if (id) await sessions.delete(id);
    return redirect("/", { "Set-Cookie": sessionCookie(null, secure(url)) });
  }

  async function client(path: string): Promise<Response> {
    const name = path.slice(CLIENT_PREFIX.length);
    if (!/^[\w-]+(\.[\w-]+)*\.js$/.test(name)) return notFound();
    try {
      const body = await Deno.readFile(`${options.clientDir}/${name}`);
      return new Response(body, { headers: scriptHeaders() });
    } catch {
      return notFound();
    }
  }

  return async (req, info) => {
    // Every parse of what the client sent is total: a malformed Host or
    // target is a logged 400, never an exception.
    let url: URL;
    try {
      url = requestUrl(req);
    } catch (err) {
      return refused(req, err as HttpError, "bad_request");
    }
    const path = url.pathname;
    const hosts = options.allowedHosts ?? [];
    if (hosts.length && !hostAllowed(req, hosts)) {
      return refused(req, new HttpError(421, "Unknown host"), "unknown_host");
    }
    const peer = info && "hostname" in info.remoteAddr
      ? info.remoteAddr.hostname
      : "unknown";
    try {
      if (path === "/login") {
        return await login(
          req,
          url,
          clientAddress(req, peer, options.clientAddress),
        );
      }
      if (path === "/logout") return await logout(req, url);
      // The endpoints and the uploaded files (local storage).
      const answer = await cms.handle(req);
      if (answer) return answer;
      // The rest is read-only.
      if (req.method !== "GET" && req.method !== "HEAD") {
        return methodNotAllowed("GET, HEAD");
      }
      if (homes.has(path)) return await home(req, url);
      if (path === DRAWER_PATH) {
        return new Response(drawer, { headers: scriptHeaders() });
      }
      if (path === HERO_PLACEHOLDER) {
        return new Response(HERO_PLACEHOLDER_SVG, {
          headers: {
            "Content-Type": "image/svg+xml",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'",
            "Cache-Control": "public, max-age=3600",
          },
        });
      }
      if (path.startsWith(CLIENT_PREFIX)) return await client(path);
      return notFound();
    } catch (err) {
      // One JSON log line with an error id; the answer carries the id only.
      return errorResponse(err, { name: "demo" });
    }
  };
}

/** The one account of the demo (its throttle key). */
const ACCOUNT = "editor";

/** A refusal before routing, as a plain-text answer and one JSON log line. */
function refused(req: Request, err: HttpError, reason: string): Response {
  log({
    level: "warn",
    msg: "request",
    route: "demo",
    method: req.method,
    status: err.status,
    reason,
  });
  return text(err.status, err.message);
}

/** The urlencoded form of a login post (at most 16 KiB), or a 4xx answer. */
async function readForm(req: Request): Promise<URLSearchParams | Response> {
  const type = req.headers.get("Content-Type")?.toLowerCase() ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) {
    return text(415, "Expected a form body");
  }
  try {
    const body = await readBody(req, 16 * 1024);
    return new URLSearchParams(new TextDecoder().decode(body));
  } catch (err) {
    if (err instanceof HttpError) {
      return text(err.status, err.message, err.headers);
    }
    throw err;
  }
}

function page(
  html: string,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
      "Vary": "Cookie",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "same-origin",
      "X-Frame-Options": "DENY",
      // Pages without scripts (login, 403, 404) run none; pages with
      // scripts pass their own policy with a nonce.
      "Content-Security-Policy": contentSecurityPolicy(null),
      ...headers,
    },
  });
}

function scriptHeaders(): HeadersInit {
  return {
    "Content-Type": "text/javascript; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
  };
}

function redirect(location: string, headers: Record<string, string>) {
  return new Response(null, {
    status: 303,
    headers: { Location: location, "Cache-Control": "no-store", ...headers },
  });
}

function forbidden(message: string): Response {
  return page(
    renderDocument(MessagePageView({ title: "Forbidden", message })),
    403,
  );
}

function notFound(): Response {
  return page(
    renderDocument(
      MessagePageView({ title: "Not found", message: "No page here." }),
    ),
    404,
  );
}

function methodNotAllowed(allow: string): Response {
  return text(405, "Method not allowed", { Allow: allow });
}
