/**
 * Lists that grow (editors add, move and remove items), the client's model
 * part without a DOM: `listEdit` (moves, removes, adds within the limits)
 * and a list field in the session model (one whole-list write, its 409; a
 * locale's list, and one shown from its fallback translated in one write).
 */
import assert from "node:assert/strict";
import type { ListSaveBody, SaveBody } from "../../core/protocol/mod.ts";
import { listAddress, listEdit, wholeList } from "../../client/list.ts";
import { contentVersion } from "../../core/version.ts";
import { createModel, type SaveAnswer } from "../../client/model.ts";

Deno.test("listEdit: moves, removes and adds within min and max", () => {
  const items = ["a", "b", "c"];
  assert.deepEqual(listEdit(items, 1, "up", 0, 9), {
    items: ["b", "a", "c"],
    focus: 0,
  });
  assert.deepEqual(listEdit(items, 1, "down", 0, 9), {
    items: ["a", "c", "b"],
    focus: 2,
  });
  assert.equal(listEdit(items, 0, "up", 0, 9), undefined);
  assert.equal(listEdit(items, 2, "down", 0, 9), undefined);
  assert.deepEqual(listEdit(items, 0, "remove", 0, 9), {
    items: ["b", "c"],
    focus: 0,
  });
  assert.deepEqual(listEdit(items, 2, "remove", 0, 9), {
    items: ["a", "b"],
    focus: 1,
  });
  assert.equal(listEdit(items, 1, "remove", 3, 9), undefined, "at min");
  assert.deepEqual(listEdit(items, 0, "add", 0, 9), {
    items: ["a", "", "b", "c"],
    focus: 1,
  });
  assert.deepEqual(listEdit([], -1, "add", 0, 9), { items: [""], focus: 0 });
  assert.equal(listEdit(items, 2, "add", 0, 3), undefined, "at max");
  for (const i of [-1, 3]) {
    for (const action of ["up", "down", "remove"] as const) {
      assert.equal(listEdit(items, i, action, 0, 9), undefined);
    }
  }
  // The input is never changed.
  assert.deepEqual(items, ["a", "b", "c"]);
});

Deno.test("model: a list field saves the whole list as a string[]", async () => {
  const sent: (SaveBody | ListSaveBody)[] = [];
  const answers: SaveAnswer[] = [
    {
      status: 409,
      text: JSON.stringify({
        error: "conflict",
        value: ["x", "y"],
        version: "v2",
      }),
    },
    { status: 204, text: "", version: "v3" },
  ];
  const conflicts: string[] = [];
  const model = createModel([], [], {
    send: (body) => {
      sent.push(structuredClone(body));
      return Promise.resolve(answers.shift()!);
    },
    onConflict: (f) => conflicts.push(f.conflict!.stored),
  });
  const f = model.add({
    id: "pages:home:features",
    collection: "pages",
    key: "home",
    field: "features",
    rich: false,
    list: true,
    version: "v1",
  }, JSON.stringify(["a", "b"]));
  assert.equal(model.get(f.id), f);
  assert.equal(model.add({ ...f }, "[]"), f, "a known id is not added again");
  model.edit(f.id, JSON.stringify(["b", "a", "c"]));
  assert.equal(model.status().dirty, 1);
  await model.save();
  assert.deepEqual(sent[0], {
    collection: "pages",
    key: "home",
    field: "features",
    value: ["b", "a", "c"],
    version: "v1",
  });
  // The 409's stored list is the conflict's stored value (as JSON text).
  assert.deepEqual(conflicts, [JSON.stringify(["x", "y"])]);
  await model.resolve(f.id, "mine");
  assert.deepEqual(sent[1], { ...sent[0], version: "v2" });
  assert.equal(model.status().dirty, 0);
  assert.equal(f.version, "v3");
  assert.equal(f.base, JSON.stringify(["b", "a", "c"]));
});

Deno.test("model: rebase moves a clean field's stored value and version", () => {
  const changed: string[] = [];
  const model = createModel(
    [{
      id: "pages:home:features",
      collection: "pages",
      key: "home",
      field: "features",
      rich: false,
      list: true,
      version: "v1",
    }],
    ['["a"]'],
    {
      send: () => Promise.resolve({ status: 204, text: "" }),
      onChange: (f) => changed.push(f.value),
    },
  );
  const f = model.get("pages:home:features")!;
  model.rebase(f.id, '["b"]', "v2");
  assert.deepEqual([f.base, f.value, f.version], ['["b"]', '["b"]', "v2"]);
  assert.deepEqual(changed, ['["b"]']);
  // A dirty field keeps its base: its own save or conflict decides.
  model.edit(f.id, '["c"]');
  model.rebase(f.id, '["d"]', "v3");
  assert.deepEqual([f.base, f.value, f.version], ['["b"]', '["c"]', "v2"]);
});

Deno.test("listAddress: a locale's list is that locale's, never the default's", () => {
  const a = { collection: "pages", key: "home", field: "features" };
  assert.deepEqual(listAddress(a), {
    id: "pages:home:features",
    field: "features",
  });
  assert.deepEqual(listAddress({ ...a, locale: "de-AT" }), {
    id: "pages:home:features@de-AT",
    field: "features@de-AT",
  });
});

Deno.test("wholeList: a list translated from its fallback is one write", async () => {
  const sent: (SaveBody | ListSaveBody)[] = [];
  const fallback = ["Fast", "Small", "Safe"];
  const item = (i: number) => ({
    id: `pages:home:features@de.${i}`,
    collection: "pages",
    key: "home",
    field: `features@de.${i}`,
    rich: false,
    version: contentVersion(fallback[i]),
  });
  const model = createModel([0, 1, 2].map(item), fallback, {
    send: (body) => {
      sent.push(structuredClone(body));
      return Promise.resolve({ status: 204, text: "", version: "v2" });
    },
  });
  const { id, field } = listAddress({
    collection: "pages",
    key: "home",
    field: "features",
    locale: "de",
  });
  const f = model.add({
    id,
    collection: "pages",
    key: "home",
    field,
    rich: false,
    list: true,
    version: contentVersion(fallback),
  }, JSON.stringify(fallback));
  const items = [0, 1, 2].map((i) => model.get(item(i).id));
  // The first item is being typed in (its own field edited, as a restored
  // draft would be) when the list becomes one field.
  model.edit(item(0).id, "Schne");
  let released = 0;
  wholeList(model, {
    id,
    items,
    shown: ["Schnell", "Small", "Safe"],
    whole: false,
    release: () => released++,
  });
  assert.equal(released, 1);
  assert.equal(model.status().dirty, 1, "only the list");
  assert.equal(f.base, JSON.stringify(fallback));
  model.edit(id, JSON.stringify(["Schnell", "Klein", "Sicher"]));
  await model.save();
  assert.deepEqual(sent, [{
    collection: "pages",
    key: "home",
    field: "features@de",
    value: ["Schnell", "Klein", "Sicher"],
    version: contentVersion(fallback),
  }]);
  assert.equal(model.status().dirty, 0);
});
