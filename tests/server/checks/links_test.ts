/**
 * The link check endpoint: which internal paths answer 404/410, asked of
 * the site itself only (never another host, whatever the path says),
 * capped per request, in time and in rate, answers cached briefly, behind
 * the same editor gate as every editor endpoint; and once against a real
 * server.
 */
import assert from "node:assert/strict";
import {
  createLinkCheckHandler,
  type LinkCheckHandlerOptions,
} from "../../../server/checks/mod.ts";
import type { LinkCheckAnswer } from "../../../core/protocol/mod.ts";
import { serve } from "../../helpers/serve.ts";

const SITE = "https://www.example.com";
const ADA = { name: "Ada", id: "ada" };

/** A fake site: status per path; records every request asked. */
function fakeSite(statuses: Record<string, number | string>, delayMs = 0) {
  const asked: { url: string; method: string; cookie: string | null }[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    asked.push({
      url: url.href,
      method: init?.method ?? "GET",
      cookie: headers.get("Cookie"),
    });
    if (delayMs) {
      await new Promise((resolve, reject) => {
        const id = setTimeout(resolve, delayMs);
        init?.signal?.addEventListener("abort", () => {
          clearTimeout(id);
          reject(init.signal!.reason);
        });
      });
    }
    const status = Number(statuses[url.pathname + url.search] ?? 200);
    const location = status >= 300 && status < 400
      ? statuses[`${url.pathname}->`]
      : undefined;
    return new Response(null, {
      status,
      headers: location ? { Location: String(location) } : {},
    });
  }) as typeof globalThis.fetch;
  return { asked, fetch };
}

function handler(
  fetch: typeof globalThis.fetch,
  options: Partial<LinkCheckHandlerOptions> = {},
) {
  return createLinkCheckHandler({
    authorize: () => ADA,
    publicOrigin: SITE,
    fetch,
    ...options,
  });
}

