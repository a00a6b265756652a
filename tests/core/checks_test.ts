/**
 * The content checks (`core/checks.ts`): every rule found and not found,
 * the hard cases (decorative images, "hereford", headings in a blockquote,
 * one "1. Januar" paragraph, "NASA" in a sentence), how runs count, the
 * offsets, the languages, thirty clean documents with no finding (as
 * written and as the sanitizer stores them), and a property: on sanitized
 * random HTML the checker never throws and its offsets are in range.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  checkAlt,
  checkContent,
  checkMessage,
  type CheckOptions,
  type CheckRule,
  type Finding,
  siteLinks,
} from "../../core/mod.ts";
import { createDomSanitizer } from "../../server/sanitize/mod.ts";
import { CLEAN } from "../fixtures/checks/clean.ts";

/** The rules found in `html`, in order. */
function rules(html: string, options?: CheckOptions): CheckRule[] {
  return checkContent(html, options).map((f) => f.rule);
}

/** The one finding of `rule` in `html`, with the text it spans. */
function only(html: string, rule: CheckRule, options?: CheckOptions) {
  const found = checkContent(html, options).filter((f) => f.rule === rule);
  assert.equal(found.length, 1, `one ${rule} in ${html}: ${found.length}`);
  const f = found[0];
  return { ...f, text: html.slice(f.start, f.end) };
}

Deno.test('img-alt-missing: an image without alt is an error; alt="" is decorative', () => {
  const html = '<p>A <img src="/a.png" width="10" height="10"> b</p>';
  const f = only(html, "img-alt-missing");
  assert.equal(f.severity, "error");
  assert.equal(f.text, '<img src="/a.png" width="10" height="10">');
  assert.deepEqual(rules('<p><img src="/a.png" alt=""></p>'), []);
  assert.deepEqual(rules("<p><img src='/a.png' alt></p>"), []);
  assert.deepEqual(rules('<p><img src="/a.png" alt="A red door"></p>'), []);
});

Deno.test("img-alt-filename: file names and camera ids, not descriptions", () => {
  for (
    const alt of [
      "IMG_1234.jpg",
      "DSC0042",
      "photo.png",
      "Screenshot 2024-03-01 at 10.15.22",
      "PXL_20240101_120000",
      "hero-image.webp",
      "20240101_101010",
      "Bildschirmfoto 2024-05-02 um 09.12.00",
    ]
  ) {
    const f = only(`<img src="/a" alt="${alt}">`, "img-alt-filename");
    assert.equal(f.severity, "warning");
  }
  for (
    const alt of [
      "A photo of the 2024 team",
      "Screenshot of the settings page",
      "Image of a PNG logo",
      "Map of zone 1234",
      "Sam 1999 at the finish line",
      "P 500 series printer",
    ]
  ) {
    assert.deepEqual(rules(`<img src="/a" alt="${alt}">`), [], alt);
  }
});

Deno.test("img-alt-long: over 150 characters", () => {
  const long = "word ".repeat(31).trim(); // 154 characters
  only(`<img src="/a" alt="${long}">`, "img-alt-long");
  assert.deepEqual(rules(`<img src="/a" alt="${"x".repeat(150)}">`), []);
});

Deno.test("checkAlt: the alt text a host renders for an image field", () => {
  assert.deepEqual(checkAlt(null).map((f) => f.rule), ["img-alt-missing"]);
  assert.deepEqual(checkAlt(undefined).map((f) => f.rule), [
    "img-alt-missing",
  ]);
  assert.deepEqual(checkAlt(""), []);
  assert.deepEqual(checkAlt("Our shop at night"), []);
  assert.deepEqual(checkAlt("IMG_1234.JPG").map((f) => f.rule), [
    "img-alt-filename",
  ]);
  assert.deepEqual(checkAlt("a".repeat(151)).map((f) => f.rule), [
    "img-alt-long",
  ]);
  const [f] = checkAlt(null, { lang: "de" });
  assert.equal(f.message, "Bild ohne Alternativtext");
  assert.equal(f.start, undefined);
});

Deno.test("heading-skip: below the base for the first, then one level at a time", () => {
  assert.deepEqual(rules("<h2>A</h2><h3>B</h3><h4>C</h4><h2>D</h2>"), []);
  const f = only("<h2>A</h2><p>x</p><h4>C</h4>", "heading-skip");
  assert.equal(f.text, "<h4>C</h4>");
  assert.equal(f.severity, "error");
  assert.match(f.message, /h3/);
  only("<h3>A</h3>", "heading-skip");
  assert.deepEqual(rules("<h3>A</h3>", { headingBase: 2 }), []);
  only("<h4>A</h4>", "heading-skip", { headingBase: 2 });
  // Going up any number of levels is fine; so is a heading at the base.
  assert.deepEqual(rules("<h2>A</h2><h3>B</h3><h4>C</h4><h2>D</h2>"), []);
  assert.deepEqual(rules("<h2>A</h2>", { headingBase: 2 }), []);
});

