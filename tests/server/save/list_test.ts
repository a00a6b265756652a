/**
 * Lists that grow, server side: whole-list writes through the
 * save endpoint (limits, item checks, conflicts on the whole list's
 * version, history and restore, drafts and publish) on the memory, KV and
 * PostgreSQL stores, beside per-item saves that keep working.
 */
import assert from "node:assert/strict";
import {
  defineContent,
  fieldSpec,
  list,
  listLengthError,
  plain,
} from "../../../core/content.ts";
import type {
  ListConflictBody,
  ListSaveBody,
} from "../../../core/protocol/mod.ts";
import { createHistoryHandler } from "../../../server/history/handler.ts";
import { createSaveHandler } from "../../../server/save/handler.ts";
import type { DraftStore, PublishMode } from "../../../server/store/types.ts";
import { contentVersion } from "../../../core/version.ts";
import { draftStoreSuite, type Open } from "../../helpers/draft_stores.ts";

const ORIGIN = "https://site.example";
const content = defineContent({
  pages: {
    title: "plain",
    features: list(plain({ maxLength: 10 }), { min: 1, max: 4 }),
    tags: list(),
  },
});

function handlers(store: DraftStore, publishMode: PublishMode = "direct") {
  const options = {
    authorize: () => ({ name: "Ada" }),
    allowlist: content,
    store,
    publishMode,
  };
  return {
    save: createSaveHandler(options),
    history: createHistoryHandler(options),
  };
}

const request = (path: string, body: unknown, method = "PATCH") =>
  new Request(ORIGIN + path, {
    method,
    headers: { "content-type": "application/json", origin: ORIGIN },
    body: JSON.stringify(body),
  });

const whole = (
  value: unknown,
  version?: string,
): Omit<ListSaveBody, "value"> & { value: unknown } => ({
  collection: "pages",
  key: "home",
  field: "features",
  value,
  ...version === undefined ? {} : { version },
});

const SEED = ["Fast", "Small", "Safe"];

