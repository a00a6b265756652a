/**
 * Whole-list writes arriving live (a `saved` event whose value is a
 * `string[]`), the client's model part without a DOM (`listStored`): a clean
 * list takes the stored items; a list with unsaved item edits gets the
 * conflict choice at once, with its texts kept; the own write's echo is
 * ignored.
 */
import assert from "node:assert/strict";
import { listStored } from "../../client/list.ts";
import { createModel, type Model } from "../../client/model.ts";
import { contentVersion } from "../../core/version.ts";

const ID = "pages:home:features";

/** A page with a two-item list, its items still fields of their own. */
function page() {
  const conflicts: string[] = [];
  const item = (i: number) => ({
    id: `${ID}.${i}`,
    collection: "pages",
    key: "home",
    field: `features.${i}`,
    rich: false,
    version: `i${i}`,
  });
  const model: Model = createModel([item(0), item(1)], ["a", "b"], {
    send: () => Promise.resolve({ status: 204, text: "" }),
    onConflict: (f) => conflicts.push(f.conflict!.stored),
  });
  const list = model.add({
    id: ID,
    collection: "pages",
    key: "home",
    field: "features",
    rich: false,
    list: true,
    version: contentVersion(["a", "b"]),
  }, JSON.stringify(["a", "b"]));
  const items = [model.get(`${ID}.0`), model.get(`${ID}.1`)];
  let released = 0;
  const state = (shown: string[], whole = false) => ({
    id: ID,
    items,
    shown,
    whole,
    release: () => void released++,
  });
  return { model, list, items, conflicts, state, released: () => released };
}

Deno.test("listStored: a clean list takes another editor's whole-list write", () => {
  const p = page();
  const remote = ["a", "B", "c"];
  listStored(p.model, p.state(["a", "b"]), remote, contentVersion(remote));
  assert.equal(p.released(), 1, "the list became one field");
  assert.equal(p.list.value, JSON.stringify(remote));
  assert.equal(p.list.base, JSON.stringify(remote));
  assert.equal(p.list.version, contentVersion(remote));
  assert.equal(p.model.status().dirty, 0);
  assert.deepEqual(p.conflicts, []);
  // Once whole, a later write applies directly.
  const next = ["c"];
  listStored(p.model, p.state(remote, true), next, contentVersion(next));
  assert.equal(p.released(), 1);
  // The item's edit moved into the list: the item field is clean.
  assert.equal(p.items[1]!.value, "b");
  assert.equal(p.list.value, JSON.stringify(next));
});

Deno.test("listStored: unsaved item edits meet a whole-list write as a conflict choice", async () => {
  const p = page();
  // The editor typed in item 1 (a per-item edit, not saved).
  p.model.edit(`${ID}.1`, "b!");
  const remote = ["x"];
  listStored(p.model, p.state(["a", "b!"]), remote, contentVersion(remote));
  assert.deepEqual(p.conflicts, [JSON.stringify(remote)]);
  assert.equal(p.list.value, JSON.stringify(["a", "b!"]), "mine is kept");
  assert.equal(p.list.base, JSON.stringify(["a", "b"]));
  assert.deepEqual(p.list.conflict, {
    stored: JSON.stringify(remote),
    version: contentVersion(remote),
  });
  assert.equal(p.released(), 1);
  // Choosing theirs takes the stored list.
  await p.model.resolve(ID, "stored");
  assert.equal(p.list.value, JSON.stringify(remote));
  assert.equal(p.model.status().dirty, 0);
});

Deno.test("listStored: the echo of the list's own version changes nothing", () => {
  const p = page();
  listStored(p.model, p.state(["a", "b"]), ["a", "b"], p.list.version!);
  assert.equal(p.released(), 0);
  assert.equal(p.list.value, JSON.stringify(["a", "b"]));
});
