/**
 * The demo host site: `deno task dev` serves a page whose title, body and
 * feature list an editor changes in place. Plain `Deno.serve` + Preact SSR
 * with the library's Web-standard handlers, content in Deno KV, media in a
 * local folder (or S3).
 *
 * Environment (CLI only):
 * - `PORT` (default 8000), bound on 127.0.0.1.
 * - `CMS_DATA_DIR` (default `.data/`): `content.kv` and `media/`.
 * - `CMS_EDITOR_PASSWORD`: the editor's password; when unset, generated
 *   once into `CMS_DATA_DIR/editor-password` (mode 0600), reused on every
 *   restart (so sessions survive it) and printed.
 * - `CMS_DATABASE_URL=postgres://…` keeps content, history and sessions in
 *   PostgreSQL instead of `content.kv` (several instances can share it).
 * - `CMS_CLIENT_DIR`: a prebuilt client folder (`deno task build`); default:
 *   built at start into a temp folder.
 * - `CMS_SHUTDOWN_DEADLINE_MS` (default 10000): how long requests in flight
 *   may take after SIGTERM/SIGINT.
 * - `CMS_EVENTS_HEARTBEAT_MS` (default 15000): the editor event stream's
 *   heartbeat; presence of a vanished instance is gone within two.
 * - `CMS_LOCALES=en,de`: the site's locales, the first the default (served
 *   at `/`, German at `/de/`); unset: one language.
 * - `CMS_PUBLISH=draft`: saves are drafts until an editor publishes them
 *   (default `direct`: saves go live). Publishes can then be scheduled;
 *   `CMS_SCHEDULE_POLL_MS` (default 5000) is how often each instance looks
 *   for schedules made on other instances.
 * - `CMS_PREVIEW_SECRET`: signs preview links (≥ 32 bytes); generated into
 *   `CMS_DATA_DIR/preview-secret` when unset. Rotate it to revoke links.
 * - `CMS_PUBLIC_ORIGIN=https://cms.example.com`: the public origin behind a
 *   proxy: its scheme sets the cookie's `Secure` flag, preview links use it,
 *   its host is allowed, and the endpoints require it in `Origin`.
 * - `CMS_CLIENT_IP_HEADER` (e.g. `X-Forwarded-For`): the header a trusted
 *   proxy sets to the client's address, for the login throttle;
 *   `CMS_TRUSTED_PROXIES` (default `127.0.0.1,::1`): whose header counts.
 * - `CMS_S3_BUCKET` switches media to S3, with `CMS_S3_ENDPOINT`,
 *   `CMS_S3_REGION`, `CMS_S3_ACCESS_KEY_ID`, `CMS_S3_SECRET_ACCESS_KEY`,
 *   `CMS_S3_PUBLIC_URL`, `CMS_S3_PATH_STYLE`.
 *
 * @example
 * ```ts
 * import { startDemo } from "./demo/main.ts";
 * const demo = await startDemo({ port: 0, dataDir: await Deno.makeTempDir() });
 * console.log(demo.url, demo.password);
 * await demo.close();
 * ```
 *
 * @module
 */
import { buildClient } from "../tools/build_client.ts";
import {
  type ListableMediaStorage,
  LocalMediaStorage,
} from "../server/media/mod.ts";
import { S3MediaStorage, type S3MediaStorageOptions } from "../s3/mod.ts";
import {
  type HistoryStore,
  KvContentStore,
  type PublishMode,
} from "../server/store/mod.ts";
import { PostgresContentStore } from "../postgres/mod.ts";
import { PreviewSigner } from "../server/drafts/mod.ts";
import type { Cms } from "../server/app/mod.ts";
import { PostgresSessionKv } from "./pg_sessions.ts";
import postgres from "postgres";
import { createDemoApp } from "./app.tsx";
import type { ClientAddressOptions } from "./security.ts";
import { requestUrl } from "../server/http/mod.ts";
import {
  contentStoreCheck,
  createLivenessHandler,
  createReadinessHandler,
  mediaStorageCheck,
} from "../server/health/mod.ts";
import { serveGracefully, setLogger } from "../server/ops/mod.ts";
import {
  type EditorEvents,
  type EventBus,
  KvEventBus,
  MemoryEventBus,
} from "../server/events/mod.ts";
import { PostgresEventBus } from "../postgres/mod.ts";
import { seedHome } from "./content.ts";
import { randomToken, Sessions } from "./session.ts";