const cases: Record<string, (open: Open) => Promise<void>> = {
  "add, remove and reorder in one write; 204 with the list's version": async (
    open,
  ) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ features: SEED }));
    const { save } = handlers(s.store);
    const next = ["Safe", "Fast", "New"];
    const res = await save(request("/save", whole(next, contentVersion(SEED))));
    assert.equal(res.status, 204, await res.text());
    assert.equal(res.headers.get("CMS-Version"), contentVersion(next));
    assert.deepEqual((await s.store.get("pages", "home"))?.features, next);
    // One revision of the whole list, after the value it had before.
    const revs = await s.store.revisions("pages", "home", "features");
    assert.deepEqual(revs.map((r) => r.value), [next, SEED]);
    assert.equal(revs[0].editor, "Ada");
    // A per-item save still works, on the new order.
    const item = await save(request("/save", {
      collection: "pages",
      key: "home",
      field: "features.2",
      value: "Newer",
      version: contentVersion("New"),
    }));
    assert.equal(item.status, 204, await item.text());
    assert.deepEqual(
      (await s.store.get("pages", "home"))?.features,
      ["Safe", "Fast", "Newer"],
    );
  },

  "limits and bad items: 400 with a short reason, nothing stored": async (
    open,
  ) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ features: SEED }));
    const { save } = handlers(s.store);
    const bad: [unknown, string][] = [
      [[], "List needs at least 1 item"],
      [["a", "b", "c", "d", "e"], "List allows at most 4 items"],
      [["a", "far too long!"], "List item 1 too long (limit 10 characters)"],
      [["a", 2], "Invalid list item 1"],
      [["a", "\ud800"], "Invalid list item 1"],
      ["a", "List value must be an array"],
      [{ 0: "a" }, "List value must be an array"],
    ];
    for (const [value, reason] of bad) {
      const res = await save(request("/save", whole(value)));
      assert.equal(res.status, 400, JSON.stringify(value));
      assert.equal(await res.text(), reason);
      assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    }
    // An item index on a plain field, or a list on a plain field: 400.
    const plainList = await save(request("/save", {
      collection: "pages",
      key: "home",
      field: "title",
      value: ["a"],
    }));
    assert.equal(plainList.status, 400);
    assert.deepEqual(await s.store.get("pages", "home"), { features: SEED });
    assert.deepEqual(
      (await s.store.revisions("pages", "home", "features")).length,
      0,
    );
    // Exactly at the limits is fine; no limits means any length.
    for (const value of [["one"], ["a", "b", "c", "d"]]) {
      const res = await save(request("/save", whole(value)));
      assert.equal(res.status, 204, await res.text());
    }
    const tags = await save(request("/save", {
      ...whole([]),
      field: "tags",
    }));
    assert.equal(tags.status, 204, await tags.text());
    assert.deepEqual((await s.store.get("pages", "home"))?.tags, []);
  },

  "a stale whole-list version is 409 with the stored list": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ features: SEED }));
    const { save } = handlers(s.store);
    // Someone else changes one item: the list's version changes too.
    const item = await save(request("/save", {
      collection: "pages",
      key: "home",
      field: "features.0",
      value: "Faster",
      version: contentVersion("Fast"),
    }));
    assert.equal(item.status, 204);
    const stored = ["Faster", "Small", "Safe"];
    const res = await save(
      request("/save", whole(["Safe", "Fast"], contentVersion(SEED))),
    );
    assert.equal(res.status, 409);
    const body = await res.json() as ListConflictBody;
    assert.deepEqual(body, {
      error: "conflict",
      value: stored,
      version: contentVersion(stored),
    });
    assert.deepEqual((await s.store.get("pages", "home"))?.features, stored);
    // With the version the 409 gave, the write goes through.
    const again = await save(
      request("/save", whole(["Safe", "Faster"], body.version)),
    );
    assert.equal(again.status, 204);
  },

  "history lists whole-list revisions and restores one": async (open) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ features: SEED }));
    const { save, history } = handlers(s.store);
    const next = ["Safe", "Small"];
    assert.equal((await save(request("/save", whole(next)))).status, 204);
    const listing = await history(
      new Request(`${ORIGIN}/history?field=pages:home:features`, {
        headers: { origin: ORIGIN },
      }),
    );
    assert.equal(listing.status, 200);
    const { revisions } = await listing.json() as {
      revisions: { id: string }[];
    };
    assert.equal(revisions.length, 2);
    const restored = await history(request("/history", {
      field: "pages:home:features",
      revision: revisions[1].id,
      version: contentVersion(next),
    }, "POST"));
    assert.equal(restored.status, 204, await restored.text());
    assert.deepEqual((await s.store.get("pages", "home"))?.features, SEED);
  },

  "draft mode: a whole-list draft, item drafts folded, then publish": async (
    open,
  ) => {
    await using s = await open();
    await s.store.update("pages", "home", () => ({ features: SEED }));
    const { save } = handlers(s.store, "draft");
    const item = (field: string, value: string, version: string) =>
      save(request("/save", {
        collection: "pages",
        key: "home",
        field,
        value,
        version,
      }));
    // An item draft, then a whole-list draft that reorders: the item
    // draft is part of the list the editor saw, and is replaced by it.
    assert.equal(
      (await item("features.1", "Tiny", contentVersion("Small"))).status,
      204,
    );
    const seen = ["Fast", "Tiny", "Safe"];
    const next = ["Tiny", "Safe", "Fast", "New"];
    const res = await save(request("/save", whole(next, contentVersion(seen))));
    assert.equal(res.status, 204, await res.text());
    assert.deepEqual((await s.store.get("pages", "home"))?.features, SEED);
    assert.deepEqual(
      (await s.store.getDrafted("pages", "home"))?.features,
      next,
    );
    assert.deepEqual(
      (await s.store.drafts()).map((d) => [d.field, d.value]),
      [["features", next]],
    );
    // An item save now edits the whole-list draft (its index is the
    // reordered list's): still one draft.
    assert.equal(
      (await item("features.3", "Newer", contentVersion("New"))).status,
      204,
    );
    const drafted = ["Tiny", "Safe", "Fast", "Newer"];
    assert.deepEqual(
      (await s.store.drafts()).map((d) => [d.field, d.value]),
      [["features", drafted]],
    );
    // A stale whole-list draft version is a 409 against the drafted list.
    const stale = await save(
      request("/save", whole(["x"], contentVersion(next))),
    );
    assert.equal(stale.status, 409);
    assert.deepEqual((await stale.json() as ListConflictBody).value, drafted);
    // Publishing makes the list public and records a published revision.
    const result = await s.store.publish([{
      collection: "pages",
      key: "home",
      field: "features",
      version: contentVersion(drafted),
    }], "Bo");
    assert.deepEqual(result.conflicts, []);
    assert.deepEqual((await s.store.get("pages", "home"))?.features, drafted);
    assert.deepEqual(await s.store.drafts(), []);
    const [newest] = await s.store.revisions("pages", "home", "features");
    assert.deepEqual(newest.value, drafted);
    assert.ok(newest.published);
  },
};

draftStoreSuite("whole-list writes", cases);

Deno.test("list(): options first or after the item; limits checked", () => {
  assert.deepEqual(fieldSpec(content, "pages", "features"), {
    kind: "list",
    item: { kind: "plain", maxLength: 10 },
    min: 1,
    max: 4,
  });
  assert.deepEqual(list({ max: 3, label: "Tags" }), {
    kind: "list",
    item: { kind: "plain" },
    max: 3,
    label: "Tags",
  });
  assert.deepEqual(list({ min: 0 }).min, 0);
  for (
    const bad of [{ min: -1 }, { min: 1.5 }, { max: 0 }, { min: 3, max: 2 }]
  ) {
    assert.throws(() => list(bad), TypeError, JSON.stringify(bad));
  }
  // A hand-made spec goes through the same checks.
  assert.throws(
    () =>
      defineContent({
        p: { f: { kind: "list", item: plain(), min: 5, max: 1 } },
      }),
    TypeError,
  );
  assert.throws(
    () => defineContent({ p: { f: { kind: "plain", max: 2 } } }),
    TypeError,
  );
  assert.equal(listLengthError(list({ min: 1, max: 2 }), 1), undefined);
  assert.equal(
    listLengthError(list({ min: 1 }), 0),
    "List needs at least 1 item",
  );
  assert.equal(
    listLengthError(list({ min: 2 }), 0),
    "List needs at least 2 items",
  );
  assert.equal(
    listLengthError(list({ max: 1 }), 2),
    "List allows at most 1 item",
  );
});
