/**
 * The client's DOM-free parts: the word diff the history panel shows, the
 * edit bar's status text (draft mode included) and the field labels.
 */
import assert from "node:assert/strict";
import { diffWords } from "../../client/diff.ts";
import { barStatus } from "../../client/status.ts";
import { fieldLabel } from "../../client/markers.ts";

Deno.test("diffWords: marks removed and inserted words, keeps the rest", () => {
  assert.deepEqual(diffWords("the old title", "the new title"), [
    [0, "the "],
    [-1, "old"],
    [1, "new"],
    [0, " title"],
  ]);
  assert.deepEqual(diffWords("a b c d", "a c d e"), [
    [0, "a "],
    [-1, "b "],
    [0, "c d"],
    [1, " e"],
  ]);
  assert.deepEqual(diffWords("same", "same"), [[0, "same"]]);
  assert.deepEqual(diffWords("", "x y"), [[1, "x y"]]);
  assert.deepEqual(diffWords("x y", ""), [[-1, "x y"]]);
});

Deno.test("diffWords: joining kept and inserted runs gives the new text", () => {
  const words = ["alpha", "beta", "gamma", "delta", "eps", " ", "  "];
  let seed = 7;
  const pick = () => words[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % 7];
  for (let round = 0; round < 200; round++) {
    const a = Array.from({ length: round % 13 }, pick).join(" ");
    const b = Array.from({ length: (round * 7) % 11 }, pick).join(" ");
    const parts = diffWords(a, b);
    assert.equal(parts.filter(([op]) => op >= 0).map(([, t]) => t).join(""), b);
    assert.equal(parts.filter(([op]) => op <= 0).map(([, t]) => t).join(""), a);
  }
});

Deno.test("diffWords: past the budget, the middle is replaced whole", () => {
  assert.deepEqual(diffWords("a x y b", "a z w b", 4), [
    [0, "a "],
    [-1, "x y"],
    [1, "z w"],
    [0, " b"],
  ]);
});

Deno.test("barStatus: unpublished drafts when nothing is unsaved", () => {
  const base = { dirty: 0, saving: false, removed: 0 };
  assert.deepEqual(barStatus(base, true, 2), [
    "drafts",
    "2 unpublished changes",
  ]);
  assert.deepEqual(barStatus(base, true, 1), [
    "drafts",
    "1 unpublished change",
  ]);
  assert.deepEqual(barStatus(base, true), ["clean", "All changes saved"]);
  // Unsaved edits come first: they are not drafts yet.
  assert.deepEqual(barStatus({ ...base, dirty: 1 }, true, 2), [
    "unsaved",
    "1 unsaved change",
  ]);
  assert.equal(barStatus(base, false, 2)[0], "offline");
});

Deno.test("fieldLabel: the declared label, else the name in words", () => {
  assert.equal(fieldLabel("title"), "Title");
  assert.equal(fieldLabel("heroTitle"), "Hero title");
  assert.equal(fieldLabel("call_to_action"), "Call to action");
  assert.equal(fieldLabel("features.2"), "Features 3");
  // The locale is the page's: not in the name.
  assert.equal(fieldLabel("features@de.0"), "Features 1");
  assert.equal(fieldLabel("heroTitle@de-AT"), "Hero title");
  const el = { getAttribute: () => "Key points" } as unknown as HTMLElement;
  assert.equal(fieldLabel("features.0", el), "Key points 1");
  assert.equal(fieldLabel("title", el), "Key points");
});