Deno.test("heading-skip: headings count in document order, inside a blockquote too", () => {
  const html = "<h2>A</h2><blockquote><h4>Quoted</h4></blockquote><h3>B</h3>";
  assert.equal(only(html, "heading-skip").text, "<h4>Quoted</h4>");
  assert.deepEqual(
    rules("<h2>A</h2><blockquote><h3>Quoted</h3></blockquote><h4>B</h4>"),
    [],
  );
});

Deno.test("heading-empty: no text (an image with alt text names it)", () => {
  for (const h of ["<h2></h2>", "<h2> <br> </h2>", "<h2>&nbsp;</h2>"]) {
    assert.equal(only(h, "heading-empty").severity, "error");
  }
  only('<h2><img src="/a" alt=""></h2>', "heading-empty");
  assert.deepEqual(rules('<h2><img src="/a" alt="Logo of ACME"></h2>'), []);
  assert.deepEqual(rules("<h2><em>Intro</em></h2>"), []);
});

Deno.test("link-empty: a link without text; an image with alt names it; <a> without href is no link", () => {
  const f = only('<p>x <a href="/a"></a> y</p>', "link-empty");
  assert.equal(f.text, '<a href="/a"></a>');
  assert.equal(f.severity, "error");
  only('<p><a href="/a"> <b></b> </a></p>', "link-empty");
  only('<p><a href="/a"><img src="/i" alt=""></a></p>', "link-empty");
  assert.deepEqual(
    rules('<p><a href="/a"><img src="/i" alt="Home page"></a></p>'),
    [],
  );
  assert.deepEqual(rules("<p><a></a></p>"), []);
  assert.deepEqual(rules('<p><a href="/a">Prices</a></p>'), []);
});

Deno.test("link-vague: the whole text, case-insensitive; 'hereford' is not 'here'", () => {
  for (
    const text of [
      "click here",
      "Here",
      "READ MORE",
      "Read more »",
      "more…",
      "link",
      "This link",
      "hier",
      "Hier klicken",
      "Klicken Sie hier",
      "mehr",
      "Weiterlesen",
      "Mehr lesen",
    ]
  ) {
    const f = only(`<p><a href="/a">${text}</a></p>`, "link-vague");
    assert.equal(f.severity, "warning");
  }
  for (
    const text of [
      "hereford",
      "Herefordshire cattle",
      "read more about pricing",
      "more photos of the event",
      "Linkedin",
      "hierarchy",
    ]
  ) {
    assert.deepEqual(rules(`<p><a href="/a">${text}</a></p>`), [], text);
  }
  // Not a link without href.
  assert.deepEqual(rules("<p><a>click here</a></p>"), []);
});

Deno.test("link-vague: the content's language picks the list; both without one", () => {
  const here = '<p><a href="/a">here</a></p>';
  const hier = '<p><a href="/a">hier</a></p>';
  assert.deepEqual(rules(here, { locale: "en" }), ["link-vague"]);
  assert.deepEqual(rules(here, { locale: "de-AT" }), []);
  assert.deepEqual(rules(hier, { locale: "de" }), ["link-vague"]);
  assert.deepEqual(rules(hier, { locale: "en-GB" }), []);
  assert.deepEqual(rules(here), ["link-vague"]);
  assert.deepEqual(rules(hier), ["link-vague"]);
  assert.deepEqual(rules(hier, { locale: "fr" }), ["link-vague"]);
});

Deno.test("list-fake: one finding per run of two or more mark paragraphs", () => {
  for (const mark of ["•", "·", "-", "*", "–"]) {
    const html = `<p>Intro</p><p>${mark} Apples</p><p>${mark} Pears</p>` +
      `<p>${mark} Plums</p><p>Outro</p>`;
    const f = only(html, "list-fake");
    assert.equal(f.severity, "warning");
    assert.equal(
      f.text,
      `<p>${mark} Apples</p><p>${mark} Pears</p><p>${mark} Plums</p>`,
    );
  }
  only("<p>1. Preheat</p><p>2. Mix</p><p>3. Bake</p>", "list-fake");
  only("<p>1) Preheat</p>\n<p>2) Mix</p>", "list-fake");
  // Two runs apart are two findings.
  const two = "<p>• a</p><p>• b</p><p>Between</p><p>• c</p><p>• d</p>";
  assert.deepEqual(rules(two), ["list-fake", "list-fake"]);
});

