/**
 * Property test ("no silent content loss"): fast-check generates
 * benign rich documents (text with `<`, `&`, quotes, entities and comments,
 * tables, `pre` blocks, nested lists, links, images with sizes, and pastes
 * shaped like Word, Google Docs and GitHub). After sanitizing:
 *
 * - the visible text is the text before, word boundaries included;
 * - every `<pre>` keeps its text exactly (leading blank lines too);
 * - every element the policy keeps is still there (same count per tag);
 * - sanitizing again changes nothing.
 *
 * "Visible text" is this file's own oracle, independent of the policy: the
 * text of a parsed document, where comments and elements that never render
 * (`script`, `style`, `head`, …) count as nothing, elements that render as
 * blocks, table cells or line breaks count as whitespace, and whitespace
 * runs collapse to one space.
 *
 * The same property runs through the server (`sanitizeRich`: DOMPurify on
 * jsdom in the worker) and through the browser's rebuild
 * (`core/rebuild.ts`) on jsdom's `DOMParser`, whose string and removed
 * count must equal the server's for every generated document.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { JSDOM } from "jsdom";
import { sanitizeRich } from "../../../server/sanitize/pool.ts";
import { createRebuild } from "../../../core/rebuild.ts";

const RUNS = Number(Deno.env.get("CMS_PROPERTY_RUNS") ?? 250);
const SEED = Number(Deno.env.get("CMS_PROPERTY_SEED") ?? 0x1207);
const HTML_NS = "http://www.w3.org/1999/xhtml";

// ---------------------------------------------------------------- oracle --

const { window } = new JSDOM("");
const parser = new window.DOMParser();

/** Elements a browser never renders, text and all. */
const NOT_RENDERED = new Set([
  "head",
  "script",
  "style",
  "template",
  "title",
  "meta",
  "link",
  "xml",
]);
/** Elements whose default rendering keeps words apart (CSS display). */
const SEPARATING = new Set(
  ("address article aside blockquote br caption center dd details dialog dir " +
    "div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header " +
    "hgroup hr legend li listing main menu nav ol optgroup option p pre search " +
    "section summary table tbody td tfoot th thead tr ul")
    .split(" "),
);
/** Tags the policy keeps, written out again as an independent list. */
const KEPT = ("p br h2 h3 h4 strong b em i u s strike del a ul ol li " +
  "blockquote code pre img table caption thead tbody tfoot tr th td")
  .split(" ");

interface Seen {
  /** Visible text, whitespace collapsed. */
  text: string;
  /** The exact text of every `<pre>`, in document order. */
  pres: string[];
  /** How many of each kept tag. */
  kept: Record<string, number>;
}

function see(html: string): Seen {
  const body = parser.parseFromString(html, "text/html").body;
  const parts: string[] = [];
  const pres: string[] = [];
  const kept: Record<string, number> = {};
  const walk = (node: Node) => {
    if (node.nodeType === 3) {
      parts.push((node as Text).data);
      return;
    }
    if (node.nodeType !== 1) return; // comments, processing instructions
    const el = node as Element;
    const tag = el.localName;
    if (el.namespaceURI !== HTML_NS || NOT_RENDERED.has(tag)) return;
    if (KEPT.includes(tag)) kept[tag] = (kept[tag] ?? 0) + 1;
    if (tag === "pre") pres.push(el.textContent ?? "");
    const separates = SEPARATING.has(tag);
    if (separates) parts.push(" ");
    for (const child of el.childNodes) walk(child);
    if (separates) parts.push(" ");
  };
  walk(body);
  return { text: parts.join("").replace(/\s+/g, " ").trim(), pres, kept };
}

// ------------------------------------------------------------ generators --

const WORDS = [
  "Name",
  "Role",
  "plain",
  "words",
  "a<b",
  "I <3",
  "Vec<u8>",
  "Press <Enter>",
  "</x>",
  "<!--more-->",
  "Tom & Jerry",
  "AT&T",
  "&amp;",
  '"quoted"',
  "it's",
  "5 > 3",
  "x<y&&y>z",
  "naïve",
  "日本語",
  "😀",
  "C:\\path",
  "50%",
  "=",
];

