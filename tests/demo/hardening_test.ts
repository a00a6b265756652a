/**
 * The demo behind a proxy and under attack: login throttling
 * that cannot lock everyone out, total Host and target parsing (fuzzed,
 * every log line JSON), `CMS_PUBLIC_ORIGIN`, CSP on every HTML answer and
 * owner-only data files.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { startDemo } from "../../demo/main.ts";
import {
  DEMO_PASSWORD as PASSWORD,
  spawnDemo,
  stopDemo,
  withDemo,
} from "../helpers/demo.ts";
import { rawStatus } from "../helpers/serve.ts";

/**
 * Posts the login form from the local address `from` (a loopback address:
 * Linux routes all of 127.0.0.0/8 to lo), with extra headers.
 */
function loginFrom(
  url: string,
  from: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; cookie: string | null }> {
  const { port } = new URL(url);
  const body = new URLSearchParams({ password, next: "/" }).toString();
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port: Number(port),
      path: "/login",
      method: "POST",
      localAddress: from,
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "Content-Length": String(body.length),
        "Sec-Fetch-Site": "same-origin",
        Origin: url,
        Connection: "close",
        ...headers,
      },
    }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          cookie: String(res.headers["set-cookie"] ?? "") || null,
        }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * The attack once reported: 95 wrong passwords from 26 addresses, 5 more from
 * one; `send(client, password)` sends one login as `client`.
 */
async function lockoutAttack(
  send: (client: string, password: string) => Promise<{ status: number }>,
  clients: string[],
  main: string,
) {
  for (let i = 0; i < 95; i++) {
    const { status } = await send(clients[i % clients.length], `wrong-${i}`);
    assert.ok(status === 401 || status === 429, `attempt ${i}: ${status}`);
  }
  for (let i = 0; i < 5; i++) {
    assert.equal((await send(main, `wrong-main-${i}`)).status, 401);
  }
  // The attacking client itself is in backoff, even with the password.
  assert.equal((await send(main, PASSWORD)).status, 429);
}

const loopback = (n: number) => `127.0.0.${n}`;
const attackers = Array.from({ length: 26 }, (_, i) => loopback(i + 2));

Deno.test("lockout attack on one address: a clean client still signs in", async () => {
  await withDemo(async (url) => {
    const send = (from: string, password: string) =>
      loginFrom(url, from, password);
    await lockoutAttack(send, attackers, "127.0.0.1");
    const clean = await send(loopback(200), PASSWORD);
    assert.equal(clean.status, 303);
    assert.match(clean.cookie ?? "", /cms_demo_session=/);
  });
});

Deno.test("lockout attack behind a proxy: the trusted header tells clients apart", async () => {
  await withDemo(async (url) => {
    // Everything comes from the proxy (127.0.0.1) with X-Forwarded-For.
    const via = (client: string, password: string) =>
      loginFrom(url, "127.0.0.1", password, {
        "X-Forwarded-For": `203.0.113.77, ${client}`,
      });
    const forwarded = attackers.map((_, i) => `198.51.100.${i + 1}`);
    await lockoutAttack(via, forwarded, "192.0.2.1");
    const clean = await via("192.0.2.200", PASSWORD);
    assert.equal(clean.status, 303);
  }, { clientAddress: { header: "X-Forwarded-For" } });
  // The header of a peer that is not the proxy is never believed: five
  // failures from 127.0.0.9 put it in backoff whatever it claims.
  await withDemo(async (url) => {
    for (let i = 0; i < 5; i++) {
      const r = await loginFrom(url, loopback(9), `x${i}`, {
        "X-Forwarded-For": `192.0.2.${100 + i}`,
      });
      assert.equal(r.status, 401);
    }
    const spoofed = await loginFrom(url, loopback(9), PASSWORD, {
      "X-Forwarded-For": "192.0.2.250",
    });
    assert.equal(spoofed.status, 429);
  }, { clientAddress: { header: "X-Forwarded-For" } });
});

