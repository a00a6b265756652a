/**
 * In-place editing on a Hono app through `createCms`: one service routes
 * save, media, the media library, history, drafts, publish and discard,
 * the browser client and the uploaded files; Hono hands it every request
 * under its paths (`app.all`) and renders the page.
 *
 * Run: `EDITOR_PASSWORD=secret deno run -A examples/hono/main.ts`, open
 * http://127.0.0.1:8000/, sign in, and edit the page in place. Edits are
 * drafts until you publish them.
 *
 * @module
 */
import { Hono } from "hono";
import {
  type Cms,
  contentVersion,
  createCms,
  defineContent,
  type DraftStore,
  type Editor,
  KvContentStore,
  LocalMediaStorage,
} from "@inplace/cms";

/** What the app needs from its host. */
export interface AppOptions {
  /** Content, history and drafts. */
  store: DraftStore;
  /** Uploaded media (served under `/media/`). */
  storage: LocalMediaStorage;
  /** The editor of a request's session, or `null`. */
  authorize: (req: Request) => Promise<Editor | null>;
  /** Signs an editor in: answers the login form. */
  login: (req: Request) => Promise<Response>;
}

/** The editable content: one page with a title and a rich body. */
export const content = defineContent({
  pages: { title: "plain", body: "rich" },
});

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Hands the service every request under its base path and the media
 * files' path, for every method: a routed path answers (405 with `Allow`
 * for a method it doesn't serve); anything else there is Hono's 404.
 */
export function mountCms(app: Hono, cms: Cms, media = "/media"): Hono {
  for (const path of [`${cms.basePath}/*`, `${media}/*`]) {
    app.all(path, async (c) => await cms.handle(c.req.raw) ?? c.notFound());
  }
  return app;
}

/** Builds the Hono app and the service it mounts (close it on shutdown). */
export function createApp(options: AppOptions): { app: Hono; cms: Cms } {
  const { store, authorize } = options;
  const cms = createCms({
    authorize,
    allowlist: content,
    store,
    storage: options.storage,
    publishMode: "draft",
    pageUrl: () => "/",
  });

  const app = new Hono();
  mountCms(app, cms);
  app.post("/login", (c) => options.login(c.req.raw));
  app.get("/", async (c) => {
    const editor = c.req.query("edit") !== undefined
      ? await authorize(c.req.raw)
      : null;
    // Editors see the drafts; visitors the published values.
    const record = editor
      ? await store.getDrafted("pages", "home")
      : await store.get("pages", "home");
    const title = String(record?.title ?? "Hello from Hono");
    const body = String(record?.body ?? "<p>Edit me.</p>");
    const mark = (field: string, value: string, rich = false) =>
      editor
        ? ` data-cms-field="pages:home:${field}" data-cms-version="${
          contentVersion(value)
        }"${rich ? ' data-cms-type="richtext"' : ""}`
        : "";
    const config = JSON.stringify(
      cms.pageConfig({ editor: editor?.name, exit: "/", settings: false }),
    ).replaceAll("<", "\\u003c");
    const tail = editor
      ? `<script type="application/json" id="cms-config">${config}</script>
<script type="module" src="${cms.mount}"></script>`
      : `<form method="post" action="/login"><input type="password" name="password" aria-label="Password"> <button>Edit</button></form>`;
    c.header("Cache-Control", editor ? "private, no-store" : "no-cache");
    return c.html(`<!doctype html><meta charset="utf-8">
<title>${escape(title)}</title>
<h1${mark("title", title)}>${escape(title)}</h1>
<div${mark("body", body, true)}>${body}</div>
${tail}`);
  });
  return { app, cms };
}

/**
 * Password sign-in with sessions in Deno KV (a random id in an `HttpOnly`
 * cookie): `authorize` and `login` for {@linkcode createApp}.
 */
export function kvSessions(
  kv: Deno.Kv,
  password: string,
): Pick<AppOptions, "authorize" | "login"> {
  return {
    async authorize(req) {
      const sid = req.headers.get("Cookie")?.match(/(?:^|;\s*)sid=(\w+)/)?.[1];
      return sid ? (await kv.get<Editor>(["sessions", sid])).value : null;
    },
    async login(req) {
      const form = await req.formData();
      if (form.get("password") !== password) {
        return new Response("Wrong password", { status: 403 });
      }
      const sid = crypto.randomUUID().replaceAll("-", "");
      await kv.set(["sessions", sid], { name: "Editor" }, {
        expireIn: 86_400_000,
      });
      return new Response(null, {
        status: 303,
        headers: {
          Location: "/?edit",
          "Set-Cookie": `sid=${sid}; Path=/; HttpOnly; SameSite=Lax`,
        },
      });
    },
  };
}

if (import.meta.main) {
  const dir = Deno.env.get("DATA_DIR") ?? ".data/hono";
  await Deno.mkdir(dir, { recursive: true });
  const kv = await Deno.openKv(`${dir}/content.kv`);
  const { app } = createApp({
    store: new KvContentStore(kv),
    storage: new LocalMediaStorage({
      dir: `${dir}/media`,
      publicUrl: "/media",
    }),
    ...kvSessions(kv, Deno.env.get("EDITOR_PASSWORD") ?? "change-me"),
  });
  Deno.serve({
    hostname: "127.0.0.1",
    port: Number(Deno.env.get("PORT") ?? 8000),
  }, app.fetch);
}
