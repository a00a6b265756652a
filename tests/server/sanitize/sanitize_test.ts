import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import createDOMPurify, { type WindowLike } from "dompurify";
import { sanitizeHtml, sanitizeRich } from "../../../server/sanitize/pool.ts";
import {
  createSanitizer,
  type DomElement,
  isAllowedImage,
  isAllowedUrl,
  type Purifier,
  SANITIZER_POLICY,
} from "../../../core/sanitizer.ts";
import { ATTACKS, KEEP, UNWRAP, type Vector, VECTORS } from "./_vectors.ts";
import { assertSafe } from "./_safety.ts";
import { createSaveHandler } from "../../../server/save/handler.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";

async function checkVector(t: Deno.TestContext, vector: Vector): Promise<void> {
  await t.step(vector.name, async () => {
    const out = await sanitizeHtml(vector.input);
    assert.equal(out, vector.expected);
    assertSafe(out, vector.name);
    assert.equal(await sanitizeHtml(out), out, "sanitize is idempotent");
  });
}

Deno.test("sanitizer vectors: at least 60, unique names", () => {
  assert.ok(VECTORS.length >= 60, `${VECTORS.length} vectors`);
  assert.equal(new Set(VECTORS.map((v) => v.name)).size, VECTORS.length);
  assert.ok(ATTACKS.length >= 60, `${ATTACKS.length} attack vectors`);
});

Deno.test("sanitizer keeps benign rich text", async (t) => {
  for (const vector of KEEP) await checkVector(t, vector);
});

Deno.test("sanitizer unwraps harmless unknown elements, keeping text", async (t) => {
  for (const vector of UNWRAP) await checkVector(t, vector);
});

Deno.test("sanitizer neutralizes XSS and mXSS vectors", async (t) => {
  for (const vector of ATTACKS) await checkVector(t, vector);
});

Deno.test("sanitizer safety check rejects unsafe markup (it can fail)", () => {
  const unsafe = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    '<a href="javascript:alert(1)" rel="noopener noreferrer nofollow">x</a>',
    '<a href="/x">no rel</a>',
    '<img src="/a.png" width="10px" height="1">',
    '<img src="//evil.example/a.png" width="1" height="1">',
    '<img src="data:image/png;base64,AA" width="1" height="1">',
    '<p class="x">c</p>',
    "<svg></svg>",
  ];
  for (const html of unsafe) {
    assert.throws(
      () => assertSafe(html, "self-test"),
      assert.AssertionError,
      html,
    );
  }
});

Deno.test("sanitizer: seeded fuzz of vector fragments stays safe and stable", async () => {
  // mulberry32: a small deterministic PRNG.
  let seed = 0x5eed;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pieces = VECTORS.flatMap((v) => v.input.split(/(?=<)|(?<=>)/));
  for (let i = 0; i < 300; i++) {
    let html = "";
    const count = 1 + Math.floor(random() * 8);
    for (let j = 0; j < count; j++) {
      html += pieces[Math.floor(random() * pieces.length)];
    }
    const out = await sanitizeHtml(html);
    assertSafe(out, `fuzz #${i} from ${JSON.stringify(html)}`);
    assert.equal(await sanitizeHtml(out), out, `fuzz #${i} idempotent`);
  }
});

Deno.test("sanitizer: the same policy on two fresh jsdom instances agrees", async () => {
  const [first, second] = [0, 1].map(() =>
    createSanitizer(
      createDOMPurify(new JSDOM("").window as unknown as WindowLike),
    )
  );
  assert.notEqual(first, second);
  for (const vector of VECTORS) {
    const expected = await sanitizeHtml(vector.input);
    assert.equal(first(vector.input), expected, vector.name);
    assert.equal(second(vector.input), expected, vector.name);
  }
});

Deno.test("createSanitizer installs its hooks once per instance; the <pre> hook only around a value with <pre", () => {
  const hooks: string[] = [];
  const during: string[][] = [];
  const fake: Purifier = {
    isSupported: true,
    addHook(name: string) {
      hooks.push(name);
    },
    removeHook(name: string) {
      hooks.splice(hooks.lastIndexOf(name), 1);
    },
    sanitize: (html) => {
      during.push([...hooks]);
      return String(html).toUpperCase();
    },
  };
  const a = createSanitizer(fake);
  const b = createSanitizer(fake, { mediaBase: "/media/" });
  assert.notEqual(a, b);
  // The link hook is not among them: it is registered per link.
  const installed = ["uponSanitizeElement", "uponSanitizeAttribute"];
  assert.deepEqual(hooks, installed);
  assert.equal(a("x"), "X");
  assert.equal(b("<PRE>y"), "<PRE>Y");
  assert.deepEqual(during, [
    installed,
    [...installed, "afterSanitizeElements"],
  ]);
  assert.deepEqual(hooks, installed); // removed again after the call
});