function post(body: unknown, headers: HeadersInit = {}) {
  return new Request(`${SITE}/api/cms/checks/links`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function answer(res: Response): Promise<LinkCheckAnswer> {
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

Deno.test("link check: 404 and 410 are broken; 200, 403 and redirects are fine; 5xx unknown", async () => {
  const site = fakeSite({
    "/missing": 404,
    "/gone": 410,
    "/private": 403,
    "/error": 503,
    "/moved": 301,
    "/moved->": "/about",
    "/away": 302,
    "/away->": "https://other.example/x",
  });
  const paths = [
    "/about",
    "/missing",
    "/gone#part",
    "/private",
    "/error",
    "/moved",
    "/away",
    `${SITE}/missing?x=1`,
  ];
  const res = await handler(site.fetch)(post({ paths }));
  assert.deepEqual(await answer(res), {
    broken: ["/missing", "/gone#part"],
    unknown: ["/error"],
  });
  // HEAD only, to the site only, never a cookie; the redirect followed
  // within the site, never to another host; the fragment dropped.
  assert.ok(site.asked.every((a) => a.url.startsWith(`${SITE}/`)));
  assert.ok(site.asked.every((a) => a.method === "HEAD" && a.cookie === null));
  assert.ok(site.asked.some((a) => a.url === `${SITE}/gone`));
  assert.ok(site.asked.filter((a) => a.url === `${SITE}/about`).length >= 1);
});

Deno.test("link check: a site that refuses HEAD is asked with GET", async () => {
  const asked: string[] = [];
  const fetch = ((_u: string, init?: RequestInit) => {
    asked.push(init?.method ?? "GET");
    return Promise.resolve(
      new Response(null, { status: init?.method === "HEAD" ? 405 : 404 }),
    );
  }) as unknown as typeof globalThis.fetch;
  const res = await handler(fetch)(post({ paths: ["/x"] }));
  assert.deepEqual(await answer(res), { broken: ["/x"], unknown: [] });
  assert.deepEqual(asked, ["HEAD", "GET"]);
});

Deno.test("link check: other hosts are refused, nothing is asked", async () => {
  for (
    const path of [
      "https://evil.example/x",
      "//evil.example/x",
      "/\\evil.example/x",
      "http://www.example.com/x", // another scheme is another origin
      "javascript:alert(1)",
      "mailto:a@example.com",
      "about",
    ]
  ) {
    const site = fakeSite({});
    const res = await handler(site.fetch)(post({ paths: ["/ok", path] }));
    assert.equal(res.status, 400, path);
    assert.match(await res.text(), /Not a path on this site/);
    assert.equal(site.asked.length, 0, path);
  }
  // A path that normalizes to `//host` stays a path on the site.
  const site = fakeSite({});
  const res = await handler(site.fetch)(post({ paths: ["/a/..//evil.com"] }));
  await answer(res);
  assert.deepEqual(site.asked.map((a) => a.url), [`${SITE}//evil.com`]);
});

Deno.test("link check: fetchOrigin is where HEADs go; paths are judged against the site", async () => {
  const site = fakeSite({ "/missing": 404 });
  const check = handler(site.fetch, { fetchOrigin: "http://127.0.0.1:8000" });
  const res = await check(post({ paths: [`${SITE}/missing`, "/ok"] }));
  assert.deepEqual(await answer(res), {
    broken: [`${SITE}/missing`],
    unknown: [],
  });
  assert.deepEqual(site.asked.map((a) => a.url).sort(), [
    "http://127.0.0.1:8000/missing",
    "http://127.0.0.1:8000/ok",
  ]);
});

Deno.test("link check: the body is checked (count cap, strings, JSON)", async () => {
  const site = fakeSite({});
  const check = handler(site.fetch, { maxPaths: 3 });
  for (
    const body of [
      { paths: ["/a", "/b", "/c", "/d"] },
      { paths: [] },
      { paths: "/a" },
      { paths: [1] },
      { paths: ["/" + "a".repeat(3000)] },
      {},
    ]
  ) {
    const res = await check(post(body));
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(await res.text(), /paths must be a list of 1 to 3/);
  }
  const res = await check(post("{nope"));
  assert.equal(res.status, 400);
  await res.body?.cancel();
  assert.equal(site.asked.length, 0);
});

Deno.test("link check: the editor gate (session, method, cross-site)", async () => {
  const site = fakeSite({});
  const anonymous = handler(site.fetch, { authorize: () => null });
  let res = await anonymous(post({ paths: ["/a"] }));
  assert.equal(res.status, 403);
  await res.body?.cancel();
  res = await handler(site.fetch)(
    new Request(`${SITE}/api/cms/checks/links`, { method: "GET" }),
  );
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("Allow"), "POST");
  await res.body?.cancel();
  res = await handler(site.fetch)(
    post({ paths: ["/a"] }, { Origin: "https://evil.example" }),
  );
  assert.equal(res.status, 403);
  await res.body?.cancel();
  assert.equal(site.asked.length, 0);
});

Deno.test("link check: answers are cached briefly; the same path is asked once", async () => {
  const site = fakeSite({ "/missing": 404 });
  const check = handler(site.fetch, { cacheMs: 150 });
  const paths = ["/missing", "/missing#a", "/ok"];
  assert.deepEqual(await answer(await check(post({ paths }))), {
    broken: ["/missing", "/missing#a"],
    unknown: [],
  });
  assert.equal(site.asked.length, 2);
  assert.deepEqual(await answer(await check(post({ paths }))), {
    broken: ["/missing", "/missing#a"],
    unknown: [],
  });
  assert.equal(site.asked.length, 2, "second answer from the cache");
  await new Promise((r) => setTimeout(r, 200));
  await answer(await check(post({ paths })));
  assert.equal(site.asked.length, 4, "asked again once the cache expired");
});

Deno.test("link check: the time is bounded; slow paths are unknown and not cached", async () => {
  const site = fakeSite({}, 2000);
  const check = handler(site.fetch, { timeoutMs: 100 });
  const t = performance.now();
  const res = await check(post({ paths: ["/slow", "/slower"] }));
  assert.deepEqual(await answer(res), {
    broken: [],
    unknown: ["/slow", "/slower"],
  });
  assert.ok(performance.now() - t < 1000);
  await answer(await check(post({ paths: ["/slow"] })));
  assert.equal(site.asked.length, 3, "an unknown answer is asked again");
});

Deno.test("link check: the rate per editor is bounded (429 with Retry-After); cached answers are free", async () => {
  const site = fakeSite({});
  const check = handler(site.fetch, { ratePerMinute: 5, maxPaths: 5 });
  await answer(await check(post({ paths: ["/1", "/2", "/3", "/4"] })));
  // Cached paths cost nothing.
  await answer(await check(post({ paths: ["/1", "/2", "/3", "/4"] })));
  const res = await check(post({ paths: ["/5", "/6"] }));
  assert.equal(res.status, 429);
  assert.ok(Number(res.headers.get("Retry-After")) >= 1);
  assert.match(await res.text(), /Too many link checks/);
  assert.equal(site.asked.length, 4);
  // Another editor has a bucket of their own.
  const other = handler(site.fetch, {
    ratePerMinute: 5,
    maxPaths: 5,
    authorize: () => ({ name: "Bo" }),
  });
  await answer(await other(post({ paths: ["/5"] })));
});

Deno.test("link check: against a real server", async () => {
  const site = serve((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/about") return new Response("About");
    if (path === "/old") return Response.redirect(new URL("/about", req.url));
    return new Response("Not found", { status: 404 });
  });
  try {
    const check = createLinkCheckHandler({
      authorize: () => ADA,
      publicOrigin: site.url,
    });
    const res = await check(
      new Request(`${site.url}/api/cms/checks/links`, {
        method: "POST",
        body: JSON.stringify({ paths: ["/about", "/old", "/nope"] }),
      }),
    );
    assert.deepEqual(await answer(res), { broken: ["/nope"], unknown: [] });
  } finally {
    await site.close();
  }
});