/** Text escaped as an editor or a paste would write it. */
function escape(text: string, style: number): string {
  const amp = text.replace(/&/g, style === 2 ? "&#38;" : "&amp;");
  const lt = amp.replace(/</g, style === 1 ? "&#x3C;" : "&lt;");
  const gt = style === 0 ? lt : lt.replace(/>/g, "&gt;");
  return style === 2 ? gt.replace(/"/g, "&quot;") : gt;
}

/** Raw markup that is text to the parser: bare `<` before a digit or space. */
const RAW_SAFE = ["I <3", "5 > 3", "a < b", "Tom & Jerry", "x &y"];
const ENTITIES = [
  "&copy;",
  "&mdash;",
  "&#8212;",
  "&#x2014;",
  "&nbsp;",
  "&hellip;",
  "&lt;tag&gt;",
  "&amp;amp;",
];
const COMMENTS = [
  "<!-- editor note -->",
  "<!--more-->",
  "<!---->",
  "<!-- <p>not this</p> -->",
  "<?xml:namespace prefix = o ns = 'urn:schemas-microsoft-com:office:office' />",
  "<!--[if gte mso 9]><xml><o:OfficeDocumentSettings></o:OfficeDocumentSettings></xml><![endif]-->",
];

const text: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(
      fc.subarray(WORDS, { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 0, max: 2 }),
    )
      .map(([words, style]) => escape(words.join(" "), style)),
  },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_SAFE) },
  { weight: 1, arbitrary: fc.constantFrom(...ENTITIES) },
  {
    weight: 1,
    arbitrary: fc.string({ maxLength: 12 }).map((s) => escape(s, 0)),
  },
);
const comment = fc.constantFrom(...COMMENTS);
const space = fc.constantFrom("", " ", "\n", "  \n\t");

const STYLES = [
  "font-weight:700",
  "color:#333;font-family:Arial",
  "mso-bidi-font-weight:normal",
  "mso-spacerun:yes",
  "font-size:11pt;font-family:Arial;color:#000000;background-color:transparent;vertical-align:baseline;white-space:pre-wrap",
];
const style = fc.constantFrom(...STYLES);
const href = fc.constantFrom(
  "https://example.com/",
  "https://example.com/?a=1&amp;b=2",
  "/about#team",
  "mailto:ada@example.com",
  "tel:+441234",
  "#top",
  "relative/page",
);
const image = fc.record({
  src: fc.constantFrom("/media/a.png", "https://cdn.example/b.jpg", "c.webp"),
  w: fc.integer({ min: 1, max: 4000 }),
  h: fc.integer({ min: 1, max: 4000 }),
  alt: fc.subarray(WORDS, { maxLength: 2 }),
}).map(({ src, w, h, alt }) =>
  `<img src="${src}" width="${w}" height="${h}" alt="${
    escape(alt.join(" "), 2)
  }">`
);

const INLINE_TAGS = [
  "b",
  "strong",
  "em",
  "i",
  "u",
  "s",
  "del",
  "code",
  "span",
  "sup",
  "sub",
  "mark",
  "small",
  "kbd",
  "abbr",
  "font",
  "o:p",
];

/** Inline content without links (links do not nest). */
function inline(depth: number, links = true): fc.Arbitrary<string> {
  const leaves: fc.Arbitrary<string>[] = [
    text,
    text,
    text,
    comment,
    image,
    fc.constant("<br>"),
  ];
  if (depth <= 0) return fc.oneof(...leaves);
  const children = (d: number, l: boolean) =>
    fc.array(inline(d, l), { minLength: 1, maxLength: 3 }).map((a) =>
      a.join("")
    );
  const wrapped = fc.tuple(
    fc.constantFrom(...INLINE_TAGS),
    style,
    fc.boolean(),
    children(depth - 1, links),
  )
    .map(([tag, css, styled, inner]) =>
      `<${tag}${styled ? ` style="${css}"` : ""}>${inner}</${tag}>`
    );
  const parts: fc.Arbitrary<string>[] = [...leaves, wrapped, wrapped];
  if (links) {
    parts.push(
      fc.tuple(href, fc.boolean(), children(depth - 1, false)).map((
        [url, blank, inner],
      ) =>
        `<a href="${url}"${
          blank ? ' target="_blank" title="x"' : ""
        }>${inner}</a>`
      ),
    );
  }
  return fc.oneof(...parts);
}

