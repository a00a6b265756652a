/**
 * Presence and live changes without a browser: the presence state
 * (`client/presence.ts`) and what a live `saved` event does to a field
 * (`Model.stored`).
 */
import assert from "node:assert/strict";
import type { PresenceBody } from "../../core/protocol/mod.ts";
import { createPresence, initials } from "../../client/presence.ts";
import { createModel, type FieldInit } from "../../client/model.ts";

Deno.test("initials: up to two letters, upper case", () => {
  assert.equal(initials("Ada Lovelace"), "AL");
  assert.equal(initials("grace"), "G");
  assert.equal(initials("  Jean  Paul  Sartre "), "JS");
  assert.equal(initials(""), "?");
  assert.equal(initials("Émile Zola"), "ÉZ");
});

Deno.test("presence: others exclude this stream; editing names who focused or changed a field", () => {
  let changed = 0;
  const p = createPresence({
    report: () => Promise.resolve(),
    changed: () => changed++,
  });
  p.receive("hello", { stream: "me" });
  p.receive("presence", {
    editors: [
      { stream: "me", editor: "e1", name: "Me", focus: null, dirty: [] },
      {
        stream: "s2",
        editor: "ada",
        name: "Ada",
        focus: "pages:home:title",
        dirty: [],
      },
      {
        stream: "s3",
        editor: "bob",
        name: "Bob",
        focus: null,
        dirty: ["pages:home:title", "pages:home:body"],
      },
    ],
  });
  assert.equal(changed, 1);
  assert.deepEqual(p.others.map((e) => e.name), ["Ada", "Bob"]);
  assert.deepEqual(p.editing("pages:home:title"), ["Ada", "Bob"]);
  assert.deepEqual(p.editing("pages:home:body"), ["Bob"]);
  assert.deepEqual(p.editing("pages:home:other"), []);
});

Deno.test("presence: changes in one task go as one report; while one is in flight the rest wait for its answer", async () => {
  const sent: PresenceBody[] = [];
  const answers: (() => void)[] = [];
  const p = createPresence({
    report: (b) => {
      sent.push(b);
      return new Promise<void>((r) => answers.push(r));
    },
    changed() {},
  });
  const tick = () => new Promise((r) => setTimeout(r, 0));
  // Before hello there is no stream to report for.
  p.focus("pages:home:title");
  await tick();
  assert.equal(sent.length, 0);
  // Hello: the state so far goes out.
  p.receive("hello", { stream: "s1" });
  await tick();
  assert.deepEqual(sent, [{
    stream: "s1",
    focus: "pages:home:title",
    dirty: [],
  }]);
  // Three changes while that report is in flight: one more report, later.
  p.dirty("pages:home:title", true);
  p.focus(null);
  p.focus("pages:home:body");
  await tick();
  assert.equal(sent.length, 1);
  answers.shift()!();
  await tick();
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[1], {
    stream: "s1",
    focus: "pages:home:body",
    dirty: ["pages:home:title"],
  });
  answers.shift()!();
  // Nothing new: nothing sent.
  p.dirty("pages:home:title", true);
  p.focus("pages:home:body");
  await tick();
  assert.equal(sent.length, 2);
  // A reconnect gets a new stream id and hears the state.
  p.receive("hello", { stream: "s2" });
  await tick();
  assert.equal(sent.length, 3);
  assert.equal(sent[2].stream, "s2");
  answers.shift()!();
  p.destroy();
});

const FIELD: FieldInit = {
  id: "pages:home:title",
  collection: "pages",
  key: "home",
  field: "title",
  rich: false,
  version: "v1",
};

function model() {
  const conflicts: string[] = [];
  const changes: string[] = [];
  const m = createModel([{ ...FIELD }], ["Hello"], {
    send: () => new Promise(() => {}),
    onConflict: (f) => conflicts.push(f.id),
    onChange: (f) => changes.push(f.value),
  });
  return { m, conflicts, changes };
}

