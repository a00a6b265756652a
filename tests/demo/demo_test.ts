import assert from "node:assert/strict";
import { startDemo } from "../../demo/main.ts";
import { samplePng } from "../../demo/sample_image.ts";

const PASSWORD = "correct horse battery staple";

/** Starts the demo in-process on a free port with a temp data folder. */
async function withDemo(
  fn: (url: string, dataDir: string) => Promise<void>,
  dataDir?: string,
) {
  const dir = dataDir ?? await Deno.makeTempDir({ prefix: "cms-demo-test-" });
  // HTTP-level tests never load the client bundle; the e2e test does.
  const clientDir = await Deno.makeTempDir({ prefix: "cms-demo-client-" });
  const demo = await startDemo({
    port: 0,
    dataDir: dir,
    password: PASSWORD,
    clientDir,
  });
  try {
    await fn(demo.url, dir);
  } finally {
    await demo.close();
    await Deno.remove(clientDir, { recursive: true });
    if (!dataDir) await Deno.remove(dir, { recursive: true });
  }
}

function post(url: string, body: string, headers: HeadersInit = {}) {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "Sec-Fetch-Site": "same-origin",
      Origin: new URL(url).origin,
      ...headers,
    },
    body,
  });
}

/** Logs in and returns the `Cookie` header value. */
async function login(url: string): Promise<string> {
  const res = await post(
    `${url}/login`,
    new URLSearchParams({ password: PASSWORD }).toString(),
  );
  await res.body?.cancel();
  assert.equal(res.status, 303);
  const cookie = res.headers.get("Set-Cookie");
  assert.ok(cookie);
  return cookie.split(";")[0];
}

async function html(url: string, cookie?: string) {
  const res = await fetch(url, { headers: cookie ? { Cookie: cookie } : {} });
  return { res, body: await res.text() };
}

function save(url: string, body: unknown, cookie?: string) {
  return fetch(`${url}/api/cms/save`, {
    method: "PATCH",
    headers: {
      "Content-Type": "application/json",
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: JSON.stringify(body),
  });
}

Deno.test("demo: login answers 303 with a HttpOnly, SameSite=Lax session cookie", async () => {
  await withDemo(async (url) => {
    const form = await html(`${url}/login`);
    assert.equal(form.res.status, 200);
    assert.match(form.body, /<form method="post" action="\/login"/);
    assert.match(form.body, /name="password"/);

    const res = await post(
      `${url}/login`,
      new URLSearchParams({ password: PASSWORD, next: "/?edit" }).toString(),
    );
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("Location"), "/?edit");
    const cookie = res.headers.get("Set-Cookie") ?? "";
    assert.match(cookie, /^cms_demo_session=[A-Za-z0-9_-]{43};/);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.match(cookie, /; Path=\//);
    assert.doesNotMatch(cookie, /Secure/, "plain http on 127.0.0.1");

    // An open redirect via `next` is refused.
    const evil = await post(
      `${url}/login`,
      new URLSearchParams({ password: PASSWORD, next: "//evil.test/" })
        .toString(),
    );
    await evil.body?.cancel();
    assert.equal(evil.headers.get("Location"), "/");
  });
});

Deno.test("demo: a wrong password or a cross-site post gives no session", async () => {
  await withDemo(async (url) => {
    const wrong = await post(`${url}/login`, "password=nope");
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("Set-Cookie"), null);
    assert.match(await wrong.text(), /Wrong password/);

    const empty = await post(`${url}/login`, "");
    await empty.body?.cancel();
    assert.equal(empty.status, 401);
    assert.equal(empty.headers.get("Set-Cookie"), null);

    const cross = await post(
      `${url}/login`,
      new URLSearchParams({ password: PASSWORD }).toString(),
      { "Sec-Fetch-Site": "cross-site", Origin: "http://evil.test" },
    );
    await cross.body?.cancel();
    assert.equal(cross.status, 403);
    assert.equal(cross.headers.get("Set-Cookie"), null);
  });
});

Deno.test("demo: visitors get the page without markers or client", async () => {
  await withDemo(async (url) => {
    for (const path of ["/", "/?edit"]) {
      const { res, body } = await html(url + path);
      assert.equal(res.status, 200);
      assert.match(body, /<h1 class="title">Edit this page in place<\/h1>/);
      assert.ok(!body.includes("data-cms"), path);
      assert.ok(!body.includes("cms-config"), path);
      assert.ok(!body.includes("/cms/mod.js"), path);
      assert.ok(!body.includes("/demo/drawer.js"), path);
      assert.match(body, /href="\/login"/);
      assert.equal(
        (body.match(/<li>/g) ?? []).length,
        3,
        "three seeded features",
      );
    }
  });
});

