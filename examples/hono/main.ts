/**
 * In-place editing on a Hono app: the save, media and history endpoints,
 * the uploaded media and the browser client, mounted as Hono routes. The
 * handlers are Web-standard, so each route hands Hono's `c.req.raw` over.
 *
 * Run: `EDITOR_PASSWORD=secret deno run -A examples/hono/main.ts`, open
 * http://127.0.0.1:8000/, sign in, and edit the page in place.
 *
 * @module
 */
import { Hono } from "hono";
import {
  contentVersion,
  createClientHandler,
  createHistoryHandler,
  createMediaHandler,
  createSaveHandler,
  defineContent,
  type Editor,
  type HistoryStore,
  KvContentStore,
  LocalMediaStorage,
  serveLocalMedia,
} from "@inplace/cms";

/** What the app needs from its host. */
export interface AppOptions {
  /** Content and history. */
  store: HistoryStore;
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
  s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Builds the Hono app. */
export function createApp(options: AppOptions): Hono {
  const { store, storage, authorize } = options;
  const cms = { authorize, allowlist: content, store, storage };
  const save = createSaveHandler(cms);
  const media = createMediaHandler(cms);
  const history = createHistoryHandler(cms);
  const files = serveLocalMedia(storage);
  const client = createClientHandler();

  const app = new Hono();
  // Every method goes to the endpoint, which answers 405 with `Allow`.
  app.all("/api/cms/save", (c) => save(c.req.raw));
  app.all("/api/cms/media", (c) => media(c.req.raw));
  app.all("/api/cms/history", (c) => history(c.req.raw));
  app.get("/media/*", (c) => files(c.req.raw));
  app.all(`${client.base}*`, (c) => client(c.req.raw));
  app.post("/login", (c) => options.login(c.req.raw));
  app.get("/", async (c) => {
    const editor = c.req.query("edit") !== undefined
      ? await authorize(c.req.raw)
      : null;
    const record = await store.get("pages", "home");
    const title = String(record?.title ?? "Hello from Hono");
    const body = String(record?.body ?? "<p>Edit me.</p>");
    const mark = (field: string, value: string, rich = false) =>
      editor
        ? ` data-cms-field="pages:home:${field}" data-cms-version="${
          contentVersion(value)
        }"${rich ? ' data-cms-type="richtext"' : ""}`
        : "";
    const config = JSON.stringify({
      editor: editor?.name ?? "",
      history: "/api/cms/history",
      mediaBase: storage.url(""),
      exit: "/",
      settings: false, // no settings drawer here
    }).replaceAll("<", "\\u003c");
    const tail = editor
      ? `<script type="application/json" id="cms-config">${config}</script>
<script type="module" src="${client.mount}"></script>`
      : `<form method="post" action="/login"><input type="password" name="password" aria-label="Password"> <button>Edit</button></form>`;
    if (editor) c.header("Cache-Control", "private, no-store");
    return c.html(`<!doctype html><meta charset="utf-8">
<title>${escape(title)}</title>
<h1${mark("title", title)}>${escape(title)}</h1>
<div${mark("body", body, true)}>${body}</div>
${tail}`);
  });
  return app;
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
  const app = createApp({
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