const phrase = (depth = 2) =>
  fc.array(inline(depth), { minLength: 1, maxLength: 4 }).map((a) =>
    a.join("")
  );

/** `<pre>` text: leading blank lines, `<` and `&`, blank lines inside. */
const pre = fc.tuple(
  fc.constantFrom("", "\n", "\n\n", "\n\n\n"),
  fc.array(
    fc.constantFrom(
      "fn main() {",
      "  let v: Vec<u8> = vec![];",
      "if a < b && c > d",
      "",
      '  return "x";',
      "}",
    ),
    { minLength: 1, maxLength: 5 },
  ),
  fc.boolean(),
).map(([lead, lines, code]) => {
  const body = lead + escape(lines.join("\n"), 0);
  return code
    ? `<pre><code class="language-rust">${body}</code></pre>`
    : `<pre>${body}</pre>`;
});

function list(depth: number): fc.Arbitrary<string> {
  const item = depth <= 0
    ? flow.map((p) => `<li>${p}</li>`)
    : fc.tuple(flow, fc.option(list(depth - 1), { nil: undefined }))
      .map(([p, sub]) => `<li>${p}${sub ?? ""}</li>`);
  return fc.tuple(
    fc.constantFrom("ul", "ol"),
    fc.array(item, { minLength: 1, maxLength: 3 }),
    space,
  )
    .map(([tag, items, ws]) => `<${tag}>${ws}${items.join(ws)}</${tag}>`);
}

/** Blocks inside a cell or a list item: each keeps its words apart. */
const stacked = fc.array(
  fc.tuple(fc.constantFrom("p", "div", "h1", "h3", "section", "dt"), phrase(1)),
  { minLength: 1, maxLength: 3 },
).map((parts) => parts.map(([tag, p]) => `<${tag}>${p}</${tag}>`).join(""));
const flow = fc.oneof({ weight: 3, arbitrary: phrase(1) }, {
  weight: 1,
  arbitrary: stacked,
});

const cell = (tag: string) =>
  fc.tuple(
    flow,
    fc.option(
      fc.constantFrom(
        ' colspan="2"',
        ' rowspan="2"',
        ' width="300" valign="top" style="padding:0"',
      ),
      { nil: "" },
    ),
  )
    .map(([p, attr]) => `<${tag}${attr}>${p}</${tag}>`);
const row = (tag: string) =>
  fc.array(cell(tag), { minLength: 1, maxLength: 3 }).map((cells) =>
    `<tr>${cells.join("")}</tr>`
  );
const table = fc.record({
  caption: fc.option(phrase(1), { nil: undefined }),
  head: fc.option(row("th"), { nil: undefined }),
  rows: fc.array(row("td"), { minLength: 1, maxLength: 3 }),
  colgroup: fc.boolean(),
  ws: space,
}).map(({ caption, head, rows, colgroup, ws }) =>
  `<table border="1">${ws}${caption ? `<caption>${caption}</caption>` : ""}` +
  (colgroup ? "<colgroup><col><col></colgroup>" : "") +
  (head ? `<thead>${ws}${head}${ws}</thead>` : "") +
  `<tbody>${ws}${rows.join(ws)}${ws}</tbody></table>`
);

