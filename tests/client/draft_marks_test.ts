/**
 * The draft marks of a page without a DOM (`DraftMarks`, client/publish.ts):
 * this editor's saves and publishes, and the event stream's `published`
 * and `drafts` from other editors and schedules.
 */
import assert from "node:assert/strict";
import { DraftMarks } from "../../client/publish.ts";

const TITLE = "pages:home:title";
const INTRO = "pages:home:intro";
const OTHER = "pages:about:title";

Deno.test("draft marks: a save marks, a publish elsewhere clears, only this page's fields", () => {
  const marks = new DraftMarks([TITLE, INTRO]);
  assert.deepEqual(marks.saved(TITLE), [TITLE]);
  assert.deepEqual(marks.saved(TITLE), [], "a second save changes nothing");
  assert.deepEqual(marks.saved(OTHER), [], "another page's field is no mark");
  assert.deepEqual(marks.saved(INTRO), [INTRO]);
  assert.equal(marks.size, 2);
  // Another editor (or a schedule) published the title only.
  assert.deepEqual(marks.published([TITLE, OTHER]), [TITLE]);
  assert.equal(marks.has(TITLE), false);
  assert.equal(marks.has(INTRO), true);
  assert.equal(marks.size, 1);
});

Deno.test("draft marks: a drafts event sets exactly what is drafted", () => {
  const marks = new DraftMarks([TITLE, INTRO]);
  marks.saved(TITLE);
  // Another editor drafted the intro; the title went live meanwhile.
  assert.deepEqual(marks.set([INTRO, OTHER]).toSorted(), [INTRO, TITLE]);
  assert.deepEqual(marks.fields, [INTRO]);
  // Nothing drafted any more (a publish of everything): all marks go.
  assert.deepEqual(marks.set([]), [INTRO]);
  assert.equal(marks.size, 0);
  assert.deepEqual(marks.set([]), []);
});
