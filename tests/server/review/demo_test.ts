/**
 * The demo with review on (draft mode, `CMS_REQUIRE_APPROVAL`): a review
 * link renders the page's drafts with field markers and the reviewer's
 * page config; a bad link is a 403 page; publish waits for the approval.
 */
import assert from "node:assert/strict";
import { editorHeaders, startSignedIn } from "../../helpers/demo.ts";

Deno.test("demo: a review link shows the drafts to a reviewer, who approves; publish waits", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-review-demo-" });
  const { demo, site } = await startSignedIn({
    dataDir,
    publishMode: "draft",
    requireApproval: true,
  });
  try {
    const headers = editorHeaders(site.url, site.cookie);
    const post = (path: string, body: unknown, h: HeadersInit = headers) =>
      fetch(`${site.url}${path}`, {
        method: "POST",
        headers: h,
        body: JSON.stringify(body),
      });
    const edit = await fetch(`${site.url}/?edit`, {
      headers: { Cookie: site.cookie },
    });
    const html = await edit.text();
    assert.match(html, /"comments":"\/api\/cms\/comments"/);
    assert.match(html, /"review":"\/api\/cms\/review\/links"/);
    const saved = await fetch(`${site.url}/api/cms/save`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "title",
        value: "Draft for review",
      }),
    });
    assert.equal(saved.status, 204, await saved.text());
    const refused = await post("/api/cms/publish", {});
    assert.equal(refused.status, 409);
    assert.match(await refused.text(), /needs an approval/);
    const link = await post("/api/cms/review/links", { page: "/" });
    assert.equal(link.status, 200);
    const { url } = await link.json();
    // The reviewer: no session, the link only.
    const page = await fetch(url);
    const reviewHtml = await page.text();
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("Cache-Control"), "private, no-store");
    assert.match(reviewHtml, /Draft for review/);
    assert.match(reviewHtml, /data-review/);
    assert.match(reviewHtml, /data-cms-field="pages:home:title"/);
    assert.match(reviewHtml, /"reviewer":true/);
    assert.doesNotMatch(reviewHtml, /"save":"\/api\/cms\/save","media"/);
    const visitor = await (await fetch(site.url)).text();
    assert.doesNotMatch(visitor, /Draft for review/);
    const bad = await fetch(
      url.replace(/.$/, (c: string) => c === "A" ? "B" : "A"),
    );
    assert.equal(bad.status, 403);
    await bad.body?.cancel();
    const token = new URL(url).searchParams.get("review")!;
    const reviewer = {
      "X-CMS-Review": token,
      Origin: site.url,
      "Content-Type": "application/json",
    };
    const named = await post("/api/cms/review/name", {
      name: "Rita",
      page: "/",
    }, reviewer);
    assert.equal(named.status, 204);
    const cookie = named.headers.get("Set-Cookie")!.split(";")[0];
    const approved = await post("/api/cms/review/approve?page=%2F", {
      verdict: "approved",
    }, {
      ...reviewer,
      Cookie: cookie,
    });
    assert.equal(approved.status, 201, await approved.text());
    const published = await post("/api/cms/publish", {});
    assert.equal(published.status, 200, await published.text());
    assert.match(await (await fetch(site.url)).text(), /Draft for review/);
  } finally {
    await demo.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
