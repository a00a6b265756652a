/**
 * The demo for `deno serve`, e.g. on every core with `deno task parallel`
 * (`deno serve --parallel -A demo/serve.ts`; `DENO_JOBS=N` sets the number
 * of workers). Each worker is its own isolate with its own stores, all on
 * the one KV file of `CMS_DATA_DIR` (or the PostgreSQL of
 * `CMS_DATABASE_URL`); editors on different workers see each other through
 * the KV event bus (`KvEventBus`), as separate processes would.
 *
 * Environment: as `demo/main.ts` (`CMS_DATA_DIR`, `CMS_EDITOR_PASSWORD`,
 * `CMS_DATABASE_URL`, `CMS_CLIENT_DIR`, `CMS_PUBLISH`, `CMS_LOCALES`,
 * `CMS_PUBLIC_HOSTS`, `CMS_EVENTS_HEARTBEAT_MS`, `CMS_SCHEDULE_POLL_MS`),
 * plus `PORT`: the port given to `deno serve --port` (default 8000), so the
 * site answers to `127.0.0.1:PORT` and `localhost:PORT`.
 *
 * @module
 */
import { buildClient } from "../tools/build_client.ts";
import { publishModeFromEnv, startDemo } from "./main.ts";

const env = (name: string) => Deno.env.get(name) || undefined;
const list = (name: string) =>
  env(name)?.split(",").map((v) => v.trim()).filter(Boolean);
const port = Number(env("PORT") ?? "8000");
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  throw new Error(`PORT must be the port of deno serve, got "${port}"`);
}

// Each worker builds the client unless a prebuilt one is given
// (`deno task build`), into a folder removed when the worker ends.
let clientDir = env("CMS_CLIENT_DIR");
if (!clientDir) {
  const dir = clientDir = await Deno.makeTempDir({ prefix: "cms-client-" });
  globalThis.addEventListener("unload", () => {
    Deno.removeSync(dir, { recursive: true });
  });
  await buildClient(dir);
}

const demo = await startDemo({
  listen: false,
  port,
  dataDir: env("CMS_DATA_DIR"),
  password: env("CMS_EDITOR_PASSWORD"),
  databaseUrl: env("CMS_DATABASE_URL"),
  clientDir,
  publishMode: publishModeFromEnv(env("CMS_PUBLISH")),
  locales: list("CMS_LOCALES"),
  publicHosts: list("CMS_PUBLIC_HOSTS")?.map((h) => h.toLowerCase()),
  eventsHeartbeatMs: Number(env("CMS_EVENTS_HEARTBEAT_MS")) || undefined,
  schedulePollMs: Number(env("CMS_SCHEDULE_POLL_MS")) || undefined,
});

// On SIGTERM deno serve waits for every open request, and an editor's
// event stream never ends by itself: each worker ends its streams (with a
// `retry:` hint, so editors reconnect elsewhere) and the workers can stop.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.addSignalListener(signal, () => void demo.endStreams());
}

export default {
  fetch: demo.fetch,
  onListen(addr) {
    const at = addr as Deno.NetAddr;
    if (at.port !== port) {
      console.error(
        `demo: serving on port ${at.port} but PORT is ${port}: set PORT to ` +
          "the --port of deno serve, or requests get 421",
      );
    }
    console.log(`Demo worker running at http://127.0.0.1:${at.port}/`);
  },
} satisfies Deno.ServeDefaultExport;