/** Options of {@linkcode startDemo}. */
export interface DemoOptions {
  /** Port on 127.0.0.1; `0` picks a free one. Default 8000. */
  port?: number;
  /** Folder for `content.kv` and `media/`. Default `.data`. */
  dataDir?: string;
  /**
   * Editor password. Default: generated once and kept in
   * `dataDir/editor-password` (mode 0600), so restarts keep sessions.
   */
  password?: string;
  /** Editor display name. Default `"Editor"`. */
  editorName?: string;
  /** A prebuilt client folder; default: build one into a temp folder. */
  clientDir?: string;
  /** S3 settings; when given, media goes to S3 instead of `dataDir`. */
  s3?: S3MediaStorageOptions;
  /**
   * `postgres://…`: content, history and sessions in PostgreSQL (shared by
   * every instance on it) instead of `dataDir/content.kv`.
   */
  databaseUrl?: string;
  /**
   * Host headers the site answers to besides `127.0.0.1:PORT` and
   * `localhost:PORT` (e.g. `cms.example.com` behind a proxy). Others get 421.
   */
  publicHosts?: string[];
  /**
   * `direct` (default): saves go live. `draft`: saves are drafts that
   * visitors don't see until an editor publishes them (`CMS_PUBLISH=draft`).
   */
  publishMode?: PublishMode;
  /**
   * Publish waits for an approval from a review link (draft mode;
   * `CMS_REQUIRE_APPROVAL=1`). Review links are signed with the preview
   * secret, for their own capability. Default `false`.
   */
  requireApproval?: boolean;
  /** The site's locales, the first the default (`CMS_LOCALES=en,de`). */
  locales?: readonly string[];
  /**
   * Secret of preview links (at least 32 bytes; `CMS_PREVIEW_SECRET`).
   * Default: generated once and kept in `dataDir/preview-secret`. Changing
   * it revokes every link. Instances that share content must share it.
   */
  previewSecret?: string;
  /**
   * `false`: no server; the returned `fetch` answers requests (for
   * `deno serve`, see `demo/serve.ts`), and `port` names the allowed Host.
   * Default `true`.
   */
  listen?: boolean;
  /**
   * Drain on SIGTERM/SIGINT (see `serveGracefully`); the CLI turns it on.
   * Default `false`.
   */
  signals?: boolean;
  /**
   * Longest wait of the scheduler between two looks at the store, in ms
   * (`CMS_SCHEDULE_POLL_MS`). Default 5000.
   */
  schedulePollMs?: number;
  /** How long requests in flight may take on shutdown. Default 10 s. */
  shutdownDeadlineMs?: number;
  /**
   * The public origin behind a proxy, e.g. `https://cms.example.com`
   * (`CMS_PUBLIC_ORIGIN`): cookies get `Secure` when it is https, preview
   * links use it, its host is allowed. Default: each request's own URL.
   */
  publicOrigin?: string;
  /**
   * Where a login's client address comes from behind a proxy
   * (`CMS_CLIENT_IP_HEADER`, `CMS_TRUSTED_PROXIES`). Default: the peer.
   */
  clientAddress?: ClientAddressOptions;
  /**
   * The editor event stream's heartbeat (`CMS_EVENTS_HEARTBEAT_MS`).
   * Default 15 s.
   */
  eventsHeartbeatMs?: number;
}

/** A running demo. */
export interface DemoServer {
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  url: string;
  /** The editor password in effect. */
  password: string;
  /** Resolves once the server has drained after a signal (or `close`). */
  stopped: Promise<void>;
  /** Drains the server, then closes the stores. */
  close(): Promise<void>;
  /** The site's handler (health endpoints included). */
  fetch(req: Request, info: Deno.ServeHandlerInfo): Promise<Response>;
  /** Ends the editor event streams with a `retry:` hint (on shutdown). */
  endStreams(): Promise<void>;
}

