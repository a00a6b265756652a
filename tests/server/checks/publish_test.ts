/**
 * Publish can wait for clean content (`checkOnPublish`): off by default;
 * on, a publish (or a schedule) whose rich drafts have error-level
 * findings is refused with 400 and the list, and nothing is published;
 * warnings, plain fields and unnamed fields never hold it up; a function
 * gives per-field options or skips a field; the reason follows the
 * request's language.
 */
import assert from "node:assert/strict";
import {
  createPublishHandler,
  type PublishHandlerOptions,
} from "../../../server/drafts/mod.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";

const ALLOWLIST = {
  pages: { title: "plain", body: "rich", aside: "rich" },
} as const;

async function site(
  drafts: Record<string, Record<string, string>>,
  options: Partial<PublishHandlerOptions> = {},
) {
  const store = new MemoryContentStore();
  for (const [key, fields] of Object.entries(drafts)) {
    for (const [field, value] of Object.entries(fields)) {
      await store.updateDraft(
        "pages",
        key,
        (r) => ({ ...r, [field]: value }),
        { field, editor: "Ada" },
      );
    }
  }
  const publish = createPublishHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: ALLOWLIST,
    store,
    ...options,
  });
  const post = (body: unknown = {}, headers: HeadersInit = {}) =>
    publish(
      new Request("http://localhost/api/cms/publish", {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body: JSON.stringify(body),
      }),
    );
  return { store, post };
}

const BAD = '<h2>Menu</h2><p><img src="/a.png" width="4" height="4"></p>';
const SKIP = "<h4>Deep</h4><p>Text</p>";
const WARNINGS = '<p><a href="/x">click here</a></p><p></p><p></p>';

Deno.test("publish checks: off by default, bad content publishes", async () => {
  const { store, post } = await site({ home: { body: BAD } });
  const res = await post();
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal((await store.get("pages", "home"))?.body, BAD);
});

Deno.test("publish checks: errors refuse the publish with the list; nothing is published", async () => {
  const { store, post } = await site({
    home: { body: BAD, title: "<h4>plain text is not checked</h4>" },
    about: { body: SKIP, aside: "<p>Fine</p>" },
  }, { checkOnPublish: true });
  const res = await post();
  assert.equal(res.status, 400);
  const reason = await res.text();
  assert.match(reason, /^Publish waits for clean content/);
  assert.match(reason, /pages:home:body: Image without alt text/);
  assert.match(reason, /pages:about:body: Heading skips a level: use h2/);
  assert.doesNotMatch(reason, /title|aside/);
  assert.equal(await store.get("pages", "home"), null);
  assert.equal(await store.get("pages", "about"), null);
  assert.equal((await store.drafts()).length, 4);
});

Deno.test("publish checks: warnings and clean content publish", async () => {
  const { store, post } = await site({
    home: { body: WARNINGS, aside: "<h2>Fine</h2><p>Text</p>" },
  }, { checkOnPublish: true });
  const res = await post();
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal((await store.get("pages", "home"))?.body, WARNINGS);
});

Deno.test("publish checks: only the named fields are checked", async () => {
  const { store, post } = await site({
    home: { body: BAD, aside: "<p>Fine</p>" },
  }, { checkOnPublish: true });
  let res = await post({ fields: ["pages:home:aside"] });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal((await store.get("pages", "home"))?.aside, "<p>Fine</p>");
  res = await post({ fields: ["pages:home:body"] });
  assert.equal(res.status, 400);
  await res.body?.cancel();
});

Deno.test("publish checks: a function gives options per field or skips it", async () => {
  const seen: string[] = [];
  const { post } = await site({
    home: { body: "<h3>Under the page's h2</h3>", aside: BAD },
  }, {
    checkOnPublish: (field) => {
      seen.push(field.field);
      return field.field === "aside" ? false : { headingBase: 2 };
    },
  });
  const res = await post();
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
  assert.deepEqual(seen.sort(), ["aside", "body"]);
});

Deno.test("publish checks: the reason follows Accept-Language; long lists are cut", async () => {
  const drafts: Record<string, Record<string, string>> = {};
  for (let i = 0; i < 12; i++) drafts[`p${i}`] = { body: "<h2></h2>" };
  const { post } = await site(drafts, { checkOnPublish: true });
  const res = await post({}, { "Accept-Language": "de-DE,de;q=0.9" });
  assert.equal(res.status, 400);
  const lines = (await res.text()).split("\n");
  assert.match(lines[0], /^Veröffentlichen wartet auf fehlerfreie Inhalte/);
  assert.match(lines[1], /: Leere Überschrift$/);
  assert.equal(lines.length, 12);
  assert.equal(lines[11], "und 2 weitere");
});

Deno.test("publish checks: a scheduled publish is checked when it is made", async () => {
  const { post } = await site({ home: { body: BAD } }, {
    checkOnPublish: true,
    schedulerElsewhere: true,
  });
  const at = new Date(Date.now() + 3600_000).toISOString();
  const res = await post({ at });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /Image without alt text/);
});
