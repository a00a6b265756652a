/**
 * The demo's sign-in and page rules, each as a class:
 * login throttling, a password change ending sessions, redirect targets,
 * the Host allowlist, Cache-Control of session-dependent pages and the CSP.
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/main.ts";
import {
  contentSecurityPolicy,
  LoginThrottle,
  safeNext,
} from "../../demo/security.ts";
import {
  DEMO_PASSWORD as PASSWORD,
  login,
  loginPost,
} from "../helpers/demo.ts";

async function withDemo(
  fn: (url: string) => Promise<void>,
  options: { dataDir?: string; password?: string } = {},
) {
  const dir = options.dataDir ??
    await Deno.makeTempDir({ prefix: "cms-demo-sec-" });
  const clientDir = await Deno.makeTempDir({ prefix: "cms-demo-client-" });
  const demo = await startDemo({
    port: 0,
    dataDir: dir,
    password: options.password ?? PASSWORD,
    clientDir,
  });
  try {
    await fn(demo.url);
  } finally {
    await demo.close();
    await Deno.remove(clientDir, { recursive: true });
    if (!options.dataDir) await Deno.remove(dir, { recursive: true });
  }
}

function save(url: string, cookie: string, value: string) {
  return fetch(`${url}/api/cms/save`, {
    method: "PATCH",
    headers: {
      "Content-Type": "application/json",
      "Sec-Fetch-Site": "same-origin",
      Cookie: cookie,
    },
    body: JSON.stringify({
      collection: "pages",
      key: "home",
      field: "title",
      value,
    }),
  });
}

Deno.test("throttle: every client backs off exponentially after its free failures", () => {
  for (const free of [1, 3, 5]) {
    for (const base of [100, 1000]) {
      let now = 1_000_000;
      const t = new LoginThrottle({
        freePerClient: free,
        baseDelayMs: base,
        maxDelayMs: 64 * base,
        now: () => now,
      });
      for (let i = 0; i < free; i++) {
        assert.equal(t.wait("a"), 0, `free attempt ${i}`);
        t.failure("a");
      }
      let expected = base;
      for (let extra = 0; extra < 8; extra++) {
        assert.equal(t.wait("a"), expected, `free=${free} extra=${extra}`);
        assert.equal(t.wait("b"), 0, "another client is not held back");
        now += expected; // wait it out, then fail again
        assert.equal(t.wait("a"), 0);
        t.failure("a");
        expected = Math.min(expected * 2, 64 * base);
      }
      t.success("a");
      assert.equal(t.wait("a"), 0, "a correct password clears the client");
    }
  }
});

Deno.test("throttle: an attack on the account slows failing clients, never a clean one", () => {
  let now = 0;
  const t = new LoginThrottle({
    freePerClient: 1000,
    overallPerWindow: 20,
    windowMs: 10_000,
    baseDelayMs: 500,
    holdMs: 700,
    now: () => now,
  });
  for (let i = 0; i < 19; i++) {
    assert.equal(t.wait(`client-${i}`, "editor"), 0);
    assert.equal(t.failure(`client-${i}`, "editor"), 0, "not yet an attack");
    now += 100;
  }
  // The 20th failure in the window: the account is under attack.
  assert.equal(t.failure("client-19", "editor"), 700, "wrong answers held");
  assert.equal(t.wait("fresh-client", "editor"), 0, "a clean client goes on");
  assert.equal(t.wait("client-19", "editor"), 500, "failed once: backoff");
  assert.equal(t.wait("client-0", "other-account"), 0, "per account");
  // A clean client's wrong password is held, not refused.
  assert.equal(t.failure("fresh-client", "editor"), 700);
  // Once the window has passed, the free failures are back.
  now = 30_000;
  assert.equal(t.wait("client-19", "editor"), 0);
  assert.equal(t.failure("client-19", "editor"), 0);
});

Deno.test("throttle: memory stays bounded under many clients", () => {
  const t = new LoginThrottle({ maxClients: 100, overallPerWindow: 1e9 });
  for (let i = 0; i < 5000; i++) t.failure(`c${i}`);
  // The newest are remembered, the oldest forgotten.
  for (let i = 0; i < 4; i++) t.failure("c4999");
  assert.ok(t.wait("c4999") > 0);
  assert.equal(t.wait("c0"), 0);
});

Deno.test("demo: after repeated wrong passwords even the right one gets 429 with Retry-After", async () => {
  await withDemo(async (url) => {
    for (let i = 0; i < 5; i++) {
      const res = await loginPost(url, `wrong-${i}`);
      await res.body?.cancel();
      assert.equal(res.status, 401);
    }
    for (const password of ["wrong-again", PASSWORD]) {
      const res = await loginPost(url, password);
      assert.equal(res.status, 429);
      assert.match(await res.text(), /Too many failed logins/);
      const after = Number(res.headers.get("Retry-After"));
      assert.ok(after >= 1, `Retry-After ${after}`);
      assert.equal(res.headers.get("Set-Cookie"), null);
    }
  });
});

Deno.test("demo: a password change ends every session, across restarts on the same data", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-demo-pw-" });
  try {
    let cookies: string[] = [];
    await withDemo(async (url) => {
      cookies = [await login(url), await login(url)];
      for (const c of cookies) {
        assert.equal((await save(url, c, "One")).status, 204);
      }
    }, { dataDir });
    // Same password: sessions survive a restart.
    await withDemo(async (url) => {
      assert.equal((await save(url, cookies[0], "Two")).status, 204);
    }, { dataDir });
    // New password: every old session is over, new ones work.
    await withDemo(async (url) => {
      for (const c of cookies) {
        const res = await save(url, c, "Three");
        assert.equal(res.status, 403, await res.text());
      }
      const fresh = await login(url, "a new password");
      assert.equal((await save(url, fresh, "Four")).status, 204);
    }, { dataDir, password: "a new password" });
    // Back to the old password: still a change, the old sessions stay over.
    await withDemo(async (url) => {
      assert.equal((await save(url, cookies[0], "Five")).status, 403);
    }, { dataDir });
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

/** Every spelling of "leave the site" the generator can build. */
function offSiteSpellings(): string[] {
  const prefixes = [
    "/",
    "/.",
    "/a/..",
    "/%2e",
    "/%2E",
    "/a/%2e%2e",
    "/..",
    "/./.",
    "/a/b/../..",
    "/%2e%2e",
  ];
  const separators = ["/", "\\", "\t/", "/\t", "\n/", "/\\", "\\/"];
  const hosts = ["evil.example", "evil.example/x?y#z", "evil.example:8080/"];
  const out: string[] = [];
  for (const p of prefixes) {
    for (const s of separators) {
      for (const h of hosts) out.push(p + s + h, p + "/" + s + h);
    }
  }
  return out;
}

