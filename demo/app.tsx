/**
 * The demo host's request handler: pages, login, the two endpoints, media
 * and the client bundle, on plain `Deno.serve`.
 *
 * @module
 */
import { readBody } from "../server/body.ts";
import { text } from "../server/http.ts";
import { createMediaHandler } from "../server/media.ts";
import { isCrossSite } from "../server/origin.ts";
import { createSaveHandler } from "../server/save.ts";
import type {
  Authorize,
  ContentStore,
  Editor,
  MediaStorage,
} from "../server/types.ts";
import { ALLOWLIST, loadHome } from "./content.ts";
import {
  HomePageView,
  LoginPageView,
  MessagePageView,
  renderDocument,
} from "./pages.tsx";
import {
  passwordMatches,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
  type Sessions,
} from "./session.ts";

/** What the demo handler needs. */
export interface DemoAppOptions {
  /** Content of `pages:home`. */
  store: ContentStore;
  /** Where uploads go. */
  media: MediaStorage;
  /** Serves uploaded files (local storage only), or `null` (S3 serves them). */
  serveMedia: ((req: Request) => Promise<Response>) | null;
  /** URL prefix of `serveMedia`, e.g. `/media/`. */
  mediaPrefix: string;
  /** Session storage. */
  sessions: Sessions;
  /** The editor password. */
  password: string;
  /** Display name of the demo editor. */
  editorName: string;
  /** Folder with the built client (`mod.js` + chunks). */
  clientDir: string;
}

const CLIENT_PREFIX = "/cms/";
const CLIENT_ENTRY = CLIENT_PREFIX + "mod.js";
const DRAWER_PATH = "/demo/drawer.js";
const DRAWER_SOURCE = new URL("./drawer.js", import.meta.url);
/** A stand-in origin for parsing same-site paths. */
const SITE = "http://site.invalid";

/** Creates the demo's `(req) => Response` handler. */
export async function createDemoApp(
  options: DemoAppOptions,
): Promise<(req: Request) => Promise<Response>> {
  const { store, sessions } = options;
  const drawer = await Deno.readTextFile(DRAWER_SOURCE);

  const authorize: Authorize = async (req) => {
    const id = readCookie(req, SESSION_COOKIE);
    return id ? await sessions.get(id) : null;
  };
  const save = createSaveHandler({ authorize, allowlist: ALLOWLIST, store });
  const media = createMediaHandler({ authorize, storage: options.media });

  async function home(req: Request, url: URL): Promise<Response> {
    const editor = await authorize(req) ?? null;
    const editing = editor !== null && url.searchParams.has("edit");
    const html = renderDocument(HomePageView({
      page: await loadHome(store),
      editor,
      editing,
      clientSrc: CLIENT_ENTRY,
      drawerSrc: DRAWER_PATH,
    }));
    return page(html, 200, {
      "Cache-Control": editing ? "private, no-store" : "no-cache",
    });
  }

  async function login(req: Request, url: URL): Promise<Response> {
    if (req.method === "GET" || req.method === "HEAD") {
      const next = safeNext(url.searchParams.get("next"));
      return page(renderDocument(LoginPageView({ next })));
    }
    if (req.method !== "POST") return methodNotAllowed("GET, HEAD, POST");
    if (isCrossSite(req)) return forbidden("Cross-site login refused.");
    const form = await readForm(req);
    if (form instanceof Response) return form;
    const next = safeNext(form.get("next"));
    const password = form.get("password");
    if (
      typeof password !== "string" ||
      !await passwordMatches(password, options.password)
    ) {
      const html = renderDocument(
        LoginPageView({ next, error: "Wrong password." }),
      );
      return page(html, 401);
    }
    const editor: Editor = { name: options.editorName };
    const id = await sessions.create(editor);
    return redirect(next, {
      "Set-Cookie": sessionCookie(id, url.protocol === "https:"),
    });
  }

  async function logout(req: Request, url: URL): Promise<Response> {
    if (req.method !== "POST") return methodNotAllowed("POST");
    if (isCrossSite(req)) return forbidden("Cross-site logout refused.");
    const id = readCookie(req, SESSION_COOKIE);
    if (id) await sessions.delete(id);
    return redirect("/", {
      "Set-Cookie": sessionCookie(null, url.protocol === "https:"),
    });
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

  return async (req) => {
    const url = new URL(req.url);
    const path = url.pathname;
    try {
      if (path === "/login") return await login(req, url);
      if (path === "/logout") return await logout(req, url);
      if (path === "/api/cms/save") return await save(req);
      if (path === "/api/cms/media") return await media(req);
      if (options.serveMedia && path.startsWith(options.mediaPrefix)) {
        return await options.serveMedia(req);
      }
      // The rest is read-only.
      if (req.method !== "GET" && req.method !== "HEAD") {
        return methodNotAllowed("GET, HEAD");
      }
      if (path === "/") return await home(req, url);
      if (path === DRAWER_PATH) {
        return new Response(drawer, { headers: scriptHeaders() });
      }
      if (path.startsWith(CLIENT_PREFIX)) return await client(path);
      return notFound();
    } catch (err) {
      console.error("demo: request failed", err);
      return text(500, "Internal error");
    }
  };
}

/**
 * Where a login may go next: a path on this site as browsers parse it (they
 * drop tabs and newlines, so `/\t/evil` is `//evil`), re-serialized so the
 * `Location` header is always valid. Anything else goes to `/`.
 */
function safeNext(next: unknown): string {
  if (typeof next !== "string" || !next.startsWith("/")) return "/";
  const url = URL.parse(next, SITE);
  return url?.origin === SITE ? url.pathname + url.search + url.hash : "/";
}

/** The urlencoded form of a login post (at most 16 KiB), or a 4xx answer. */
async function readForm(req: Request): Promise<URLSearchParams | Response> {
  const type = req.headers.get("Content-Type")?.toLowerCase() ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) {
    return text(415, "Expected a form body");
  }
  const body = await readBody(req, 16 * 1024);
  if (body instanceof Response) return body;
  return new URLSearchParams(new TextDecoder().decode(body));
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
