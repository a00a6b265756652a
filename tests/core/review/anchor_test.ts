import assert from "node:assert/strict";
import {
  anchorAt,
  resolveAnchor,
  textOf,
} from "../../../core/review/anchor.ts";
import { ANCHOR_CONTEXT_CHARS } from "../../../core/protocol/review.ts";

Deno.test("anchorAt: quote and context from the field's text", () => {
  assert.deepEqual(anchorAt("Hello wide world", 6, 10, "pages:home:title"), {
    field: "pages:home:title",
    quote: "wide",
    prefix: "Hello ",
    suffix: " world",
  });
  const long = "a".repeat(100) + "X" + "b".repeat(100);
  const anchor = anchorAt(long, 100, 101, "f");
  assert.equal(anchor.quote, "X");
  assert.equal(anchor.prefix, "a".repeat(ANCHOR_CONTEXT_CHARS));
  assert.equal(anchor.suffix, "b".repeat(ANCHOR_CONTEXT_CHARS));
});

Deno.test("anchorAt: offsets clamp, swap and never split a surrogate pair", () => {
  assert.equal(anchorAt("abc", 5, -2, "f").quote, "abc");
  assert.equal(anchorAt("abc", 2, 1, "f").quote, "b");
  const emoji = "x😀y";
  assert.equal(anchorAt(emoji, 2, 3, "f").quote, "😀");
  assert.equal(anchorAt(emoji, 1, 2, "f").quote, "😀");
  const padded = "😀" + "a".repeat(31) + "Q" + "a".repeat(31) + "😀";
  const around = anchorAt(padded, 33, 34, "f");
  assert.equal(around.prefix, "a".repeat(31));
  assert.equal(around.suffix, "a".repeat(31));
});

Deno.test("resolveAnchor: finds the quote after edits elsewhere", () => {
  const anchor = anchorAt("The quick fox", 4, 9, "f");
  assert.deepEqual(resolveAnchor("Oh. The quick fox!", anchor), {
    start: 8,
    end: 13,
  });
});

Deno.test("resolveAnchor: context picks among repeated quotes", () => {
  const text = "one cat, two cat, red cat";
  const anchor = anchorAt(text, 13, 16, "f"); // the second "cat"
  assert.deepEqual(resolveAnchor(text, anchor), { start: 13, end: 16 });
  assert.deepEqual(resolveAnchor("red cat, two cat, one cat", anchor), {
    start: 13,
    end: 16,
  });
  // Context gone: the first occurrence, deterministically.
  assert.deepEqual(
    resolveAnchor("cat cat", {
      field: "f",
      quote: "cat",
      prefix: "zz",
      suffix: "zz",
    }),
    { start: 0, end: 3 },
  );
});

Deno.test("resolveAnchor: detached when the quote is gone or empty", () => {
  const anchor = anchorAt("The quick fox", 4, 9, "f");
  assert.equal(resolveAnchor("The slow fox", anchor), null);
  assert.equal(resolveAnchor("", anchor), null);
  assert.equal(resolveAnchor("abc", { ...anchor, quote: "" }), null);
});

Deno.test("textOf: the text content of sanitized HTML", () => {
  assert.equal(
    textOf("<p>Fish &amp; chips</p>\n<p>A<br>B</p>"),
    "Fish & chips\nAB",
  );
  assert.equal(textOf('<a href="/x?a=1&amp;b=2" title="a>b">link</a>'), "link");
  assert.equal(
    textOf("a&lt;b&gt;c&nbsp;d&#39;e&#x41;&quot;"),
    "a<b>c\u00a0d'eA\"",
  );
  assert.equal(textOf("<!-- note -->x<!---->y"), "xy");
  assert.equal(textOf("<pre>\ncode\n</pre>"), "code\n");
  assert.equal(textOf("&unknown; &#0; &#xD800;"), "&unknown; \ufffd \ufffd");
  assert.equal(textOf("plain text"), "plain text");
  assert.equal(textOf("<ul><li>one</li><li><em>two</em></li></ul>"), "onetwo");
});