/** 200 malformed Host values and request targets, deterministic. */
function malformed(port: number): { host: string; target: string }[] {
  const good = `127.0.0.1:${port}`;
  const hosts = [
    `${good}.`,
    "a, b",
    `${good}, evil.example`,
    `${good} `.trim() + " x",
    "[::1",
    "x:99999",
    `127.0.0.1:${port}0000`,
    "%",
    "a/b",
    `${good}/x`,
    "a?b",
    "a#b",
    "a@b",
    `user@${good}`,
    "",
    ":",
    `:${port}`,
    "..",
    "a..b",
    "-a",
    `${good}:1`,
    `[::1]:${port}x`,
    "127.0.0.1:-1",
    "127.0.0.1:+80",
    "127.0.0.1:0x50",
    "exa mple.com",
    "例え.jp",
    "a\\b",
    "a%2fb",
    "<script>",
  ];
  const inserts = [".", ",", " ", "/", "?", "#", "@", "%", "\\", "[", "]"];
  for (const c of inserts) {
    hosts.push(`${c}${good}`, `${good}${c}`, `127.0.0${c}.1:${port}`);
  }
  for (let i = 0; i < 10; i++) hosts.push(`${good}${":".repeat(i + 1)}`);
  const paths = [
    "/",
    "/login",
    "/api/cms/save",
    "/api/cms/media",
    "/api/cms/history",
    "/healthz",
    "/readyz",
    "/media/x.png",
    "/cms/mod.js",
    "/nope",
  ];
  const out = hosts.map((host, i) => ({ host, target: paths[i % 10] }));
  const targets = [
    "//x",
    "http://evil.example/",
    "https://evil.example/login",
    "/%zz",
    "/..%2f..%2f",
    "/%00",
    "/a%",
    "*",
    "/?next=%zz",
    `http://${good}/%`,
    "/login?%",
    "/api/cms/history?field=%zz",
  ];
  for (let i = 0; out.length < 200; i++) {
    out.push({
      host: good,
      target: targets[i % targets.length] +
        "x".repeat(Math.floor(i / targets.length)),
    });
  }
  return out.slice(0, 200);
}