Deno.test("demo: an editor gets markers and the client only with ?edit", async () => {
  await withDemo(async (url) => {
    const cookie = await login(url);
    const plain = await html(`${url}/`, cookie);
    assert.ok(!plain.body.includes("data-cms-field"));
    assert.ok(!plain.body.includes("/cms/mod.js"));
    assert.match(plain.body, /href="\/\?edit"[^>]*>Edit this page/);

    const { res, body } = await html(`${url}/?edit`, cookie);
    assert.equal(res.headers.get("Cache-Control"), "private, no-store");
    assert.match(body, /<h1 class="title" data-cms-field="pages:home:title"/);
    assert.match(
      body,
      /data-cms-field="pages:home:body" data-cms-type="richtext" data-cms-version="\w+"/,
    );
    for (const i of [0, 1, 2]) {
      assert.ok(body.includes(`data-cms-field="pages:home:features.${i}"`));
    }
    assert.ok(!body.includes("features.3"));
    const config = body.match(
      /<script type="application\/json" id="cms-config">(.*?)<\/script>/,
    );
    assert.ok(config);
    assert.deepEqual(JSON.parse(config[1]), {
      editor: "Editor",
      events: "/api/cms/events",
      save: "/api/cms/save",
      media: "/api/cms/media",
      history: "/api/cms/history",
      library: "/api/cms/media/library",
      settings: true,
      mediaBase: "/media/",
      exit: "/",
    });
    assert.ok(body.includes('import("/cms/mod.js")'));
    assert.ok(body.includes('src="/demo/drawer.js"'));
  });
});

Deno.test("demo: plain values are escaped everywhere", async () => {
  await withDemo(async (url) => {
    const cookie = await login(url);
    const evil = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    for (const field of ["title", "features.1"]) {
      const res = await save(url, {
        collection: "pages",
        key: "home",
        field,
        value: evil,
      }, cookie);
      assert.equal(res.status, 204);
    }
    for (const path of ["/", "/?edit"]) {
      const { body } = await html(url + path, cookie);
      assert.ok(!body.includes("<script>alert"), path);
      assert.ok(!body.includes("<img src=x"), path);
      assert.ok(body.includes("&lt;script>alert(&quot;x&quot;)&lt;/script>"));
      assert.match(body, /<title>&lt;script>/);
    }
  });
});

Deno.test("demo: the endpoints need a session; bad fields are 400", async () => {
  await withDemo(async (url) => {
    const body = {
      collection: "pages",
      key: "home",
      field: "title",
      value: "x",
    };
    const anon = await save(url, body);
    assert.equal(anon.status, 403);
    await anon.body?.cancel();
    const forged = await save(url, body, "cms_demo_session=" + "a".repeat(43));
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    const media = await fetch(`${url}/api/cms/media`, {
      method: "POST",
      body: await samplePng(8, 8),
    });
    assert.equal(media.status, 403);
    await media.body?.cancel();

    const cookie = await login(url);
    const unknown = await save(url, { ...body, field: "author" }, cookie);
    assert.equal(unknown.status, 400);
    await unknown.body?.cancel();
    const { body: page } = await html(`${url}/`);
    assert.match(page, /Edit this page in place/, "nothing was written");
  });
});

Deno.test("demo: uploads are served with the sniffed type and nosniff", async () => {
  await withDemo(async (url) => {
    const cookie = await login(url);
    const res = await fetch(`${url}/api/cms/media`, {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "text/html" },
      body: await samplePng(20, 10),
    });
    assert.equal(res.status, 200);
    const media = await res.json();
    assert.equal(media.type, "image/png");
    assert.equal(media.width, 20);
    assert.equal(media.height, 10);
    assert.match(media.url, /^\/media\//);
    const file = await fetch(url + media.url);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("Content-Type"), "image/png");
    assert.equal(file.headers.get("X-Content-Type-Options"), "nosniff");
    const bytes = new Uint8Array(await file.arrayBuffer());
    assert.deepEqual([...bytes.subarray(1, 4)], [80, 78, 71]); // "PNG"
  });
});

