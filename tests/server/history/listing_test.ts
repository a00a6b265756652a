/**
 * The history listing in publish mode `draft`: drafts and published
 * revisions are told apart, and a publish, which writes the draft's value
 * again, does not list the same change twice.
 */
import assert from "node:assert/strict";
import { createHistoryHandler } from "../../../server/history/mod.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import type { HistoryListing } from "../../../core/protocol/mod.ts";

Deno.test("a published draft is listed once, as published; drafts stay drafts", async () => {
  const store = new MemoryContentStore();
  await store.update("pages", "home", () => ({ title: "One" }));
  const draft = (value: string) =>
    store.updateDraft("pages", "home", (r) => ({ ...r, title: value }), {
      field: "title",
      editor: "Ada",
    });
  await draft("Two");
  await store.publish(
    [{ collection: "pages", key: "home", field: "title" }],
    "Bo",
  );
  await draft("Three");
  const history = createHistoryHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { title: "plain" } },
    store,
    publishMode: "draft",
  });
  const res = await history(
    new Request("http://localhost/api/cms/history?field=pages:home:title", {
      headers: { "Sec-Fetch-Site": "same-origin" },
    }),
  );
  assert.equal(res.status, 200);
  const { revisions } = await res.json() as HistoryListing;
  const values = await Promise.all(
    revisions.map(async (r) => (await store.revision(r.id))!.value),
  );
  assert.deepEqual(
    revisions.map((r, i) => [values[i], r.published ? "published" : "draft"]),
    [["Three", "draft"], ["Two", "published"], ["One", "published"]],
  );
  // The store keeps both revisions of "Two"; only the listing merges them.
  const all = await store.revisions("pages", "home", "title");
  assert.equal(all.filter((r) => r.value === "Two").length, 2);
});