function block(depth: number): fc.Arbitrary<string> {
  const simple = [
    fc.tuple(
      fc.constantFrom("p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote"),
      phrase(),
    ).map(([tag, p]) => `<${tag}>${p}</${tag}>`),
    fc.tuple(fc.constantFrom("p", "div"), style, phrase()).map((
      [tag, css, p],
    ) => `<${tag} class="x" style="${css}">${p}</${tag}>`),
    pre,
    list(2),
    table,
    fc.constant("<hr>"),
    fc.tuple(phrase(1), phrase(1)).map(([t, d]) =>
      `<dl><dt>${t}</dt><dd>${d}</dd></dl>`
    ),
    fc.tuple(image, phrase(1)).map(([img, c]) =>
      `<figure>${img}<figcaption>${c}</figcaption></figure>`
    ),
    fc.tuple(phrase(1), phrase(1)).map(([s, d]) =>
      `<details><summary>${s}</summary><p>${d}</p></details>`
    ),
    comment,
    phrase(),
  ];
  if (depth <= 0) return fc.oneof(...simple);
  const nested = fc.tuple(
    fc.constantFrom("div", "section", "article", "blockquote", "main"),
    fc.array(block(depth - 1), { minLength: 1, maxLength: 3 }),
    space,
  )
    .map(([tag, blocks, ws]) =>
      `<${tag}>${ws}${blocks.join(ws)}${ws}</${tag}>`
    );
  return fc.oneof(...simple, nested);
}

/** A paragraph as Word puts it on the clipboard. */
const wordParagraph = fc.tuple(phrase(1), fc.boolean(), fc.boolean()).map((
  [p, listItem, empty],
) =>
  empty
    ? `<p class=MsoNormal><o:p>&nbsp;</o:p></p>`
    : listItem
    ? `<p class=MsoListParagraphCxSpFirst style='text-indent:-18.0pt;mso-list:l0 level1 lfo1'><![if !supportLists]><span style='font-family:Symbol'><span style='mso-list:Ignore'>·<span style='font:7.0pt "Times New Roman"'>&nbsp;&nbsp; </span></span></span><![endif]>${p}<o:p></o:p></p>`
    : `<p class=MsoNormal><span lang=EN-GB style='mso-ansi-language:EN-GB'>${p}<o:p></o:p></span></p>`
);
const wordTable = fc.array(
  fc.array(phrase(1), { minLength: 1, maxLength: 3 }),
  { minLength: 1, maxLength: 3 },
).map((rows) =>
  `<table class=MsoTableGrid border=1 cellspacing=0 cellpadding=0 style='border-collapse:collapse;mso-yfti-tbllook:1184'>` +
  rows.map((cells) =>
    `<tr style='mso-yfti-irow:0'>` +
    cells.map((c) =>
      `<td width=301 valign=top style='width:225.4pt;padding:0cm 5.4pt 0cm 5.4pt'><p class=MsoNormal>${c}<o:p></o:p></p></td>`
    ).join("") +
    `</tr>`
  ).join("") + `</table>`
);
const word = fc.array(fc.oneof(wordParagraph, wordParagraph, wordTable), {
  minLength: 1,
  maxLength: 4,
}).map((parts) =>
  `<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta charset=utf-8>` +
  `<style><!-- p.MsoNormal {margin:0cm;} --></style><!--[if gte mso 9]><xml><w:WordDocument></w:WordDocument></xml><![endif]--></head>` +
  `<body lang=EN-GB style='tab-interval:36.0pt'><!--StartFragment-->` +
  `<?xml:namespace prefix = o ns = "urn:schemas-microsoft-com:office:office" />` +
  parts.join("\r\n") + `<!--EndFragment--></body></html>`
);

/** What Google Docs puts on the clipboard. */
const gdocs = fc.tuple(
  fc.integer({ min: 0, max: 0xffffffff }).map((n) => n.toString(16)),
  fc.array(fc.tuple(phrase(1), style), { minLength: 1, maxLength: 4 }),
  fc.boolean(),
).map(([id, paras, br]) =>
  `<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-${id}">` +
  paras.map(([p, css]) =>
    `<p dir="ltr" style="line-height:1.38;margin-top:0pt;margin-bottom:0pt;"><span style="${css}">${p}</span></p>`
  )
    .join(br ? "<br>" : "") +
  `</b>`
);

