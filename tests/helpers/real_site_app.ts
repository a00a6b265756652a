/**
 * A small trilingual magazine, written the way a new team would write it
 * from the README alone: plain `Deno.serve`, Deno KV in a file, publish
 * mode `"draft"`, locales en/de/fr (English at `/issues/N`, the others at
 * `/de/issues/N` and `/fr/issues/N`). Each issue has a title (at most 120
 * characters), a rich intro, a rich article, a rich fact box, a list of
 * four topics and a cover image inside the newsletter `<form>`.
 *
 * It wires save, media, history, drafts, publish and discard, and nothing
 * else (no scheduler, no events, no media library). Every answer to a
 * request under `/api/` or `/cms/` is appended as a JSON line to the file
 * in `CMS_LOG` (method, path, status, the saved field, the reason of a
 * refusal), so a test sees every request a browser made.
 *
 * {@linkcode appSource} is the app's `main.ts`, written into a folder
 * outside the repository whose `deno.json` links the checkout.
 *
 * @module
 */

/** One line of the app's request log. */
export interface LogLine {
  /** The HTTP method. */
  method: string;
  /** The request path (no query). */
  path: string;
  /** The answer's status. */
  status: number;
  /** A save's field (with its locale, `title@de`), when it was one. */
  field?: string;
  /** The plain-text reason of a refusal (status ≥ 400). */
  reason?: string;
}

/** The issues the app seeds (one per browser engine). */
export const ISSUES = ["1", "2", "3"];