Deno.test("stored: a clean field takes the saved value and version, and stays clean", () => {
  const { m, conflicts, changes } = model();
  m.stored(FIELD.id, "Hello from Ada", "v2");
  const f = m.get(FIELD.id)!;
  assert.equal(f.value, "Hello from Ada");
  assert.equal(f.base, "Hello from Ada");
  assert.equal(f.version, "v2");
  assert.equal(m.status().dirty, 0);
  assert.deepEqual(changes, ["Hello from Ada"]);
  assert.deepEqual(conflicts, []);
  // The same version again changes nothing.
  m.stored(FIELD.id, "Hello from Ada", "v2");
  assert.equal(changes.length, 1);
  // Editing afterwards starts from the new value (Esc goes back to it).
  m.edit(FIELD.id, "Mine");
  m.revert(FIELD.id);
  assert.equal(f.value, "Hello from Ada");
});

Deno.test("stored: a dirty field keeps the edit and gets the conflict choice at once", async () => {
  const { m, conflicts } = model();
  m.edit(FIELD.id, "My edit");
  m.stored(FIELD.id, "Ada's value", "v2");
  const f = m.get(FIELD.id)!;
  assert.equal(f.value, "My edit");
  assert.deepEqual(f.conflict, { stored: "Ada's value", version: "v2" });
  assert.deepEqual(conflicts, [FIELD.id]);
  // Save skips it until the editor chooses; "stored" takes Ada's value.
  await m.resolve(FIELD.id, "stored");
  assert.equal(f.value, "Ada's value");
  assert.equal(f.version, "v2");
  assert.equal(m.status().dirty, 0);
});

Deno.test("stored: a dirty field that equals the saved value just becomes clean", () => {
  const { m, conflicts } = model();
  m.edit(FIELD.id, "Same");
  m.stored(FIELD.id, "Same", "v2");
  const f = m.get(FIELD.id)!;
  assert.equal(f.base, "Same");
  assert.equal(m.status().dirty, 0);
  assert.deepEqual(conflicts, []);
});

Deno.test("stored: ignored while the field's own save is in flight", () => {
  const { m, conflicts } = model();
  m.edit(FIELD.id, "Mine");
  void m.save();
  const f = m.get(FIELD.id)!;
  assert.equal(f.saving, true);
  m.stored(FIELD.id, "Theirs", "v2");
  assert.equal(f.value, "Mine");
  assert.equal(f.conflict, undefined);
  assert.deepEqual(conflicts, []);
  m.destroy();
});

Deno.test("presence: changes (set, gone) apply over the whole board; a new board replaces it", () => {
  let changed = 0;
  const p = createPresence({
    report: () => Promise.resolve(),
    changed: () => changed++,
  });
  const entry = (
    stream: string,
    name: string,
    focus: string | null = null,
  ) => ({
    stream,
    editor: name.toLowerCase(),
    name,
    focus,
    dirty: [],
  });
  p.receive("hello", { stream: "me" });
  p.receive("presence", { editors: [entry("me", "Me"), entry("s2", "Ada")] });
  // Bob comes, Ada focuses the title; this stream's own entry is skipped.
  p.receive("presence", {
    set: [
      entry("s3", "Bob"),
      entry("s2", "Ada", "pages:home:title"),
      entry("me", "Me"),
    ],
    gone: [],
  });
  assert.deepEqual(p.others.map((e) => e.name).sort(), ["Ada", "Bob"]);
  assert.deepEqual(p.editing("pages:home:title"), ["Ada"]);
  // Ada leaves; an unknown stream leaving changes nothing.
  p.receive("presence", { set: [], gone: ["s2", "nobody"] });
  assert.deepEqual(p.others.map((e) => e.name), ["Bob"]);
  assert.deepEqual(p.editing("pages:home:title"), []);
  // A whole board (after a reconnect) replaces what was known.
  p.receive("presence", { editors: [entry("s4", "Cy")] });
  assert.deepEqual(p.others.map((e) => e.name), ["Cy"]);
  assert.equal(changed, 4);
});