/** Starts the demo site. */
export async function startDemo(
  options: DemoOptions = {},
): Promise<DemoServer> {
  const dataDir = (options.dataDir ?? ".data").replace(/\/+$/, "") || ".";
  await Deno.mkdir(`${dataDir}/media`, { recursive: true, mode: 0o700 });
  const publicOrigin = options.publicOrigin
    ? checkedOrigin(options.publicOrigin)
    : undefined;
  const password = options.password ||
    await keptSecret(`${dataDir}/editor-password`, 15);

  const cleanup: (() => Promise<void> | void)[] = [];
  try {
    let clientDir = options.clientDir;
    if (!clientDir) {
      const dir = await Deno.makeTempDir({ prefix: "cms-client-" });
      cleanup.push(() => Deno.remove(dir, { recursive: true }));
      await buildClient(dir);
      clientDir = dir;
    }

    let store: HistoryStore;
    let sessions: Sessions;
    // Editor events: across instances over PostgreSQL, or the KV file.
    let bus: EventBus = new MemoryEventBus();
    if (options.databaseUrl) {
      const sql = postgres(options.databaseUrl, { onnotice: () => {} });
      cleanup.push(() => sql.end({ timeout: 5 }));
      store = new PostgresContentStore(sql);
      sessions = new Sessions(new PostgresSessionKv(sql));
      bus = new PostgresEventBus(sql);
    } else {
      const kv = await Deno.openKv(await ownerOnly(`${dataDir}/content.kv`));
      cleanup.push(() => kv.close());
      store = new KvContentStore(kv);
      sessions = new Sessions(kv);
      bus = new KvEventBus(kv);
    }
    await seedHome(store);

    // Local files are served at /media by the app; S3 serves its own.
    const media: ListableMediaStorage = options.s3
      ? new S3MediaStorage(options.s3)
      : new LocalMediaStorage({ dir: `${dataDir}/media`, publicUrl: "/media" });

    // Filled once the port is known; CMS_PUBLIC_HOST adds the public name.
    const allowedHosts: string[] = [];
    let cms: Cms | undefined;
    const previewSecret = options.previewSecret ||
      await keptSecret(`${dataDir}/preview-secret`, 32);
    const handler = await createDemoApp({
      allowedHosts,
      imageOrigins: options.s3 ? [new URL(options.s3.publicUrl).origin] : [],
      store,
      media,
      sessions,
      password,
      editorName: options.editorName ?? "Editor",
      clientDir,
      publishMode: options.publishMode,
      locales: options.locales,
      // Draft mode: a scheduler fires scheduled publishes (missed ones at
      // once); editors hear of each firing through the event hub.
      schedulePollMs: options.schedulePollMs,
      previewSigner: new PreviewSigner(previewSecret),
      reviewSecret: previewSecret,
      requireApproval: options.requireApproval,
      publicOrigin,
      clientAddress: options.clientAddress,
      events: { bus, heartbeatMs: options.eventsHeartbeatMs },
      created: (made) => {
        cms = made;
        cleanup.push(() => made.close());
      },
    });
    // Health endpoints, outside the app: probes skip sessions and the Host
    // allowlist (a load balancer probes by IP).
    const healthz = createLivenessHandler();
    const draining = new AbortController();
    const readyz = createReadinessHandler({
      checks: {
        content: contentStoreCheck(store),
        media: mediaStorageCheck(media),
      },
      draining: draining.signal,
    });
    const answer = (req: Request, info: Deno.ServeHandlerInfo) => {
      // A malformed Host or target goes on to the app, which answers 400.
      const pathname = pathOf(req);
      if (pathname === "/healthz") return healthz(req);
      if (pathname === "/readyz") return readyz(req);
      return handler(req, info);
    };
    if (options.listen === false) {
      const port = options.port ?? 8000;
      allowedHosts.push(`127.0.0.1:${port}`, `localhost:${port}`);
      allowedHosts.push(...(options.publicHosts ?? []));
      // Missed schedules have fired before the worker answers.
      await cms?.ready;
      const { promise: stopped, resolve } = Promise.withResolvers<void>();
      cleanup.push(resolve);
      return {
        url: `http://127.0.0.1:${port}`,
        password,
        stopped,
        close: () => runCleanup(cleanup),
        fetch: async (req, info) => await answer(req, info),
        endStreams: async () => await cms?.events?.close(),
      };
    }
    const server = serveGracefully(answer, {
      hostname: "127.0.0.1",
      port: options.port ?? 8000,
      signals: options.signals ?? false,
      deadlineMs: options.shutdownDeadlineMs,
      onListen() {},
    });
    server.draining.addEventListener("abort", () => draining.abort());
    server.draining.addEventListener("abort", () => cms?.scheduler?.stop());
    cleanup.push(() => server.shutdown());
    // Missed schedules have fired before the demo says it is up.
    await cms?.ready;
    const { port } = server.addr as Deno.NetAddr;
    allowedHosts.push(
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      ...(options.publicHosts ?? []),
      ...(publicOrigin ? [new URL(publicOrigin).host] : []),
    );
    return {
      url: `http://127.0.0.1:${port}`,
      password,
      stopped: server.finished,
      close: () => runCleanup(cleanup),
      fetch: async (req, info) => await answer(req, info),
      endStreams: async () => await cms?.events?.close(),
    };
  } catch (err) {
    await runCleanup(cleanup);
    throw err;
  }
}