/** The app's `main.ts` (imports `@inplace/cms` by its JSR name). */
export const appSource = String.raw`import {
  contentVersion,
  createClientHandler,
  createDiscardHandler,
  createDraftsHandler,
  createHistoryHandler,
  createMediaHandler,
  createPublishHandler,
  createSaveHandler,
  defineContent,
  type Editor,
  image,
  KvContentStore,
  list,
  LocalMediaStorage,
  plain,
  readLocalized,
  requestUrl,
  rich,
  serveLocalMedia,
  shared,
} from "@inplace/cms";

const env = (name: string, fallback: string) => Deno.env.get(name) ?? fallback;
const kv = await Deno.openKv(env("KV_PATH", "content.kv"));
const store = new KvContentStore(kv);
const storage = new LocalMediaStorage({
  dir: env("MEDIA_DIR", "media"),
  publicUrl: "/media",
});
const password = env("EDITOR_PASSWORD", "change-me");
const logFile = Deno.env.get("CMS_LOG");

const LOCALES = ["en", "de", "fr"] as const;
type Locale = typeof LOCALES[number];
const content = defineContent({
  issues: {
    title: plain({ maxLength: 120 }),
    intro: rich(),
    article: rich(),
    facts: rich(),
    topics: list({ min: 1, max: 8 }),
    cover: shared(image()),
  },
}, { locales: [...LOCALES] });

async function authorize(req: Request): Promise<Editor | null> {
  const sid = req.headers.get("Cookie")?.match(/(?:^|;\s*)sid=(\w+)/)?.[1];
  return sid ? (await kv.get<Editor>(["sessions", sid])).value : null;
}

const cms = {
  authorize,
  allowlist: content,
  store,
  storage,
  publishMode: "draft" as const,
};
const save = createSaveHandler(cms);
const media = createMediaHandler(cms);
const history = createHistoryHandler(cms);
const drafts = createDraftsHandler(cms);
const publish = createPublishHandler(cms);
const discard = createDiscardHandler(cms);
const files = serveLocalMedia(storage);
const client = createClientHandler();

// First start: every issue gets its English content.
for (const key of ["1", "2", "3"]) {
  await store.update("issues", key, (r) => ({
    title: "Spring issue " + key,
    intro: "<p>Welcome to the spring issue.</p>",
    article: "<p>The article is on its way.</p>",
    facts: "<p>Facts at a glance.</p>",
    topics: ["Cities", "Rivers", "Markets", "Night trains"],
    cover: "",
    ...r,
  }));
}

const escape = (s: string) =>
  s.replace(/[&<>"]/g, (c) => "&#" + c.charCodeAt(0) + ";");
const prefix = (l: Locale) => (l === "en" ? "" : "/" + l);

async function issuePage(
  req: Request,
  url: URL,
  locale: Locale,
  key: string,
): Promise<Response> {
  const editing = url.searchParams.has("edit") && !!(await authorize(req));
  const page = await readLocalized(store, content, "issues", key, locale, {
    drafts: editing,
  });
  if (!page) return new Response("No such issue", { status: 404 });
  const v = page.values;
  const from = page.from;
  const address = (field: string) =>
    "issues:" + key + ":" + field + (locale === "en" ? "" : "@" + locale);
  const mark = (field: string, value: string, type = "") => {
    if (!editing) return "";
    let attrs = ' data-cms-field="' + address(field) + '" data-cms-version="' +
      contentVersion(value) + '" data-cms-locale="' + locale + '"';
    if (type) attrs += ' data-cms-type="' + type + '"';
    if (from[field] && from[field] !== locale) {
      attrs += ' data-cms-fallback="' + from[field] + '"';
    }
    return attrs;
  };
  const title = String(v.title ?? "");
  const topics = (v.topics ?? []) as string[];
  const listAttrs = editing
    ? ' data-cms-list="' + address("topics") + '" data-cms-version="' +
      contentVersion([...topics]) + '" data-cms-min="1" data-cms-max="8"' +
      ' data-cms-locale="' + locale + '"' +
      (from.topics && from.topics !== locale
        ? ' data-cms-fallback="' + from.topics + '"'
        : "")
    : "";
  const items = topics.map((t, i) => {
    const item = editing
      ? ' data-cms-field="' + address("topics") + "." + i +
        '" data-cms-version="' + contentVersion(t) + '" data-cms-locale="' +
        locale + '"'
      : "";
    return "<li" + item + ">" + escape(t) + "</li>";
  }).join("");
  const cover = String(v.cover ?? "");
  const coverAttrs = editing
    ? ' data-cms-field="issues:' + key + ':cover" data-cms-type="image"' +
      ' data-cms-version="' + contentVersion(cover) + '"'
    : "";
  const config = {
    editor: "Editor",
    save: "/api/cms/save",
    media: "/api/cms/media",
    history: "/api/cms/history",
    publish: "/api/cms/publish",
    locale,
    locales: LOCALES.map((tag) => ({
      tag,
      url: prefix(tag) + "/issues/" + key,
    })),
    exit: url.pathname,
  };
  const html = [
    '<!doctype html><html lang="' + locale + '"><meta charset="utf-8">',
    "<title>" + escape(title) + "</title>",
    "<header><h1" + mark("title", title) + ">" + escape(title) + "</h1></header>",
    "<div class=intro" + mark("intro", String(v.intro ?? ""), "richtext") + ">" +
    String(v.intro ?? "") + "</div>",
    "<ul class=topics" + listAttrs + ">" + items + "</ul>",
    '<form class=newsletter method="post" action="/subscribe">',
    '<img alt="Cover" width="600" height="400"' +
    (cover ? ' src="' + escape(cover) + '"' : "") + coverAttrs + ">",
    '<input type="email" name="email" aria-label="Email">',
    "<button>Subscribe</button></form>",
    "<article" + mark("article", String(v.article ?? ""), "richtext") + ">" +
    String(v.article ?? "") + "</article>",
    "<aside" + mark("facts", String(v.facts ?? ""), "richtext") + ">" +
    String(v.facts ?? "") + "</aside>",
    editing
      ? '<script type="application/json" id="cms-config">' +
        JSON.stringify(config).replaceAll("<", "\\u003c") + "</script>" +
        '<script type="module" src="' + client.mount + '"></script>'
      : '<form method="post" action="/login"><input type="hidden" name="next" value="' +
        url.pathname + '"><input type="password" name="password" aria-label="Password">' +
        "<button>Edit this page</button></form>",
  ].join("\n");
  return new Response(html, {
    headers: { "Content-Type": "text/html; charset=utf-8" },
  });
}

async function login(req: Request): Promise<Response> {
  const form = await req.formData();
  if (form.get("password") !== password) {
    return new Response("Wrong password", { status: 403 });
  }
  const next = String(form.get("next") ?? "/issues/1");
  const sid = crypto.randomUUID().replaceAll("-", "");
  await kv.set(["sessions", sid], { name: "Editor" }, { expireIn: 86_400_000 });
  return new Response(null, {
    status: 303,
    headers: {
      Location: (next.startsWith("/") ? next : "/issues/1") + "?edit",
      "Set-Cookie": "sid=" + sid + "; Path=/; HttpOnly; SameSite=Lax",
    },
  });
}

async function route(req: Request, url: URL): Promise<Response> {
  const p = url.pathname;
  if (p === "/api/cms/save") return save(req);
  if (p === "/api/cms/media") return media(req);
  if (p === "/api/cms/history") return history(req);
  if (p === "/api/cms/drafts") return drafts(req);
  if (p === "/api/cms/publish") return publish(req);
  if (p === "/api/cms/discard") return discard(req);
  if (p.startsWith("/media/")) return files(req);
  if (p.startsWith(client.base)) return client(req);
  if (p === "/login" && req.method === "POST") return login(req);
  if (p === "/subscribe") return new Response("Subscribed");
  const m = p.match(/^(?:\/(de|fr))?\/issues\/(\d+)$/);
  if (m) return issuePage(req, url, (m[1] ?? "en") as Locale, m[2]);
  return new Response("Not found", { status: 404 });
}

/** One JSON line per API and client request, for the test. */
async function log(req: Request, url: URL, res: Response): Promise<void> {
  if (!logFile) return;
  if (!/^\/(api|cms)\//.test(url.pathname)) return;
  const line: Record<string, unknown> = {
    method: req.method,
    path: url.pathname,
    status: res.status,
  };
  if (url.pathname === "/api/cms/save" && req.method === "PATCH") {
    const body = await req.json().catch(() => ({}));
    line.field = body.field + (body.locale ? "@" + body.locale : "");
  }
  if (res.status >= 400) {
    line.reason = (await res.clone().text()).slice(0, 300);
  }
  await Deno.writeTextFile(logFile, JSON.stringify(line) + "\n", {
    append: true,
  });
}

Deno.serve({
  hostname: "127.0.0.1",
  port: Number(env("PORT", "8000")),
  onListen() {},
}, async (req) => {
  let url: URL;
  try {
    url = requestUrl(req);
  } catch {
    return new Response("Malformed Host or request target", { status: 400 });
  }
  const copy = logFile && url.pathname === "/api/cms/save" ? req.clone() : req;
  const res = await route(req, url);
  await log(copy, url, res);
  return res;
});
`;
