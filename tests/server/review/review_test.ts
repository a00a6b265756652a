/**
 * Review in place over HTTP, one contract on the memory, KV and PostgreSQL
 * stores: comments (create, reply, resolve, reopen, edit, delete, list per
 * page), review links (scope, expiry, tampering), reviewer names,
 * approvals and the publish gate, `canEdit`, and the refusals.
 */
import assert from "node:assert/strict";
import type {
  Approval,
  Comment,
  CommentsAnswer,
  ReviewLinkAnswer,
} from "../../../core/protocol/review.ts";
import { PreviewSigner } from "../../../server/drafts/mod.ts";
import { draftStoreSuite, type Open } from "../../helpers/draft_stores.ts";
import {
  anchor,
  type ReviewSite,
  reviewSite,
  SECRET,
  signer,
} from "./_site.ts";

const TITLE = "pages:home:title";
const BODY = "pages:home:body";

/** A review link for `page`: its token, and a reviewer's cookie once named. */
async function link(site: ReviewSite, page = "/home") {
  const answer = await site.expect<ReviewLinkAnswer>(
    200,
    "POST",
    "/api/cms/review/links",
    { editor: "Ada", body: { page } },
  );
  const url = new URL(answer.url);
  assert.equal(url.pathname, page);
  return url.searchParams.get("review")!;
}

/** Gives a name on a link; answers the cookie to send back. */
async function named(
  site: ReviewSite,
  token: string,
  name: string,
  page = "/home",
) {
  const res = await site.send("POST", "/api/cms/review/name", {
    token,
    body: { name, page },
  });
  assert.equal(res.status, 204, await res.text());
  const set = res.headers.get("Set-Cookie")!;
  assert.match(set, /HttpOnly/);
  assert.match(set, /SameSite=Lax/);
  return set.split(";")[0];
}