/** What GitHub's rendered Markdown puts on the clipboard. */
const github = fc.tuple(
  phrase(1),
  fc.array(block(0), { maxLength: 3 }),
  fc.array(fc.tuple(fc.boolean(), phrase(1)), { minLength: 1, maxLength: 3 }),
  pre,
)
  .map(([title, blocks, tasks, code]) =>
    `<div class="markdown-body"><h1 dir="auto"><a id="user-content-t" class="anchor" href="#t"></a>${title}</h1>` +
    blocks.join("\n") +
    `<ul class="contains-task-list">` +
    tasks.map(([done, t]) =>
      `<li class="task-list-item"><input type="checkbox" id="" disabled=""${
        done ? ' checked=""' : ""
      } class="task-list-item-checkbox"> ${t}</li>`
    ).join("\n") + `</ul>` +
    `<div class="highlight highlight-source-rust notranslate position-relative overflow-auto" dir="auto">${code}<div class="zeroclipboard-container"><clipboard-copy aria-label="Copy" class="ClipboardButton btn" role="button" tabindex="0"></clipboard-copy></div></div></div>`
  );

const documentArb: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(block(2), { minLength: 1, maxLength: 5 }).chain((
      blocks,
    ) => space.map((ws) => blocks.join(ws))),
  },
  { weight: 1, arbitrary: word },
  { weight: 1, arbitrary: gdocs },
  { weight: 1, arbitrary: github },
);

// --------------------------------------------------------------- property --

function checkPreserved(html: string, out: string): void {
  const before = see(html);
  const after = see(out);
  assert.equal(after.text, before.text, "visible text");
  assert.deepEqual(after.pres, before.pres, "pre text");
  // Separators the policy adds where an unwrapped block stood are <br>s.
  const { br: brBefore = 0, ...keptBefore } = before.kept;
  const { br: brAfter = 0, ...keptAfter } = after.kept;
  assert.deepEqual(keptAfter, keptBefore, "kept elements");
  assert.ok(brAfter >= brBefore, `${brAfter} <br> after, ${brBefore} before`);
}

const params = { seed: SEED, numRuns: RUNS, endOnFailure: true };

Deno.test("property: benign rich documents keep their visible text (server)", async () => {
  let removedSomething = 0;
  await fc.assert(
    fc.asyncProperty(documentArb, async (html) => {
      const { html: out, removed } = await sanitizeRich(html, {
        mediaBase: "/media/",
      });
      checkPreserved(html, out);
      if (removed > 0) removedSomething++;
      const again = await sanitizeRich(out, { mediaBase: "/media/" });
      assert.equal(again.html, out, "idempotent");
    }),
    params,
  );
  // The generator makes documents with something to remove (styles, spans,
  // comments): the property is not vacuous.
  assert.ok(
    removedSomething > RUNS / 2,
    `${removedSomething} removed something`,
  );
});

Deno.test("property: the browser's rebuild on jsdom keeps the visible text and equals the server exactly", async () => {
  const rebuild = createRebuild(
    (html) => parser.parseFromString(html, "text/html"),
    { mediaBase: "/media/" },
  );
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(documentArb, async (html) => {
      const out = rebuild.counted(html);
      checkPreserved(html, out.html);
      assert.equal(rebuild(out.html), out.html, "idempotent");
      assert.deepEqual(
        out,
        await sanitizeRich(html, { mediaBase: "/media/" }),
        "same string and count as the server",
      );
      compared++;
    }),
    params,
  );
  assert.equal(compared, RUNS);
});

Deno.test("property oracle: it sees lost text, glued words, eaten pre lines and lost elements", () => {
  const fails = (html: string, out: string) =>
    assert.throws(
      () => checkPreserved(html, out),
      assert.AssertionError,
      `${html} -> ${out}`,
    );
  fails("<p>a&lt;b<!--c--></p>", "");
  fails("<table><tr><td>Name</td><td>Role</td></tr></table>", "NameRole");
  fails("<pre>\n\nx</pre>", "<pre>x</pre>");
  fails("<p><img src=a.png width=1 height=1>x</p>", "<p>x</p>");
  fails("<div>a</div><div>b</div>", "ab");
  assert.doesNotThrow(() =>
    checkPreserved("<div>a</div><div>b</div>", "a<br>b")
  );
  assert.doesNotThrow(() =>
    checkPreserved("<p>a<!--x-->b</p><style>p{}</style>", "<p>ab</p>")
  );
});
