/**
 * The demo in tests: sign in, start it in this process already signed in,
 * or run `demo/main.ts` as its own process and wait for its address.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type DemoOptions,
  type DemoServer,
  startDemo,
} from "../../demo/main.ts";
import type { RevisionSummary } from "../../core/protocol/mod.ts";

/** The editor password the demo tests use. */
export const DEMO_PASSWORD = "correct horse battery staple";

/** The demo's base URL and an editor's session cookie (`name=value`). */
export interface Site {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The session cookie as a `Cookie` header value. */
  cookie: string;
}

/**
 * Sends the demo's login form as a same-site browser would; the answer's
 * body is left to the caller.
 *
 * @example
 * ```ts
 * import { loginPost } from "./demo.ts";
 * const res = await loginPost("http://127.0.0.1:8000", "wrong");
 * await res.body?.cancel();
 * ```
 */
export function loginPost(
  url: string,
  password: string = DEMO_PASSWORD,
  next = "/",
): Promise<Response> {
  return fetch(`${url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "Sec-Fetch-Site": "same-origin",
      Origin: url,
    },
    body: new URLSearchParams({ password, next }).toString(),
  });
}

/**
 * Signs in (asserting the 303) and returns the session cookie.
 *
 * @example
 * ```ts
 * import { login } from "./demo.ts";
 * const cookie = await login("http://127.0.0.1:8000");
 * ```
 */
export async function login(
  url: string,
  password: string = DEMO_PASSWORD,
): Promise<string> {
  const res = await loginPost(url, password);
  await res.body?.cancel();
  assert.equal(res.status, 303);
  return res.headers.get("Set-Cookie")!.split(";")[0];
}

/**
 * The headers of an editor's same-site JSON call to the demo's endpoints.
 *
 * @example
 * ```ts
 * import { editorHeaders } from "./demo.ts";
 * editorHeaders("http://127.0.0.1:8000", "cms_session=abc");
 * ```
 */
export function editorHeaders(url: string, cookie: string): HeadersInit {
  return {
    Cookie: cookie,
    "Sec-Fetch-Site": "same-origin",
    Origin: url,
    "Content-Type": "application/json",
  };
}

/**
 * The history of `pages:home:<field>` (up to 1000 revisions, newest
 * first), asserting the 200.
 *
 * @example
 * ```ts
 * import { login, revisions } from "./demo.ts";
 * const url = "http://127.0.0.1:8000";
 * const list = await revisions(url, await login(url), "title");
 * ```
 */
export async function revisions(
  url: string,
  cookie: string,
  field: string,
): Promise<RevisionSummary[]> {
  const res = await fetch(
    `${url}/api/cms/history?field=pages:home:${field}&limit=1000`,
    { headers: editorHeaders(url, cookie) },
  );
  assert.equal(res.status, 200);
  return (await res.json()).revisions;
}

/**
 * The stored version of `pages:home:<field>` as the editor's page renders
 * it (`data-cms-version` on the field's marker in `/?edit`): the version of
 * the write that was committed last, whatever order answers arrived in.
 *
 * @example
 * ```ts
 * import { fieldVersion, login } from "./demo.ts";
 * const url = "http://127.0.0.1:8000";
 * const version = await fieldVersion(url, await login(url), "title");
 * ```
 */
export async function fieldVersion(
  url: string,
  cookie: string,
  field: string,
): Promise<string> {
  const res = await fetch(`${url}/?edit`, { headers: { Cookie: cookie } });
  assert.equal(res.status, 200);
  const html = await res.text();
  const marker = html.match(
    new RegExp(`<[^>]*data-cms-field="pages:home:${field}"[^>]*>`),
  );
  assert.ok(marker, `no marker for ${field}`);
  const version = marker[0].match(/data-cms-version="([^"]+)"/);
  assert.ok(version, `no version on ${field}`);
  return version[1];
}

/**
 * Starts the demo in this process on a free port with
 * {@linkcode DEMO_PASSWORD} and signs in; the caller closes `demo`.
 *
 * @example
 * ```ts
 * import { startSignedIn } from "./demo.ts";
 * const dataDir = await Deno.makeTempDir();
 * const { demo, site } = await startSignedIn({ dataDir });
 * try { await fetch(site.url); } finally { await demo.close(); }
 * ```
 */
export async function startSignedIn(
  options: DemoOptions,
): Promise<{ demo: DemoServer; site: Site }> {
  const demo = await startDemo({
    port: 0,
    password: DEMO_PASSWORD,
    ...options,
  });
  try {
    return { demo, site: { url: demo.url, cookie: await login(demo.url) } };
  } catch (err) {
    await demo.close();
    throw err;
  }
}

/** The demo running as its own process (`deno run -A demo/main.ts`). */
export interface DemoProcess {
  /** Base URL without trailing slash. */
  url: string;
  /** Its port on 127.0.0.1. */
  port: number;
  /** The process. */
  child: Deno.ChildProcess;
  /** All it wrote to stdout, once it has exited. */
  output: Promise<string>;
  /** All it wrote to stderr, once it has exited (with `stderr: "piped"`). */
  errors: Promise<string>;
}

/** Options of {@linkcode spawnDemo}. */
export interface SpawnDemoOptions {
  /** Start from an empty environment (only `env`). Default `false`. */
  clearEnv?: boolean;
  /** Where its stderr goes (`"piped"`: into `errors`). Default `"inherit"`. */
  stderr?: "inherit" | "null" | "piped";
}

const ROOT = new URL("../../", import.meta.url);

/**
 * Runs `demo/main.ts` with `env` and `PORT=0`, and waits (at most 60 s) for
 * its "Demo running at" line; its stdout keeps being read so it never
 * blocks on a full pipe. On failure the process is killed.
 *
 * @example
 * ```ts
 * import { spawnDemo, stopDemo } from "./demo.ts";
 * const demo = await spawnDemo({ CMS_DATA_DIR: await Deno.makeTempDir() });
 * await stopDemo(demo);
 * ```
 */
export async function spawnDemo(
  env: Record<string, string>,
  options: SpawnDemoOptions = {},
): Promise<DemoProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "demo/main.ts"],
    cwd: ROOT,
    env: { ...env, PORT: "0" },
    clearEnv: options.clearEnv ?? false,
    stdout: "piped",
    stderr: options.stderr ?? "inherit",
  }).spawn();
  const errors = options.stderr === "piped"
    ? new Response(child.stderr).text()
    : Promise.resolve("");
  errors.catch(() => {});
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  try {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`demo exited early: ${seen}`);
      seen += value;
      const match = seen.match(/Demo running at (http:\/\/\S+?)\/?\s/);
      if (match) {
        // Ends with the process's stdout, i.e. when it exits.
        const output = (async () => {
          for (;;) {
            const { done, value } = await lines.read();
            if (done) return seen;
            seen += value;
          }
        })();
        output.catch(() => {});
        const url = match[1];
        return {
          url,
          port: Number(new URL(url).port),
          child,
          output,
          errors,
        };
      }
    }
    throw new Error("demo did not start within 60 s");
  } catch (err) {
    child.kill("SIGKILL");
    await child.status;
    throw err;
  }
}

/**
 * Sends `signal` to a {@linkcode spawnDemo} process (if still running) and
 * waits for it to exit.
 *
 * @example
 * ```ts
 * import { spawnDemo, stopDemo } from "./demo.ts";
 * const demo = await spawnDemo({ CMS_DATA_DIR: await Deno.makeTempDir() });
 * await stopDemo(demo, "SIGKILL");
 * ```
 */
export async function stopDemo(
  demo: DemoProcess,
  signal: Deno.Signal = "SIGTERM",
): Promise<void> {
  try {
    demo.child.kill(signal);
  } catch { /* already gone */ }
  await demo.child.status;
}

/**
 * The environment of a demo process in publish mode `draft` (with
 * {@linkcode DEMO_PASSWORD}, a fixed preview secret, and this process's
 * `PATH`, `HOME` and `DENO_DIR`), plus `extra`; for `spawnDemo` with
 * `clearEnv`.
 *
 * @example
 * ```ts
 * import { draftDemoEnv } from "./demo.ts";
 * draftDemoEnv({ CMS_DATA_DIR: "/tmp/x" }).CMS_PUBLISH; // "draft"
 * ```
 */
export function draftDemoEnv(
  extra: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    CMS_EDITOR_PASSWORD: DEMO_PASSWORD,
    CMS_PUBLISH: "draft",
    CMS_PREVIEW_SECRET: "p".repeat(40),
    PORT: "0",
    ...extra,
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return env;
}

/**
 * Signs in through the demo's login form in `page` (with
 * {@linkcode DEMO_PASSWORD}) and opens edit mode, waiting for the edit bar.
 *
 * @example
 * ```ts ignore
 * await editInBrowser(page, demo.url);
 * ```
 */
export async function editInBrowser(
  page: import("./browser.ts").Page,
  url: string,
): Promise<void> {
  await page.goto(`${url}/login`);
  await page.click("#password");
  await page.type(DEMO_PASSWORD);
  await page.press("Enter");
  await page.waitFor(() => document.querySelector('a[href="/?edit"]'), {
    timeout: 10_000,
  });
  await page.goto(`${url}/?edit`);
  await page.waitFor("cms-edit-bar", { timeout: 15_000 });
}

/**
 * Starts the demo in-process on a free port with a temp data folder and an
 * empty client folder (HTTP-level tests never load the bundle), runs `fn`
 * with its URL and data folder, then stops it and removes both folders.
 *
 * @example
 * ```ts
 * import { withDemo } from "./demo.ts";
 * await withDemo(async (url) => {
 *   await (await fetch(url)).body?.cancel();
 * });
 * ```
 */
export async function withDemo(
  fn: (url: string, dataDir: string) => Promise<void>,
  options: DemoOptions = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cms-demo-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-demo-client-" });
  const demo = await startDemo({
    port: 0,
    dataDir: dir,
    password: DEMO_PASSWORD,
    clientDir,
    ...options,
  });
  try {
    await fn(demo.url, dir);
  } finally {
    await demo.close();
    await Deno.remove(clientDir, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
}