Deno.test("links are fixed without a hook per element, the last node of a value too", () => {
  const { window } = new JSDOM("");
  const purify = createDOMPurify(window as unknown as WindowLike);
  const entries: string[] = [];
  const addHook = purify.addHook.bind(purify);
  purify.addHook = ((name: string, hook: unknown) => {
    entries.push(name);
    return (addHook as (n: string, h: unknown) => void)(name, hook);
  }) as typeof purify.addHook;
  const sanitize = createSanitizer(purify as unknown as Purifier);
  const rel = 'rel="noopener noreferrer nofollow"';
  assert.equal(
    sanitize(
      '<p class="x">a <a href="/a" target="_blank">b</a> <b>c</b>' +
        '<a target="_top">d</a><a href="/e"></a></p>',
    ),
    `<p>a <a href="/a" target="_blank" ${rel}>b</a> <b>c</b>` +
      `<a>d</a><a href="/e" ${rel}></a></p>`,
  );
  assert.ok(!entries.includes("afterSanitizeAttributes"), String(entries));
  // A link that is the value's last node, with and without an address.
  assert.deepEqual(sanitize.counted('x<a target="_top"></a>'), {
    html: "x<a></a>",
    removed: 1,
  });
  assert.deepEqual(sanitize.counted('<a href="https://a.example/"></a>'), {
    html: `<a href="https://a.example/" ${rel}></a>`,
    removed: 0,
  });
  // And in place.
  const doc = new JSDOM('<a href="/x" target="_blank" onclick="y()"></a>')
    .window.document;
  assert.equal(sanitize.inPlace(doc.body as unknown as DomElement), 1);
  assert.equal(
    doc.body.innerHTML,
    `<a href="/x" target="_blank" ${rel}></a>`,
  );
});

Deno.test("createSanitizer refuses an unsupported DOMPurify (it would pass input through)", () => {
  const fake: Purifier = {
    isSupported: false,
    addHook() {},
    removeHook() {},
    sanitize: (html) => html,
  };
  assert.throws(() => createSanitizer(fake), /not supported/);
});

Deno.test("sanitizeHtml refuses non-strings", async () => {
  for (const value of [42, null, undefined, { toString: () => "<script>" }]) {
    await assert.rejects(
      () => sanitizeHtml(value as unknown as string),
      TypeError,
    );
  }
});

Deno.test("sanitizer policy module is pure and frozen", async () => {
  const source = await Deno.readTextFile(
    new URL("../../../core/sanitizer.ts", import.meta.url),
  );
  // Values only from core/ siblings (the URL rule lives in core/url.ts).
  assert.doesNotMatch(
    source,
    /^\s*import\s+(?!type\b)(?![^;]*from "\.\/\w+\.ts";)/m,
    "only type imports, or values from core/",
  );
  assert.doesNotMatch(source, /\bDeno\./, "no Deno APIs");
  assert.ok(Object.isFrozen(SANITIZER_POLICY));
  assert.ok(Object.isFrozen(SANITIZER_POLICY.ALLOWED_TAGS));
  assert.ok(Object.isFrozen(SANITIZER_POLICY.ALLOWED_ATTR));
  assert.equal(SANITIZER_POLICY.RETURN_TRUSTED_TYPE, false);
  assert.equal(SANITIZER_POLICY.KEEP_CONTENT, true);
});

Deno.test("isAllowedUrl and isAllowedImage decide as documented", () => {
  const link = ["http", "https", "mailto"];
  const cases: [string, boolean][] = [
    ["https://example.com/", true],
    ["HTTP://example.com/", true],
    ["mailto:a@example.com", true],
    ["/a", true],
    ["a/b:c", true],
    ["#x", true],
    ["?q", true],
    ["", false],
    ["//evil.example", false],
    ["\\\\evil.example", false],
    ["/\\evil.example", false],
    ["\t//evil.example", false],
    ["javascript:alert(1)", false],
    [" \u0001java\nscript:alert(1)", false],
    ["data:text/html,x", false],
    ["tel:1", false],
  ];
  for (const [url, ok] of cases) assert.equal(isAllowedUrl(url, link), ok, url);
  assert.equal(isAllowedImage("/a.png", "1", "10000"), true);
  assert.equal(isAllowedImage("/a.png", "1", "10001"), false);
  assert.equal(isAllowedImage("/a.png", "99999", "1"), false);
  assert.equal(isAllowedImage("mailto:a@example.com", "1", "1"), false);
  assert.equal(isAllowedImage(null, "1", "1"), false);
  assert.equal(isAllowedImage("/a.png", null, "1"), false);
});

Deno.test("save endpoint answers too-complex rich HTML with 413 and stores nothing", async () => {
  const store = new MemoryContentStore({ "pages:home": { body: "<p>Hi</p>" } });
  const save = createSaveHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { body: "rich" } },
    store,
  });
  const formatting = Array.from({ length: 200 }, (_, i) => `<b id=${i}>`);
  const value = "<p>" + formatting.join("") + "x" + "<p>y".repeat(2000);
  const res = await save(
    new Request("https://site.example/api/cms/save", {
      method: "PATCH",
      headers: {
        "content-type": "application/json",
        "sec-fetch-site": "same-origin",
      },
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "body",
        value,
      }),
    }),
  );
  assert.equal(res.status, 413);
  assert.match(await res.text(), /too complex/);
  assert.deepEqual(await store.get("pages", "home"), { body: "<p>Hi</p>" });
});

Deno.test("a <frameset> that replaces the body is removed and counted, never a 500", async () => {
  for (
    const html of [
      "<frameset onload=alert(1)>",
      '<div id="31"><frameset onload=alert(31)>//x</div>',
      "<b></b><frameset><frame src=x></frameset>",
      "<!--c--> <frameset></frameset><p>after</p>",
    ]
  ) {
    const { html: out, removed } = await sanitizeRich(html);
    assertSafe(out, html);
    assert.ok(removed > 0, `${html}: removed ${removed}`);
  }
  // Text before it keeps the body: the parser ignores the frameset tag (as
  // it ignores a stray end tag; neither is an element, neither is counted).
  assert.equal(await sanitizeHtml("<p>x</p><frameset>y"), "<p>x</p>y");
});