Deno.test("list-fake: not for one paragraph, dates, negative numbers or a list", () => {
  assert.deepEqual(rules("<p>1. Januar ist Neujahr.</p>"), []);
  assert.deepEqual(rules("<p>• Only one</p><p>Then text</p>"), []);
  assert.deepEqual(
    rules("<p>3. Oktober: Feiertag.</p><p>24. Dezember: Heiligabend.</p>"),
    [],
  );
  assert.deepEqual(rules("<p>-5 °C at night</p><p>-2 °C by day</p>"), []);
  assert.deepEqual(rules("<p>*Terms apply</p><p>*Prices in EUR</p>"), []);
  assert.deepEqual(rules("<ul><li>- a</li><li>- b</li></ul>"), []);
  assert.deepEqual(rules("<p>• a</p><h2>Title</h2><p>• b</p>"), []);
});

Deno.test("table-no-header: a table without <th>", () => {
  const html = "<table><tr><td>a</td><td>b</td></tr></table>";
  assert.equal(only(html, "table-no-header").text, html);
  assert.deepEqual(
    rules("<table><tr><th>a</th></tr><tr><td>1</td></tr></table>"),
    [],
  );
  assert.deepEqual(
    rules("<table><tbody><tr><th>Row</th><td>1</td></tr></tbody></table>"),
    [],
  );
});

Deno.test("text-all-caps: paragraphs and headings of 4+ words in capitals", () => {
  only("<p>PLEASE READ THIS NOTICE</p>", "text-all-caps");
  only("<h2>OUR NEW SUMMER RANGE</h2>", "text-all-caps");
  assert.equal(
    only("<p>WIR SIND FÜR SIE DA</p>", "text-all-caps").severity,
    "warning",
  );
  assert.deepEqual(rules("<p>NASA launches a new rocket today.</p>"), []);
  assert.deepEqual(rules("<p>READ THIS NOW</p>"), []); // three words
  assert.deepEqual(rules("<p>2024 10 11 12</p>"), []); // no letter
  assert.deepEqual(rules("<ul><li>ONE TWO THREE FOUR</li></ul>"), []);
  assert.deepEqual(rules("<p><code>SELECT ID FROM USERS WHERE</code></p>"), []);
});

Deno.test("text-repeated-word: twice in a row, case and punctuation ignored, never across blocks", () => {
  const f = only("<p>We saw the the sea.</p>", "text-repeated-word");
  assert.equal(f.text, "the the");
  assert.equal(f.severity, "warning");
  assert.match(f.message, /"the"/);
  only("<p>The, the end</p>", "text-repeated-word");
  only("<p>Go <b>go</b> now</p>", "text-repeated-word");
  only("<p>Und und so weiter</p>", "text-repeated-word");
  for (
    const html of [
      "<h2>Berlin</h2><p>Berlin is big</p>",
      "<table><tr><th>Total</th><td>Total</td></tr></table>",
      "<ul><li>Red</li><li>Red</li></ul>",
      "<p>Line one<br>one more</p>",
      "<p>Chapter 2 2 times</p>",
      "<p>Run <code>ls ls</code> twice</p>",
      "<p>The <code>x</code> the</p>",
      "<p>the theme</p>",
    ]
  ) assert.deepEqual(rules(html), [], html);
});

Deno.test("empty-paragraphs: one finding per run of two or more", () => {
  const html = "<p>A</p><p></p><p><br></p><p>&nbsp;</p><p>B</p>";
  const f = only(html, "empty-paragraphs");
  assert.equal(f.text, "<p></p><p><br></p><p>&nbsp;</p>");
  assert.equal(f.severity, "warning");
  assert.deepEqual(rules("<p>A</p><p><br></p><p>B</p>"), []);
  assert.deepEqual(rules('<p><img src="/a" alt="x"></p><p></p>'), []);
  assert.deepEqual(
    rules("<p></p>\n<p></p><p>x</p><p></p><p></p>"),
    ["empty-paragraphs", "empty-paragraphs"],
  );
});

Deno.test("messages follow lang, else the locale's language, else English", () => {
  const html = "<h2></h2>";
  assert.equal(checkContent(html)[0].message, "Empty heading");
  assert.equal(
    checkContent(html, { locale: "de" })[0].message,
    "Leere Überschrift",
  );
  assert.equal(
    checkContent(html, { locale: "de", lang: "en" })[0].message,
    "Empty heading",
  );
  assert.equal(
    checkContent(html, { lang: "de-CH" })[0].message,
    "Leere Überschrift",
  );
  assert.equal(checkMessage("link-broken", "de"), "Link auf fehlende Seite");
  assert.equal(checkMessage("link-broken"), "Link to a missing page");
});

Deno.test("findings come in document order, with offsets of the element", () => {
  const html = '<p>the the</p><h4>x</h4><img src="/a">';
  const found = checkContent(html);
  assert.deepEqual(found.map((f) => f.rule), [
    "text-repeated-word",
    "heading-skip",
    "img-alt-missing",
  ]);
  assert.deepEqual(found.map((f) => [f.start, f.end]), [[3, 10], [14, 24], [
    24,
    38,
  ]]);
});