Deno.test("demo: logout ends the session; content and sessions survive a restart", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-demo-test-" });
  try {
    let cookie = "";
    await withDemo(async (url) => {
      cookie = await login(url);
      const res = await save(url, {
        collection: "pages",
        key: "home",
        field: "title",
        value: "Kept across restarts",
      }, cookie);
      assert.equal(res.status, 204);
    }, dataDir);

    await withDemo(async (url) => {
      const { body } = await html(`${url}/?edit`, cookie);
      assert.match(body, /data-cms-field="pages:home:title"[^>]*>Kept across/);

      const cross = await post(`${url}/logout`, "", {
        Cookie: cookie,
        "Sec-Fetch-Site": "cross-site",
        Origin: "http://evil.test",
      });
      await cross.body?.cancel();
      assert.equal(cross.status, 403);

      const out = await post(`${url}/logout`, "", { Cookie: cookie });
      await out.body?.cancel();
      assert.equal(out.status, 303);
      assert.match(out.headers.get("Set-Cookie") ?? "", /Max-Age=0/);
      const after = await save(url, {
        collection: "pages",
        key: "home",
        field: "title",
        value: "after logout",
      }, cookie);
      assert.equal(after.status, 403);
      await after.body?.cancel();
      const page = await html(`${url}/?edit`, cookie);
      assert.ok(!page.body.includes("data-cms-field"));
    }, dataDir);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("demo: login's next stays on this site and is always a valid Location", async () => {
  await withDemo(async (url) => {
    const cases: [string, string][] = [
      ["/\t/evil.test/", "/"], // browsers drop the tab: //evil.test/
      ["/\n/evil.test/", "/"],
      ["/\\\t\\evil.test/", "/"],
      ["/\\[", "/"], // unparsable host
      ["https:evil.test", "/"],
      ["%2F%2Fevil.test", "/"],
      ["/\r\nSet-Cookie: x=1", "/Set-Cookie:%20x=1"], // CR/LF dropped too
      ["/caf\u00e9?edit#top", "/caf%C3%A9?edit#top"],
      ["/caf\ufffd", "/caf%EF%BF%BD"],
      ["/a/../?edit", "/?edit"],
    ];
    for (const [next, location] of cases) {
      const res = await post(
        `${url}/login`,
        new URLSearchParams({ password: PASSWORD, next }).toString(),
      );
      await res.body?.cancel();
      assert.equal(res.status, 303, JSON.stringify(next));
      assert.equal(res.headers.get("Location"), location, JSON.stringify(next));
    }
    // A broken percent-escape decodes to U+FFFD: still a valid redirect.
    const broken = await post(`${url}/login`, `password=${PASSWORD}&next=/%E9`);
    await broken.body?.cancel();
    assert.equal(broken.status, 303);
    assert.equal(broken.headers.get("Location"), "/%EF%BF%BD");
  });
});

Deno.test("demo: odd methods, cookies and login bodies get 4xx, never 5xx", async () => {
  await withDemo(async (url) => {
    const paths = ["/", "/demo/drawer.js", "/cms/mod.js", "/nope"];
    for (const path of paths) {
      for (const method of ["PUT", "DELETE", "OPTIONS", "POST", "PATCH"]) {
        const res = await fetch(url + path, { method });
        await res.body?.cancel();
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.equal(res.headers.get("Allow"), "GET, HEAD");
      }
    }
    const head = await fetch(`${url}/demo/drawer.js`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.match(head.headers.get("Content-Type") ?? "", /javascript/);

    for (
      const cookie of [
        "cms_demo_session=" + "x".repeat(6000),
        "cms_demo_session=%%%; cms_demo_session=",
        "=;;=;cms_demo_session",
        `cms_demo_session="${"A".repeat(43)}"`,
      ]
    ) {
      const { res, body } = await html(`${url}/?edit`, cookie);
      assert.equal(res.status, 200);
      assert.ok(!body.includes("data-cms-field"));
    }

    const huge = await post(
      `${url}/login`,
      "password=" + "a".repeat(20_000),
    );
    await huge.body?.cancel();
    assert.equal(huge.status, 413);
    assert.equal(huge.headers.get("Set-Cookie"), null);
    const json = await post(`${url}/login`, JSON.stringify({ password: "x" }), {
      "Content-Type": "application/json",
    });
    await json.body?.cancel();
    assert.equal(json.status, 415);
    const upper = await post(`${url}/login`, `password=${PASSWORD}`, {
      "Content-Type": "Application/X-WWW-Form-URLEncoded; charset=UTF-8",
    });
    await upper.body?.cancel();
    assert.equal(upper.status, 303);
  });
});
