/**
 * The browser's sanitizer (`core/rebuild.ts`, loaded by `client/clean.ts`)
 * against the server's (DOMPurify on jsdom, `server/sanitize/pool.ts`): the same
 * string and the same removed count, on jsdom for every vector and for
 * cases that probe the rebuild's own parts, and in Chromium, Firefox and
 * WebKit for every vector through the bundled lazy chunk.
 */
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { createRebuild } from "../../core/rebuild.ts";
import { sanitizeRich } from "../../server/sanitize/pool.ts";
import { denoBundle } from "../../tools/build_client.ts";
import { VECTORS } from "../server/sanitize/_vectors.ts";
import { assertSafe } from "../server/sanitize/_safety.ts";
import { engineTest, timeout } from "../helpers/browser.ts";
import { serve } from "../helpers/serve.ts";

const MEDIA = "/media/";
const { window } = new JSDOM("");
const parser = new window.DOMParser();
const rebuild = createRebuild(
  (html) => parser.parseFromString(html, "text/html"),
  { mediaBase: MEDIA },
);

/** Inputs that exercise each part of the rebuild beyond the vectors. */
const PROBES: readonly string[] = [
  // Leading whitespace (the parser drops it; both put it back), no markup.
  "  \n<p>a</p>",
  "a &amp; b < c",
  "",
  // Outside the body: head content, comments around <html>, body attributes.
  "<!--a--><title>t</title><style>p{}</style><p>x</p><!--b-->",
  '<body onload="x()" class="c" id="body"><p>x</p></body>',
  "</html><!--after-->",
  // A <frameset> replaces the body.
  "<frameset><frame src=x></frameset>",
  // A removed template's content is walked and counted, nested too.
  '<p><template><b onclick="x()">x</b><div>y</div><!--c--><template><i id=q>z</i></template></template></p>',
  // An `is` attribute leaves an empty one (DOMPurify's mask: else the
  // serializer writes the original value back); rel comes after it.
  '<a is="x-a" href="/y" rel="me">z</a><p is="x-p">q</p>',
  // Links without address lose rel and target (target counted).
  '<a target="_blank" rel="noopener noreferrer nofollow">x</a>',
  '<a rel="noopener noreferrer nofollow" href="/a" target="_blank">x</a>',
  // Trimmed values, the URL gate on every attribute, empty values.
  '<img src=" /a.png " width="2" height="3" alt="  spaced  " loading=" lazy ">',
  '<td colspan="2" rowspan="">x</td><table><tr><td colspan=" 3 " rowspan="0">y',
  '<a href="">e</a><a href="  /x  ">f</a><a href="java&#x09;script:alert(1)">g</a>',
  // srcset and sizes in both orders, under and outside the media base.
  '<img src="/a.png" width="1" height="1" sizes="100vw" srcset="/media/a.webp 1x">',
  '<img src="/a.png" width="1" height="1" srcset=" /media/a.webp 2x " sizes="(max-width: 600px) 100vw, 50vw">',
  '<img src="/a.png" width="1" height="1" srcset="/other/a.webp 1x" sizes="100vw">',
  '<img src="/a.png" width="1" height="1" sizes="a:b" srcset="/media/a.webp 1x">',
  // Bad images go whole; good ones in unwrapped blocks.
  '<div><img src="/a.png" width="1" height="1"></div>x<img src="x" width="0" height="1">',
  // Unwrapping: blocks, nested wrappers, tables, lists, pre.
  "<div>Name</div><div>Role</div><span>a</span><div>b<section>c</section>d</div>e",
  "<b>x</b><div>y</div><hr><p>z</p><dl><dt>t</dt><dd>d</dd></dl>",
  "<table><form><tr><td>a</td><td>b</td></tr></form><tbody><tr><th>h</th></tr></table>",
  "<ul><li>a<div>b</div><ul><li><font>c</font></li></ul></li></ul>",
  "<pre>\n\nx</pre><pre><span>\nx</span></pre><pre><!--c-->\ny</pre><pre><b>a</b>\nb</pre>",
  // Comments, processing instructions and foreign content.
  '<p>a&lt;b<!--c--></p><?xml:namespace prefix="o"?><svg><p>x</p></svg><math><mi>y</mi></math>',
  // Named properties that would clobber the document or a form.
  '<img name="createElement" src="/a.png" width="1" height="1"><p id="body">x</p>',
  '<form id="f"><input name="firstChild"><input name="firstChild"><input name="nextSibling">q</form>z',
  '<div><form><input name="textContent"><input name="localName">w</form></div>v',
  '<form><button id="attributes">b</button><img name="nodeType" src="/a.png" width="1" height="1"></form>',
  // Attribute values with markup characters (engines escape `<` and `>`
  // in attributes differently).
  '<img src="/a.png?x=<b>" width="1" height="1" alt="a<b>&amp;&quot;c">',
];

