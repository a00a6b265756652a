/**
 * Review in place, the state part: threads found in the fields' text, in
 * page order; detached ones kept with their quote; none dropped; the latest
 * verdict voided by a later draft edit.
 */
import assert from "node:assert/strict";
import type { Approval, Comment } from "../../core/protocol/review.ts";
import { anchorAt } from "../../core/review/anchor.ts";
import { threads, verdict } from "../../client/review_model.ts";

const TITLE = "pages:home:title", BODY = "pages:home:body";
const texts = () =>
  new Map([[TITLE, "Hello brave new world"], [BODY, "The quick fox jumps"]]);

let n = 0;
/** A comment on `quote` of `field` (a reply when `thread` is given). */
function comment(
  field: string,
  quote: string,
  more: Partial<Comment> = {},
): Comment {
  const text = texts().get(field) ?? quote;
  const at = text.indexOf(quote);
  const id = more.id ?? `c${++n}`;
  return {
    id,
    page: "/",
    anchor: at < 0
      ? { field, quote, prefix: "", suffix: "" }
      : anchorAt(text, at, at + quote.length, field),
    thread: more.thread ?? id,
    text: `on ${quote}`,
    author: { name: "Ada", kind: "editor" },
    created: new Date(2026, 0, 1, 9, n).toISOString(),
    ...more,
  };
}

Deno.test("threads: page order (field, then offset), replies under their thread", () => {
  const fox = comment(BODY, "fox");
  const world = comment(TITLE, "world");
  const brave = comment(TITLE, "brave");
  const reply = comment(BODY, "fox", { thread: fox.id });
  const list = threads([fox, world, reply, brave], texts());
  assert.deepEqual(list.map((t) => t.head.anchor.quote), [
    "brave",
    "world",
    "fox",
  ]);
  assert.deepEqual(list[2].replies.map((c) => c.id), [reply.id]);
  assert.deepEqual(list[0].at, { start: 6, end: 11 });
});

Deno.test("threads: an edited field keeps its comments on their quote; a gone quote is detached, listed after", () => {
  const quick = comment(BODY, "quick");
  const fox = comment(BODY, "fox");
  const edited = new Map([[TITLE, "Hello"], [BODY, "A very quick brown fox"]]);
  const [first, second] = threads([fox, quick], edited);
  assert.deepEqual([first.head.id, first.at], [quick.id, {
    start: 7,
    end: 12,
  }]);
  assert.deepEqual(second.at, { start: 19, end: 22 });
  const gone = threads([fox, quick], new Map([[BODY, "The slow cat"]]));
  assert.equal(gone.length, 2, "none dropped");
  assert.ok(gone.every((t) => t.at === null));
  assert.deepEqual(
    gone.map((t) => t.head.id),
    [fox.id, quick.id],
    "oldest first",
  );
});

Deno.test("threads: a field not on the page is detached; resolved threads come last", () => {
  const elsewhere = comment("pages:about:title", "About");
  const done = comment(TITLE, "Hello", {
    resolved: { by: "Ada", at: "2026-01-02T00:00:00Z" },
  });
  const open = comment(BODY, "jumps");
  const list = threads([done, elsewhere, open], texts());
  assert.deepEqual(list.map((t) => t.head.id), [
    open.id,
    elsewhere.id,
    done.id,
  ]);
  assert.equal(list[1].at, null);
});

Deno.test("threads: a reply whose first comment is missing makes its own thread; a late head takes its place", () => {
  const orphan = comment(TITLE, "world", { thread: "gone" });
  assert.deepEqual(threads([orphan], texts()).map((t) => t.head.id), [
    orphan.id,
  ]);
  const head = comment(TITLE, "world", { id: "h" });
  const reply = comment(TITLE, "world", { thread: "h" });
  const [t] = threads([reply, head], texts());
  assert.equal(t.head.id, "h");
  assert.deepEqual(t.replies.map((c) => c.id), [reply.id]);
});

Deno.test("verdict: the latest one; void once a field it covered has another version", () => {
  const approval = (
    verdict: Approval["verdict"],
    version: string,
  ): Approval => ({
    id: verdict + version,
    page: "/",
    verdict,
    by: { name: "Bo", kind: "reviewer" },
    at: "2026-01-01T10:00:00Z",
    fields: [{ field: TITLE, version }],
  });
  assert.equal(verdict([], new Map()), undefined);
  const list = [approval("changes", "v1"), approval("approved", "v2")];
  assert.deepEqual(verdict(list, new Map([[TITLE, "v2"]])), {
    approval: list[1],
    void: false,
  });
  assert.equal(verdict(list, new Map([[TITLE, "v3"]]))?.void, true);
  assert.equal(
    verdict(list, new Map())?.void,
    false,
    "a field not on the page",
  );
});

Deno.test("review labels: one German text per English key, at its key's place, with the same placeholders", async () => {
  const { en } = await import("../../client/review_labels.ts");
  const { de } = await import("../../client/review_de.ts");
  const source = await Deno.readTextFile(
    new URL("../../client/review_de.ts", import.meta.url),
  );
  const named = [...source.matchAll(/^\s+".*", \/\/ (\w+)$/gm)].map((m) =>
    m[1]
  );
  const keys = Object.keys(en) as (keyof typeof en)[];
  assert.deepEqual(named, keys);
  assert.equal(de.length, keys.length);
  keys.forEach((key, i) => {
    const holes = (s: string) =>
      [...s.matchAll(/\{\w+\}/g)].map((m) => m[0]).sort();
    assert.deepEqual(holes(de[i]), holes(en[key]), key);
    assert.equal(de[i].split("|").length, en[key].split("|").length, key);
  });
});
