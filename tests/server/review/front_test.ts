/**
 * The review endpoints' front: the per-token rate limit, the origin check
 * for editors and reviewers, the set-up errors, and comments reaching the
 * page's editors and reviewers live on the event stream.
 */
import assert from "node:assert/strict";
import type { Comment } from "../../../core/protocol/review.ts";
import { createCms } from "../../../server/app/mod.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { MemoryEventBus } from "../../../server/events/mod.ts";
import { createPublishHandler } from "../../../server/drafts/mod.ts";
import { openEvents } from "../../helpers/sse.ts";
import { anchor, CONTENT, reviewSite, SECRET, signer } from "./_site.ts";

const SAY = {
  page: "/home",
  anchor: anchor("pages:home:title", "Home"),
  text: "Hello",
};

Deno.test("review: a review link is rate-limited per token (429, Retry-After)", async () => {
  const site = reviewSite(new MemoryContentStore(), {
    review: { secret: SECRET, reviewerRequestsPerMinute: 3 },
  });
  const { token } = await signer.sign("/home", 600);
  for (let i = 0; i < 3; i++) {
    await site.expect(200, "GET", "/api/cms/comments?page=/home", { token });
  }
  const res = await site.send("GET", "/api/cms/comments?page=/home", { token });
  assert.equal(res.status, 429);
  assert.ok(Number(res.headers.get("Retry-After")) >= 1);
  assert.match(await res.text(), /Too many requests from this review link/);
  // Another link and the editors are not held back.
  const other = (await signer.sign("/home", 601)).token;
  await site.expect(200, "GET", "/api/cms/comments?page=/home", {
    token: other,
  });
  for (let i = 0; i < 5; i++) {
    await site.expect(200, "GET", "/api/cms/comments?page=/home", {
      editor: "Ada",
    });
  }
});

Deno.test("review: requests from another site are refused, editor or reviewer", async () => {
  const site = reviewSite(new MemoryContentStore());
  const { token } = await signer.sign("/home", 600);
  const origin = "https://evil.example";
  for (const who of [{ editor: "Ada" }, { token }]) {
    const res = await site.send("POST", "/api/cms/comments", {
      ...who,
      origin,
      body: SAY,
    });
    assert.equal(res.status, 403);
    assert.equal(await res.text(), "Cross-site request");
  }
  await site.expect(403, "POST", "/api/cms/review/name", {
    token,
    origin,
    body: { name: "Rita", page: "/home" },
  });
  // Same origin passes.
  await site.expect(403, "POST", "/api/cms/comments", {
    token,
    origin: "http://localhost",
    body: SAY,
  });
  await site.expect(201, "POST", "/api/cms/comments", {
    editor: "Ada",
    origin: "http://localhost",
    body: SAY,
  });
});

Deno.test("review: set-up mistakes throw at createCms", () => {
  const base = {
    authorize: () => null,
    allowlist: CONTENT,
    store: new MemoryContentStore(),
  };
  assert.throws(
    () => createCms({ ...base, review: { secret: "short" } }),
    RangeError,
  );
  assert.throws(
    () =>
      createCms({
        ...base,
        publishMode: "draft",
        review: { secret: SECRET },
        requireApproval: true,
      }),
    /requireApproval needs/,
  );
  assert.throws(
    () => createCms({ ...base, requireApproval: true, pageUrl: () => "/" }),
    /requireApproval needs/,
  );
  assert.throws(
    () => createPublishHandler({ ...base, requireApproval: true }),
    /requireApproval needs pageUrl/,
  );
  const routes = createCms({ ...base, review: { secret: SECRET } }).routes
    .map((r) => `${r.method} ${r.path}`);
  for (
    const route of [
      "GET /api/cms/comments",
      "POST /api/cms/comments",
      "PATCH /api/cms/comments/*",
      "DELETE /api/cms/comments/*",
      "POST /api/cms/review/links",
      "POST /api/cms/review/approve",
      "POST /api/cms/review/name",
    ]
  ) assert.ok(routes.includes(route), route);
  const config = createCms({ ...base, review: { secret: SECRET } })
    .pageConfig();
  assert.equal(config.comments, "/api/cms/comments");
  assert.equal(config.review, "/api/cms/review/links");
  const off = createCms(base);
  assert.equal(off.pageConfig().comments, undefined);
  assert.equal(off.reviewScripts({ page: "/" }), "");
});