Deno.test("siteLinks: the links to pages of the same site, with offsets", () => {
  const html = '<p><a href="/about">A</a> <a href="team?x=1#y">T</a> ' +
    '<a href="https://other.example/">O</a> <a href="#top">Top</a> ' +
    '<a href="mailto:a@b.c">M</a> <a>none</a> ' +
    '<A HREF="https://www.example.com/x">X</A></p>';
  const links = siteLinks(html, "https://www.example.com/blog/post");
  assert.deepEqual(links.map((l) => l.path), [
    "/about",
    "/blog/team?x=1",
    "/x",
  ]);
  assert.equal(html.slice(links[0].start, links[0].end), '<a href="/about">');
  assert.deepEqual(siteLinks(html, "not a url"), []);
});

Deno.test("code is text: a heading, link or paragraph of code is not empty", () => {
  assert.deepEqual(rules("<h2><code>deno.json</code></h2>"), []);
  assert.deepEqual(rules('<p><a href="/d"><code>deno.json</code></a></p>'), []);
  assert.deepEqual(rules("<p><code>x</code></p><p><code>y</code></p>"), []);
  assert.deepEqual(rules("<pre>a</pre><pre>b</pre>"), []);
});

Deno.test("the tokenizer: quoting, references in attributes, comments, upper case, unclosed tags", () => {
  assert.deepEqual(rules("<IMG SRC=/a ALT='A dog'>"), []);
  assert.deepEqual(rules('<img src="/a" alt="Tom &amp; Jerry > cartoon">'), []);
  assert.deepEqual(rules("<!-- <img src=/a> --><p>x</p>"), []);
  assert.deepEqual(rules("<p>&lt;img src=/a&gt;</p>"), []);
  assert.deepEqual(rules('<p><a href="/a">here'), ["link-vague"]);
  assert.deepEqual(rules("</p></a><h2>"), ["heading-empty"]);
  assert.deepEqual(rules(""), []);
  assert.deepEqual(rules("plain text, no tags"), []);
});

Deno.test("30 realistic clean documents: no finding, as written and as stored", async () => {
  assert.equal(CLEAN.length, 30);
  const sanitize = await createDomSanitizer();
  for (const doc of CLEAN) {
    const stored = sanitize(doc.html).html;
    for (const html of [doc.html, stored]) {
      const found: Finding[] = checkContent(html, {
        locale: doc.locale,
        headingBase: doc.headingBase,
      });
      assert.deepEqual(found, [], `${doc.name}: ${JSON.stringify(found)}`);
    }
  }
});

/** Random rich HTML from the tags and texts the checks look at. */
function richHtml(): fc.Arbitrary<string> {
  const text = fc.oneof(
    fc.constantFrom(
      "the",
      "THE",
      "here",
      "• ",
      "1. ",
      "&amp;",
      "&nbsp;",
      " ",
      "IMG_1.jpg",
      "<",
      "'",
      '"',
    ),
    fc.string({ maxLength: 8 }),
  );
  const { node } = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      text,
      fc.constantFrom(
        "<br>",
        '<img src="/a.png" width="2" height="2">',
        '<img src="/a.png" alt="">',
        '<img src="/a.png" alt="DSC0042">',
      ),
      fc.tuple(
        fc.constantFrom(
          "p",
          "h2",
          "h3",
          "h4",
          "a",
          "b",
          "em",
          "code",
          "pre",
          "ul",
          "li",
          "blockquote",
          "table",
          "tr",
          "th",
          "td",
        ),
        fc.array(tie("node"), { maxLength: 4 }),
      ).map(([tag, kids]) =>
        `<${tag}${tag === "a" ? ' href="/x"' : ""}>${kids.join("")}</${tag}>`
      ),
    ),
  }));
  return fc.array(node, { maxLength: 6 }).map((parts) => parts.join(""));
}

Deno.test("property: on sanitized random HTML the checker never throws and offsets are in range", async () => {
  const sanitize = await createDomSanitizer();
  const inRange = (html: string) => {
    for (const f of checkContent(html)) {
      assert.ok(f.message.length > 0);
      assert.ok(
        f.start !== undefined && f.end !== undefined && 0 <= f.start &&
          f.start < f.end && f.end <= html.length,
        `${f.rule} ${f.start}-${f.end} in ${html.length}`,
      );
    }
  };
  fc.assert(
    fc.property(richHtml(), (raw) => {
      inRange(sanitize(raw).html);
      inRange(raw);
    }),
    { numRuns: 300, seed: 0x35 },
  );
  // Any string at all: never throws.
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (s) => {
      checkContent(s);
    }),
    { numRuns: 300, seed: 0x36 },
  );
});