Deno.test("host fuzz: 200 malformed Host and target spellings (and headers), no 5xx, every log line JSON", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-demo-fuzz-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-demo-client-" });
  const demo = await spawnDemo({
    CMS_DATA_DIR: dataDir,
    CMS_CLIENT_DIR: clientDir,
    CMS_EDITOR_PASSWORD: PASSWORD,
  }, { stderr: "piped" });
  try {
    const cases = malformed(demo.port);
    assert.equal(cases.length, 200);
    const methods = ["GET", "POST", "PATCH"];
    for (const [i, { host, target }] of cases.entries()) {
      const method = methods[i % 3];
      const status = await rawStatus(
        demo.port,
        `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n` +
          `Content-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      assert.ok(status >= 200 && status < 500, `${host} ${target}: ${status}`);
      // Header values are trimmed of spaces by the HTTP parser.
      if (host.trim() !== `127.0.0.1:${demo.port}`) {
        assert.ok(status === 400 || status === 421, `${host}: ${status}`);
      }
    }
    // Malformed headers beside a good Host: never a 5xx either.
    const good = `127.0.0.1:${demo.port}`;
    const headers = [
      "Origin: http://[",
      "Origin: null",
      "Cookie: cms_demo_session=\x7f\x01; ;=;",
      "Content-Type: ;;;",
      "Sec-Fetch-Site: \u00ff",
      "X-Request-Id: <script>alert(1)</script>",
      "traceparent: 00-zz-yy-01",
      "X-Forwarded-For: ::::, [",
      "Content-Length: 0\r\nTransfer-Encoding: chunked",
      "Host: second.example",
    ];
    for (const [i, header] of headers.entries()) {
      for (const path of ["/login", "/api/cms/save", "/api/cms/media", "/"]) {
        const status = await rawStatus(
          demo.port,
          `POST ${path} HTTP/1.1\r\nHost: ${good}\r\n${header}\r\n` +
            `Content-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        assert.ok(status >= 200 && status < 500, `${i} ${path}: ${status}`);
      }
    }
    // The two spellings of the issue, exactly.
    for (const host of [`127.0.0.1:${demo.port}.`, "a, b"]) {
      const status = await rawStatus(
        demo.port,
        `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(status, 400, host);
    }
  } finally {
    await stopDemo(demo);
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(clientDir, { recursive: true });
  }
  const banner = /^(Demo running at |Content: )/;
  const lines = [
    ...(await demo.output).split("\n").filter((l) => !banner.test(l)),
    ...(await demo.errors).split("\n"),
  ].filter((l) => l.trim() !== "");
  assert.ok(lines.length > 0, "the refusals are logged");
  for (const line of lines) {
    assert.doesNotThrow(() => JSON.parse(line), line);
  }
});

Deno.test("CMS_PUBLIC_ORIGIN: Secure cookie and https preview links", async () => {
  const origin = "https://cms.example";
  await withDemo(async (url) => {
    const login = await loginFrom(url, "127.0.0.1", PASSWORD, {
      Origin: origin,
    });
    assert.equal(login.status, 303);
    assert.match(login.cookie!, /; Secure/);
    const cookie = login.cookie!.split(";")[0];
    const res = await fetch(`${url}/api/cms/preview`, {
      method: "POST",
      headers: {
        Cookie: cookie,
        Origin: origin,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ path: "/" }),
    });
    assert.equal(res.status, 200);
    const { url: link } = await res.json();
    assert.ok(link.startsWith(`${origin}/?preview=`), link);
    // Its host is allowed; the endpoints want its Origin.
    const viaHost = await fetch(`${url}/`, {
      headers: { Host: "cms.example" },
    });
    assert.equal(viaHost.status, 200);
    await viaHost.body?.cancel();
    const other = await fetch(`${url}/api/cms/preview`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: url, "Sec-Fetch-Site": "same-origin" },
      body: "{}",
    });
    assert.equal(other.status, 403);
    await other.body?.cancel();
  }, { publicOrigin: origin, publishMode: "draft" });
  // Without it (plain http), no Secure flag.
  await withDemo(async (url) => {
    const login = await loginFrom(url, "127.0.0.1", PASSWORD);
    assert.equal(login.status, 303);
    assert.doesNotMatch(login.cookie!, /Secure/);
  });
});

Deno.test("CSP on every HTML answer: login, 403 and 404 pages run no script", async () => {
  await withDemo(async (url) => {
    const pages = [
      await fetch(`${url}/login`),
      await fetch(`${url}/no-such-page`),
      await fetch(`${url}/login`, {
        method: "POST",
        headers: {
          Origin: "https://evil.example",
          "Sec-Fetch-Site": "cross-site",
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: "password=x",
      }),
      await fetch(`${url}/?preview=0123.${"A".repeat(43)}`),
    ];
    assert.deepEqual(pages.map((p) => p.status), [200, 404, 403, 200]);
    for (const page of pages) {
      assert.match(page.headers.get("Content-Type")!, /^text\/html/);
      const csp = page.headers.get("Content-Security-Policy") ?? "";
      assert.match(csp, /default-src 'self'/, String(page.status));
      assert.match(csp, /script-src ('none'|'self' 'nonce-)/);
      assert.match(csp, /frame-ancestors 'none'/);
      await page.body?.cancel();
    }
    const login = pages[0].headers.get("Content-Security-Policy")!;
    assert.match(login, /script-src 'none'/);
  });
});

Deno.test("data files are created owner-only (0600), and an existing one is made so", async () => {
  const mode = async (path: string) => (await Deno.stat(path)).mode! & 0o777;
  let dataDir = "";
  await withDemo(async (_url, dir) => {
    dataDir = dir;
    assert.equal(await mode(`${dir}/content.kv`), 0o600);
    assert.equal(await mode(`${dir}/preview-secret`), 0o600);
    for (const extra of ["content.kv-wal", "content.kv-shm"]) {
      const path = `${dir}/${extra}`;
      const exists = await Deno.stat(path).then(() => true, () => false);
      if (exists) assert.equal(await mode(path), 0o600, extra);
    }
  });
  assert.ok(dataDir);
  // A world-readable content.kv from an older version is tightened.
  const dir = await Deno.makeTempDir({ prefix: "cms-demo-mode-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-demo-client-" });
  try {
    await Deno.writeFile(`${dir}/content.kv`, new Uint8Array(), {
      mode: 0o644,
    });
    await Deno.chmod(`${dir}/content.kv`, 0o644);
    const demo = await startDemo({
      port: 0,
      dataDir: dir,
      password: PASSWORD,
      clientDir,
    });
    await demo.close();
    assert.equal(await mode(`${dir}/content.kv`), 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(clientDir, { recursive: true });
  }
});