Deno.test("review: comments reach the page's editors and reviewers live, no values to reviewers", async () => {
  const store = new MemoryContentStore();
  const site = reviewSite(store, { events: { heartbeatMs: 60_000 } });
  await using server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    (req) => site.cms.fetch(req),
  );
  const base = `http://127.0.0.1:${server.addr.port}/api/cms`;
  const { token } = await signer.sign("/home", 600);
  const editor = await openEvents(`${base}/events?page=/home`, {
    "X-Editor": "Ada",
  });
  const reviewer = await openEvents(`${base}/events?page=/home`, {
    "X-CMS-Review": token,
  });
  const elsewhere = await openEvents(`${base}/events?page=/about`, {
    "X-CMS-Review": token,
  });
  try {
    assert.equal(editor.res.status, 200);
    assert.equal(reviewer.res.status, 200);
    assert.equal(
      elsewhere.res.status,
      403,
      "a token opens its own page's stream only",
    );
    await reviewer.next((e) => e.event === "hello");
    const created = await site.expect<Comment>(
      201,
      "POST",
      "/api/cms/comments",
      { editor: "Ada", body: SAY },
    );
    for (const stream of [editor, reviewer]) {
      const e = await stream.next((e) => e.event === "comments");
      assert.deepEqual(JSON.parse(e.data), { type: "comments", page: "/home" });
    }
    // A save reaches the editor, never the reviewer.
    const from = reviewer.events.length;
    await site.expect(204, "PATCH", "/api/cms/save", {
      editor: "Bo",
      body: {
        collection: "pages",
        key: "home",
        field: "title",
        value: "Secret draft",
      },
    });
    await editor.next((e) => e.event === "saved");
    await site.expect(204, "DELETE", `/api/cms/comments/${created.id}`, {
      editor: "Ada",
    });
    await reviewer.next((e) => e.event === "comments", 5000, from);
    assert.ok(
      !reviewer.events.some((e) => e.data.includes("Secret draft")),
      "no value reaches a reviewer",
    );
  } finally {
    editor.close();
    reviewer.close();
    elsewhere.close();
    await site.cms.close();
  }
});

Deno.test("review: a comment on one instance reaches the page's listeners on another (shared bus)", async () => {
  const store = new MemoryContentStore();
  const bus = new MemoryEventBus();
  const a = reviewSite(store, { bus });
  const b = reviewSite(store, { bus });
  await using server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    (req) => b.cms.fetch(req),
  );
  const stream = await openEvents(
    `http://127.0.0.1:${server.addr.port}/api/cms/events?page=/home`,
    { "X-Editor": "Bo" },
  );
  try {
    await stream.next((e) => e.event === "hello");
    await a.expect(201, "POST", "/api/cms/comments", {
      editor: "Ada",
      body: SAY,
    });
    const e = await stream.next((e) => e.event === "comments");
    assert.equal(JSON.parse(e.data).page, "/home");
    // A verdict too.
    const from = stream.events.length;
    await a.expect(201, "POST", "/api/cms/review/approve?page=/home", {
      editor: "Ada",
      body: { verdict: "changes", note: "Shorter, please" },
    });
    await stream.next((e) => e.event === "comments", 5000, from);
  } finally {
    stream.close();
    await a.cms.close();
    await b.cms.close();
  }
});

Deno.test("review: verdicts given within one millisecond still come in order (the latest decides)", async () => {
  const site = reviewSite(new MemoryContentStore());
  const verdicts = [];
  for (let i = 0; i < 40; i++) {
    const verdict = i % 2 ? "changes" : "approved";
    verdicts.push(
      await site.expect<{ at: string }>(
        201,
        "POST",
        "/api/cms/review/approve?page=/home",
        {
          editor: "Ada",
          body: { verdict },
        },
      ),
    );
  }
  const ats = verdicts.map((v) => Date.parse(v.at));
  for (let i = 1; i < ats.length; i++) {
    assert.ok(ats[i] > ats[i - 1], `verdict ${i}`);
  }
});

Deno.test("review: a page keeps at most 1000 comments (409, plain text)", async () => {
  const store = new MemoryContentStore();
  const site = reviewSite(store);
  for (let i = 0; i < 1000; i++) {
    const id = `c${i}`;
    await store.addComment({
      id,
      page: "/home",
      thread: id,
      anchor: SAY.anchor,
      text: "x",
      author: { name: "Ada", kind: "editor" },
      created: new Date(Date.UTC(2030, 0, 1, 0, 0, 0, i)).toISOString(),
    });
  }
  const res = await site.send("POST", "/api/cms/comments", {
    editor: "Ada",
    body: SAY,
  });
  assert.equal(res.status, 409);
  assert.match(res.headers.get("Content-Type")!, /text\/plain/);
  assert.match(await res.text(), /1000 comments/);
  // Another page still takes comments.
  await site.expect(201, "POST", "/api/cms/comments", {
    editor: "Ada",
    body: { ...SAY, page: "/about" },
  });
});