Deno.test("rebuild: every vector gives its expected output and the server's count", async (t) => {
  for (const vector of VECTORS) {
    await t.step(vector.name, async () => {
      const out = rebuild.counted(vector.input);
      assert.equal(out.html, vector.expected);
      const server = await sanitizeRich(vector.input, { mediaBase: MEDIA });
      assert.equal(out.removed, server.removed, "removed count");
    });
  }
});

Deno.test("rebuild: probes of its own parts equal the server (string and count), safe and stable", async (t) => {
  for (const [i, input] of PROBES.entries()) {
    await t.step(`probe #${i}: ${input.slice(0, 60)}`, async () => {
      const out = rebuild.counted(input);
      assert.deepEqual(out, await sanitizeRich(input, { mediaBase: MEDIA }));
      assertSafe(out.html, input);
      const again = rebuild.counted(out.html);
      assert.deepEqual(
        again,
        await sanitizeRich(out.html, { mediaBase: MEDIA }),
      );
      // The server's one unstable output: an emptied `is` moves after `rel`
      // on a second pass (and counts once more), then stays.
      if (!/ is=/.test(out.html)) assert.equal(again.html, out.html, "stable");
    });
  }
});

Deno.test("rebuild: without a media base srcset goes; the agreement check can fail", async () => {
  const plain = createRebuild((html) =>
    parser.parseFromString(html, "text/html")
  );
  const input =
    '<img src="/a.png" width="1" height="1" srcset="/media/a.webp 1x">';
  assert.deepEqual(plain.counted(input), await sanitizeRich(input, {}));
  assert.deepEqual(plain.counted(input), {
    html: '<img src="/a.png" width="1" height="1">',
    removed: 1,
  });
  // Different bases give different results: the comparison above can fail.
  assert.notDeepEqual(plain.counted(input), rebuild.counted(input));
  assert.throws(() => rebuild(42 as unknown as string), TypeError);
});

Deno.test("rebuild: the client never loads DOMPurify, and the rebuild never writes HTML into a DOM", async () => {
  const dir = new URL("../../client/", import.meta.url);
  const offenders: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const text = await Deno.readTextFile(new URL(entry.name, dir));
    if (/dompurify/i.test(text.replace(/^\s*(\*|\/\/).*$/gm, ""))) {
      offenders.push(entry.name);
    }
  }
  assert.deepEqual(offenders, []);
  const source = await Deno.readTextFile(
    new URL("../../core/rebuild.ts", import.meta.url),
  );
  assert.doesNotMatch(
    source,
    /(innerHTML|outerHTML)\s*\+?=|insertAdjacentHTML|\.write\(|createContextualFragment|setHTML/,
  );
});

// ------------------------------------------------------------- engines --

const bundleDir = await Deno.makeTempDir({ prefix: "cms-clean-" });
let bundled: Promise<void> | undefined;
/** The lazy chunk's module, bundled alone for the page to import. */
const bundle = () =>
  bundled ??= denoBundle([
    "--output",
    `${bundleDir}/clean.js`,
    new URL("../../client/clean.ts", import.meta.url).pathname,
  ]);

engineTest(
  "rebuild in the browser: every vector and probe equals the server",
  async (_t, browser) => {
    await bundle();
    const inputs = [...VECTORS.map((v) => v.input), ...PROBES];
    const expected = await Promise.all(
      inputs.map((html) => sanitizeRich(html, { mediaBase: MEDIA })),
    );
    const js = await Deno.readFile(`${bundleDir}/clean.js`);
    const server = serve((req) =>
      new URL(req.url).pathname === "/clean.js"
        ? new Response(js, { headers: { "content-type": "text/javascript" } })
        : new Response("<!DOCTYPE html><title>t</title><p>page</p>", {
          headers: { "content-type": "text/html; charset=utf-8" },
        })
    );
    const page = await browser.newPage();
    try {
      await page.goto(server.url + "/");
      const seen = await timeout(
        page.evaluate(async (inputs: string[]) => {
          const { sanitizerFor } = await import("/clean.js");
          const clean = sanitizerFor("/media/");
          return inputs.map((input) => clean.counted(input));
        }, inputs),
        30_000,
        "rebuild in the page",
      );
      // Byte for byte: this engine's parser and serializer give the string
      // DOMPurify on jsdom gives (attribute values with `<` and `>` too,
      // which these engine versions write as jsdom does).
      assert.equal(seen.length, inputs.length);
      for (const [i, got] of seen.entries()) {
        assert.deepEqual(got, expected[i], `#${i}: ${inputs[i].slice(0, 120)}`);
        assertSafe(got.html, inputs[i]);
      }
    } finally {
      await page.close();
      await server.close();
    }
  },
);

Deno.test({
  name: "rebuild: remove the temporary bundle",
  sanitizeResources: false,
  fn: () => Deno.remove(bundleDir, { recursive: true }),
});