/**
 * A secret kept in `file` (owner-only, mode 0600), created with `bytes`
 * random bytes on first use and reused after: the preview secret and the
 * generated editor password (so a restart keeps sessions and links).
 */
async function keptSecret(file: string, bytes: number): Promise<string> {
  try {
    return (await Deno.readTextFile(file)).trim();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  // Written whole under a temporary name, then linked into place (which
  // fails if the file exists): a process starting at the same moment never
  // reads a half-written secret.
  const secret = randomToken(bytes);
  const tmp = `${file}.${randomToken(6)}.tmp`;
  await Deno.writeTextFile(tmp, secret + "\n", {
    createNew: true,
    mode: 0o600,
  });
  try {
    await Deno.link(tmp, file);
    return secret;
  } catch (err) {
    // Another process created it first: use theirs.
    if (err instanceof Deno.errors.AlreadyExists) {
      return (await Deno.readTextFile(file)).trim();
    }
    throw err;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

/** The request's path, or `null` when its Host or target is malformed. */
function pathOf(req: Request): string | null {
  try {
    return requestUrl(req).pathname;
  } catch {
    return null;
  }
}

/** `origin` when it is a bare http(s) origin; throws naming it otherwise. */
function checkedOrigin(origin: string): string {
  const url = URL.parse(origin);
  if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin) {
    throw new Error(
      `CMS_PUBLIC_ORIGIN must be an origin such as https://cms.example.com, got "${origin}"`,
    );
  }
  return origin;
}

/**
 * `file`, created empty and owner-only (0600) when missing, and made
 * owner-only when it exists. SQLite gives its `-wal` and `-shm` files the
 * database file's mode, so Deno KV's files stay private too.
 */
async function ownerOnly(file: string): Promise<string> {
  try {
    await Deno.writeFile(file, new Uint8Array(), {
      createNew: true,
      mode: 0o600,
    });
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    await Deno.chmod(file, 0o600);
  }
  return file;
}

async function runCleanup(steps: (() => Promise<void> | void)[]) {
  for (const step of steps.splice(0).reverse()) {
    try {
      await step();
    } catch (err) {
      console.error("demo: cleanup failed", err);
    }
  }
}

/**
 * The publish mode of `CMS_PUBLISH`: unset or `direct` → `direct`, `draft`
 * → `draft`; anything else throws.
 */
export function publishModeFromEnv(value: string | undefined): PublishMode {
  if (!value || value === "direct") return "direct";
  if (value === "draft") return "draft";
  throw new Error(`CMS_PUBLISH must be "direct" or "draft", got "${value}"`);
}

/**
 * S3 settings from `CMS_S3_*` variables, or `undefined` when
 * `CMS_S3_BUCKET` is unset. Throws naming any missing variable.
 */
export function s3FromEnv(
  env: (name: string) => string | undefined,
): S3MediaStorageOptions | undefined {
  const bucket = env("CMS_S3_BUCKET");
  if (!bucket) return undefined;
  const region = env("CMS_S3_REGION") || "us-east-1";
  const endpoint = (env("CMS_S3_ENDPOINT") ||
    `https://s3.${region}.amazonaws.com`).replace(/\/+$/, "");
  const pathStyle = /^(1|true|yes)$/i.test(env("CMS_S3_PATH_STYLE") ?? "");
  const accessKeyId = env("CMS_S3_ACCESS_KEY_ID");
  const secretAccessKey = env("CMS_S3_SECRET_ACCESS_KEY");
  const missing = [
    ["CMS_S3_ACCESS_KEY_ID", accessKeyId],
    ["CMS_S3_SECRET_ACCESS_KEY", secretAccessKey],
  ].filter(([, v]) => !v).map(([name]) => name);
  if (missing.length) {
    throw new Error(`CMS_S3_BUCKET is set but ${missing.join(", ")} is not`);
  }
  const endpointUrl = new URL(endpoint);
  const publicUrl = env("CMS_S3_PUBLIC_URL") ||
    (pathStyle
      ? `${endpoint}/${bucket}`
      : `${endpointUrl.protocol}//${bucket}.${endpointUrl.host}`);
  return {
    endpoint,
    region,
    bucket,
    accessKeyId: accessKeyId!,
    secretAccessKey: secretAccessKey!,
    publicUrl,
    pathStyle,
  };
}

if (import.meta.main) {
  // The library is silent by default; the demo shows its JSON request log.
  setLogger("json");
  const env = (name: string) => Deno.env.get(name);
  const port = Number(env("PORT") || "8000");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a port number, got "${env("PORT")}"`);
    Deno.exit(1);
  }
  const given = env("CMS_EDITOR_PASSWORD");
  const s3 = s3FromEnv(env);
  const dataDir = env("CMS_DATA_DIR") || ".data";
  const databaseUrl = env("CMS_DATABASE_URL") || undefined;
  const clientDir = env("CMS_CLIENT_DIR") || undefined;
  const deadline = Number(env("CMS_SHUTDOWN_DEADLINE_MS") || "10000");
  const heartbeat = Number(env("CMS_EVENTS_HEARTBEAT_MS") || "15000");
  const publicHosts = (env("CMS_PUBLIC_HOSTS") ?? "").split(",")
    .map((h) => h.trim().toLowerCase()).filter(Boolean);
  const list = (name: string) =>
    env(name)?.split(",").map((v) => v.trim()).filter(Boolean);
  const demo = await startDemo({
    port,
    dataDir,
    password: given,
    s3,
    publicHosts,
    databaseUrl,
    clientDir,
    publishMode: publishModeFromEnv(env("CMS_PUBLISH")),
    locales: list("CMS_LOCALES"),
    previewSecret: env("CMS_PREVIEW_SECRET") || undefined,
    requireApproval: env("CMS_REQUIRE_APPROVAL") === "1",
    schedulePollMs: Number(env("CMS_SCHEDULE_POLL_MS")) || undefined,
    signals: true,
    shutdownDeadlineMs: Number.isFinite(deadline) ? deadline : 10_000,
    publicOrigin: env("CMS_PUBLIC_ORIGIN") || undefined,
    clientAddress: {
      header: env("CMS_CLIENT_IP_HEADER") || undefined,
      trustedProxies: list("CMS_TRUSTED_PROXIES"),
    },
    eventsHeartbeatMs: heartbeat > 0 ? heartbeat : 15_000,
  });
  console.log(`Demo running at ${demo.url}/`);
  console.log(
    `Content: ${
      databaseUrl ? "PostgreSQL (CMS_DATABASE_URL)" : `${dataDir}/content.kv`
    }; media: ${s3 ? `S3 bucket ${s3.bucket}` : `${dataDir}/media/`}`,
  );
  if (env("CMS_PUBLIC_ORIGIN") && !env("CMS_CLIENT_IP_HEADER")) {
    console.log(
      "CMS_PUBLIC_ORIGIN is set but CMS_CLIENT_IP_HEADER is not: behind a " +
        "proxy every client has its address, and the login throttle cannot " +
        "tell them apart.",
    );
  }
  if (!given) {
    console.log(
      `Editor password (kept in ${dataDir}/editor-password): ${demo.password}`,
    );
    console.log("Set CMS_EDITOR_PASSWORD to choose your own.");
  }
  // The first SIGTERM/SIGINT drains (a second one is harmless, a third
  // exits at once); then the stores close and the process ends.
  await demo.stopped;
  await demo.close();
  Deno.exit(0);
}