Deno.test("safeNext: no dot-segment, encoded or whitespace spelling leaves the site", () => {
  const site = "http://127.0.0.1:8000";
  const spellings = offSiteSpellings();
  assert.ok(spellings.length > 300);
  for (const next of spellings) {
    const target = safeNext(next);
    // What a browser does with the Location header.
    const resolved = new URL(target, site);
    assert.equal(resolved.origin, site, `${JSON.stringify(next)} → ${target}`);
    assert.ok(!target.startsWith("//") && !target.startsWith("/\\"), target);
  }
  // Same-site targets are kept.
  for (const next of ["/", "/?edit", "/a/b?c=d#e", "/a/../b"]) {
    const target = safeNext(next);
    assert.equal(new URL(target, site).origin, site);
    assert.notEqual(target, "", next);
  }
  assert.equal(safeNext("/?edit"), "/?edit");
});

Deno.test("demo: login redirects of every off-site spelling stay on the site", async () => {
  await withDemo(async (url) => {
    for (const next of offSiteSpellings().slice(0, 40)) {
      const res = await loginPost(url, PASSWORD, next);
      await res.body?.cancel();
      assert.equal(res.status, 303);
      const location = res.headers.get("Location")!;
      assert.equal(new URL(location, url).origin, url, `${next} → ${location}`);
    }
  });
});

/** A raw HTTP/1.1 request, so the Host header is exactly ours. */
async function rawGet(url: string, host: string): Promise<string> {
  const { port } = new URL(url);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: +port });
  try {
    await conn.write(
      new TextEncoder().encode(
        `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
    );
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(16 * 1024);
    for (let i = 0; i < 1000; i++) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    return new TextDecoder().decode(
      new Uint8Array(chunks.flatMap((c) => [...c])),
    );
  } finally {
    conn.close();
  }
}

Deno.test("demo: a Host outside the allowlist (DNS rebinding) gets 421", async () => {
  await withDemo(async (url) => {
    const { port } = new URL(url);
    for (
      const host of [
        `evil.example:${port}`,
        "evil.example",
        `127.0.0.2:${port}`,
      ]
    ) {
      const answer = await rawGet(url, host);
      assert.match(answer, /^HTTP\/1\.1 421/, host);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      assert.match(await rawGet(url, host), /^HTTP\/1\.1 200/, host);
    }
  });
});

Deno.test("demo: session-dependent pages are private, and every page has a CSP without unsafe-inline script", async () => {
  await withDemo(async (url) => {
    const visitor = await fetch(`${url}/`);
    await visitor.body?.cancel();
    assert.doesNotMatch(visitor.headers.get("Cache-Control")!, /private/);
    const cookie = await login(url);
    for (
      const [path, expected] of [
        ["/", "private, no-cache"],
        ["/?edit", "private, no-store"],
      ]
    ) {
      const res = await fetch(url + path, { headers: { Cookie: cookie } });
      const body = await res.text();
      assert.equal(res.headers.get("Cache-Control"), expected, path);
      const csp = res.headers.get("Content-Security-Policy")!;
      const script = csp.split(";").find((d) =>
        d.trim().startsWith("script-src")
      )!;
      assert.doesNotMatch(script, /unsafe-inline|unsafe-eval/);
      const nonce = /'nonce-([^']+)'/.exec(script)?.[1];
      assert.ok(nonce, csp);
      // Every executable inline script carries the nonce.
      for (
        const tag
          of body.match(/<script(?![^>]*type="application\/json")[^>]*>/g) ?? []
      ) {
        if (/\ssrc=/.test(tag)) continue;
        assert.ok(tag.includes(`nonce="${nonce}"`), tag);
      }
    }
  });
});

Deno.test("contentSecurityPolicy: a fresh nonce each time, image origins added", () => {
  const csp = contentSecurityPolicy("abc", ["https://bucket.example"]);
  assert.match(csp, /script-src 'self' 'nonce-abc'/);
  assert.match(csp, /img-src 'self' blob: https:\/\/bucket\.example/);
  assert.match(csp, /object-src 'none'/);
  assert.match(csp, /frame-ancestors 'none'/);
});