const cases: Record<string, (open: Open) => Promise<void>> = {
  "editors: create, reply, edit, resolve, reopen, delete, list per page":
    async (open) => {
      await using s = await open();
      const site = reviewSite(s.store);
      const first = await site.expect<Comment>(
        201,
        "POST",
        "/api/cms/comments",
        {
          editor: "Ada",
          body: {
            page: "/home",
            anchor: anchor(TITLE, "Home"),
            text: " Too short? ",
          },
        },
      );
      assert.equal(first.thread, first.id);
      assert.equal(first.text, "Too short?");
      assert.deepEqual(first.author, { name: "Ada", kind: "editor" });
      const reply = await site.expect<Comment>(
        201,
        "POST",
        "/api/cms/comments",
        {
          editor: "Bo",
          body: {
            page: "/home",
            anchor: anchor(BODY, "ignored"),
            text: "Fine",
            thread: first.id,
          },
        },
      );
      assert.equal(reply.thread, first.id);
      assert.equal(
        reply.anchor.field,
        TITLE,
        "a reply takes its thread's anchor",
      );
      // Another page's comments are its own.
      await site.expect(201, "POST", "/api/cms/comments", {
        editor: "Ada",
        body: {
          page: "/about",
          anchor: anchor("pages:about:title", "About"),
          text: "x",
        },
      });
      const list = await site.expect<CommentsAnswer>(
        200,
        "GET",
        "/api/cms/comments?page=/home",
        { editor: "Cy" },
      );
      assert.deepEqual(list.comments.map((c) => c.id), [first.id, reply.id]);
      assert.deepEqual(list.approvals, []);
      // Only its author edits a comment.
      await site.expect(403, "PATCH", `/api/cms/comments/${first.id}`, {
        editor: "Bo",
        body: { text: "Hijack" },
      });
      const edited = await site.expect<Comment>(
        200,
        "PATCH",
        `/api/cms/comments/${first.id}`,
        {
          editor: "Ada",
          body: { text: "Too short." },
        },
      );
      assert.equal(edited.text, "Too short.");
      assert.ok(edited.edited);
      // Anyone who sees the thread resolves and reopens it.
      const resolved = await site.expect<Comment>(
        200,
        "PATCH",
        `/api/cms/comments/${first.id}`,
        {
          editor: "Bo",
          body: { resolved: true },
        },
      );
      assert.equal(resolved.resolved?.by, "Bo");
      await site.expect(400, "PATCH", `/api/cms/comments/${reply.id}`, {
        editor: "Bo",
        body: { resolved: true },
      });
      const reopened = await site.expect<Comment>(
        200,
        "PATCH",
        `/api/cms/comments/${first.id}`,
        {
          editor: "Ada",
          body: { resolved: false },
        },
      );
      assert.equal(reopened.resolved, undefined);
      // Deleting a thread's first comment keeps the thread for its reply.
      await site.expect(204, "DELETE", `/api/cms/comments/${first.id}`, {
        editor: "Ada",
      });
      const after = await site.expect<CommentsAnswer>(
        200,
        "GET",
        "/api/cms/comments?page=/home",
        { editor: "Ada" },
      );
      assert.deepEqual(after.comments.map((c) => [c.id, c.text, c.deleted]), [
        [first.id, "", true],
        [reply.id, "Fine", undefined],
      ]);
      await site.expect(204, "DELETE", `/api/cms/comments/${reply.id}`, {
        editor: "Bo",
      });
      const empty = await site.expect<CommentsAnswer>(
        200,
        "GET",
        "/api/cms/comments?page=/home",
        { editor: "Ada" },
      );
      assert.deepEqual(empty.comments, []);
      await site.expect(404, "DELETE", `/api/cms/comments/${reply.id}`, {
        editor: "Bo",
      });
      await site.expect(404, "PATCH", "/api/cms/comments/no-such", {
        editor: "Bo",
        body: { text: "x" },
      });
    },

  "refusals: plain-text 4xx for bad input, nothing stored": async (open) => {
    await using s = await open();
    const site = reviewSite(s.store);
    const post = (body: unknown) =>
      site.send("POST", "/api/cms/comments", { editor: "Ada", body });
    const good = { page: "/home", anchor: anchor(TITLE, "Home"), text: "ok" };
    const refusals: [unknown, number, RegExp][] = [
      [{ ...good, text: "x".repeat(2001) }, 413, /at most 2000/],
      [{ ...good, text: "   " }, 400, /text is missing/],
      [{ ...good, text: "a\u0000b" }, 400, /control/],
      [{ ...good, page: "home" }, 400, /page/],
      [{ ...good, page: "/a?b" }, 400, /page/],
      [{ ...good, anchor: "x" }, 400, /anchor/],
      [{ ...good, anchor: anchor("pages:home:nope", "x") }, 400, /./],
      [{ ...good, anchor: anchor(TITLE, "") }, 400, /quote/],
      [
        { ...good, anchor: { ...anchor(TITLE, "x"), prefix: "p".repeat(33) } },
        400,
        /prefix/,
      ],
      [{ ...good, thread: "gone" }, 404, /thread/],
    ];
    for (const [body, status, reason] of refusals) {
      const res = await post(body);
      assert.equal(res.status, status, JSON.stringify(body).slice(0, 80));
      assert.match(res.headers.get("Content-Type")!, /text\/plain/);
      assert.match(await res.text(), reason);
    }
    const malformed = await site.send("POST", "/api/cms/comments", {
      editor: "Ada",
      raw: "{",
    });
    assert.equal(malformed.status, 400);
    assert.equal(
      (await site.send("PUT", "/api/cms/comments", { editor: "Ada" })).status,
      405,
    );
    assert.equal(
      (await site.send("GET", "/api/cms/comments?page=/home")).status,
      403,
    );
    await site.expect(400, "POST", "/api/cms/review/approve?page=/home", {
      editor: "Ada",
      body: { verdict: "yes" },
    });
    await site.expect(413, "POST", "/api/cms/review/approve?page=/home", {
      editor: "Ada",
      body: { verdict: "approved", note: "n".repeat(2001) },
    });
    await site.expect(400, "POST", "/api/cms/review/links", {
      editor: "Ada",
      body: { page: "/home", expiresIn: 31 * 86400 },
    });
    const list = await site.expect<CommentsAnswer>(
      200,
      "GET",
      "/api/cms/comments?page=/home",
      { editor: "Ada" },
    );
    assert.deepEqual(list, { comments: [], approvals: [] });
  },

  "reviewers: a name, then comments, replies and their own edits on the link's page":
    async (open) => {
      await using s = await open();
      const site = reviewSite(s.store);
      const token = await link(site);
      const thread = await site.expect<Comment>(
        201,
        "POST",
        "/api/cms/comments",
        {
          editor: "Ada",
          body: {
            page: "/home",
            anchor: anchor(TITLE, "Home"),
            text: "Check this",
          },
        },
      );
      // Reading needs no name; writing does.
      const seen = await site.expect<CommentsAnswer>(
        200,
        "GET",
        "/api/cms/comments?page=/home",
        { token },
      );
      assert.equal(seen.comments.length, 1);
      const say = {
        page: "/home",
        anchor: anchor(TITLE, "Home"),
        text: "Looks good",
      };
      assert.match(
        await site.expect(403, "POST", "/api/cms/comments", {
          token,
          body: say,
        }),
        /name/,
      );
      const cookie = await named(site, token, "  Rita  Reviewer ");
      const mine = await site.expect<Comment>(
        201,
        "POST",
        "/api/cms/comments",
        {
          token,
          cookie,
          body: { ...say, thread: thread.id },
        },
      );
      assert.deepEqual(mine.author, {
        name: "Rita Reviewer",
        kind: "reviewer",
      });
      // The cookie alone carries the token too.
      await site.expect(200, "PATCH", `/api/cms/comments/${mine.id}`, {
        cookie,
        body: { text: "Looks great" },
      });
      // Not an editor's text, and not under another name.
      await site.expect(403, "PATCH", `/api/cms/comments/${thread.id}`, {
        cookie,
        body: { text: "x" },
      });
      const other = await named(site, token, "Mallory");
      await site.expect(403, "DELETE", `/api/cms/comments/${mine.id}`, {
        cookie: other,
      });
      await site.expect(204, "DELETE", `/api/cms/comments/${mine.id}`, {
        cookie,
      });
      // A reviewer resolves a thread.
      const resolved = await site.expect<Comment>(
        200,
        "PATCH",
        `/api/cms/comments/${thread.id}`,
        {
          cookie,
          body: { resolved: true },
        },
      );
      assert.equal(resolved.resolved?.by, "Rita Reviewer");
      // The name must be a name.
      await site.expect(400, "POST", "/api/cms/review/name", {
        token,
        body: { name: "", page: "/home" },
      });
      await site.expect(400, "POST", "/api/cms/review/name", {
        token,
        body: { name: "x".repeat(81), page: "/home" },
      });
      // cms.review: the page request with the link, named or not.
      const visit = (path: string, c?: string) =>
        site.cms.review(
          new Request(`http://localhost${path}`, {
            headers: { Host: "localhost", ...(c ? { Cookie: c } : {}) },
          }),
        );
      assert.deepEqual(await visit(`/home?review=${token}`), { page: "/home" });
      assert.deepEqual(await visit(`/home?review=${token}`, cookie), {
        page: "/home",
        name: "Rita Reviewer",
      });
      assert.equal(
        await visit("/home", cookie),
        null,
        "only the link opens it",
      );
      assert.equal(await visit(`/about?review=${token}`), null);
      assert.equal(await visit("/home"), null);
      const scripts = site.cms.reviewScripts({ page: "/home", name: "Rita" });
      assert.match(scripts, /"reviewer":true/);
      assert.match(
        scripts,
        /"approve":"\/api\/cms\/review\/approve\?page=%2Fhome"/,
      );
    },

  "review tokens: one page, before expiry, untampered, nothing else": async (
    open,
  ) => {
    await using s = await open();
    const site = reviewSite(s.store);
    const token = await link(site);
    const cookie = await named(site, token, "Rita");
    const say = {
      page: "/about",
      anchor: anchor("pages:about:title", "A"),
      text: "x",
    };
    // Another page.
    await site.expect(403, "GET", "/api/cms/comments?page=/about", { token });
    await site.expect(403, "POST", "/api/cms/comments", { cookie, body: say });
    await site.expect(403, "POST", "/api/cms/review/approve?page=/about", {
      cookie,
      body: { verdict: "approved" },
    });
    const elsewhere = await site.expect<Comment>(
      201,
      "POST",
      "/api/cms/comments",
      { editor: "Ada", body: say },
    );
    await site.expect(403, "PATCH", `/api/cms/comments/${elsewhere.id}`, {
      cookie,
      body: { resolved: true },
    });
    await site.expect(403, "DELETE", `/api/cms/comments/${elsewhere.id}`, {
      cookie,
    });
    // Nothing an editor does.
    await site.expect(403, "POST", "/api/cms/review/links", {
      cookie,
      body: { page: "/home" },
    });
    await site.expect(403, "GET", "/api/cms/drafts", { cookie, token });
    await site.expect(403, "POST", "/api/cms/publish", {
      cookie,
      token,
      body: {},
    });
    await site.expect(403, "PATCH", "/api/cms/save", {
      cookie,
      token,
      body: { collection: "pages", key: "home", field: "title", value: "x" },
    });
    await site.expect(
      403,
      "GET",
      "/api/cms/history?collection=pages&key=home&field=title",
      { token },
    );
    // Tampered, expired, or a preview token.
    const [exp, sig] = token.split(".");
    const flipped = sig.slice(0, -2) + (sig.at(-2) === "A" ? "B" : "A") +
      sig.at(-1);
    for (
      const bad of [
        `${exp}.${flipped}`,
        `${Number(exp) + 1}.${sig}`,
        (await signer.sign("/home", 60, Date.now() - 120_000)).token,
        (await new PreviewSigner(SECRET).sign("/home", 600)).token,
        "garbage",
      ]
    ) {
      const res = await site.send("GET", "/api/cms/comments?page=/home", {
        token: bad,
      });
      assert.equal(res.status, 403, bad);
      assert.match(await res.text(), /invalid or has expired/);
    }
  },

  "canEdit: an editor sees and writes comments only on fields they may edit":
    async (open) => {
      await using s = await open();
      const site = reviewSite(s.store);
      const onBody = await site.expect<Comment>(
        201,
        "POST",
        "/api/cms/comments",
        {
          editor: "Ada",
          body: {
            page: "/home",
            anchor: anchor(BODY, "Body"),
            text: "On the body",
          },
        },
      );
      await site.expect(201, "POST", "/api/cms/comments", {
        editor: "Ada",
        body: {
          page: "/home",
          anchor: anchor(TITLE, "Home"),
          text: "On the title",
        },
      });
      const list = await site.expect<CommentsAnswer>(
        200,
        "GET",
        "/api/cms/comments?page=/home",
        { editor: "Restricted" },
      );
      assert.deepEqual(list.comments.map((c) => c.text), ["On the title"]);
      await site.expect(403, "POST", "/api/cms/comments", {
        editor: "Restricted",
        body: { page: "/home", anchor: anchor(BODY, "Body"), text: "x" },
      });
      await site.expect(403, "POST", "/api/cms/comments", {
        editor: "Restricted",
        body: {
          page: "/home",
          anchor: anchor(BODY, "x"),
          text: "x",
          thread: onBody.id,
        },
      });
      await site.expect(404, "PATCH", `/api/cms/comments/${onBody.id}`, {
        editor: "Restricted",
        body: { resolved: true },
      });
      await site.expect(404, "DELETE", `/api/cms/comments/${onBody.id}`, {
        editor: "Restricted",
      });
    },

  "approvals: recorded with the drafts' versions, voided by a later edit; publish waits":
    async (open) => {
      await using s = await open();
      const site = reviewSite(s.store);
      const draft = (field: "title" | "body", value: string) =>
        s.store.updateDraft(
          "pages",
          "home",
          (r) => ({ ...r, [field]: value }),
          {
            field,
            editor: "Ada",
          },
        );
      await draft("title", "New title");
      await s.store.updateDraft("pages", "about", () => ({ title: "About" }), {
        field: "title",
        editor: "Ada",
      });
      const publish = (fields?: string[]) =>
        site.send("POST", "/api/cms/publish", {
          editor: "Ada",
          body: fields ? { fields } : {},
        });
      const refused = await publish([TITLE]);
      assert.equal(refused.status, 409);
      assert.match(await refused.text(), /needs an approval.*pages:home:title/);
      const token = await link(site);
      const cookie = await named(site, token, "Rita");
      const approval = await site.expect<Approval>(
        201,
        "POST",
        "/api/cms/review/approve?page=/home",
        {
          cookie,
          body: { verdict: "approved", note: "Ship it" },
        },
      );
      assert.equal(approval.by.name, "Rita");
      assert.deepEqual(
        approval.fields.map((f) => f.field),
        [TITLE],
        "only this page's drafts",
      );
      const listed = await site.expect<CommentsAnswer>(
        200,
        "GET",
        "/api/cms/comments?page=/home",
        { editor: "Ada" },
      );
      assert.deepEqual(listed.approvals.map((a) => [a.verdict, a.note]), [[
        "approved",
        "Ship it",
      ]]);
      // The other page's draft is not covered: publish all is refused.
      assert.equal((await publish()).status, 409);
      // An edit after the approval voids it; a new one covers the new draft.
      await draft("title", "Newer title");
      assert.equal((await publish([TITLE])).status, 409);
      await site.expect(201, "POST", "/api/cms/review/approve?page=/home", {
        cookie,
        body: { verdict: "approved" },
      });
      // A later "changes" voids it too.
      await site.expect(201, "POST", "/api/cms/review/approve?page=/home", {
        cookie,
        body: { verdict: "changes" },
      });
      assert.equal((await publish([TITLE])).status, 409);
      await site.expect(201, "POST", "/api/cms/review/approve?page=/home", {
        editor: "Bo",
        body: { verdict: "approved" },
      });
      const ok = await site.expect<{ published: string[] }>(
        200,
        "POST",
        "/api/cms/publish",
        {
          editor: "Ada",
          body: { fields: [TITLE] },
        },
      );
      assert.deepEqual(ok.published, [TITLE]);
      assert.equal((await s.store.get("pages", "home"))?.title, "Newer title");
    },
};

draftStoreSuite("review over HTTP", cases);
