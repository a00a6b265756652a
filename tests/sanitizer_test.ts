import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import createDOMPurify, { type WindowLike } from "dompurify";
import { sanitizeHtml } from "../server/sanitize.ts";
import {
  createSanitizer,
  isAllowedImage,
  isAllowedUrl,
  LINK_REL,
  MAX_IMAGE_SIDE,
  type Purifier,
  SANITIZER_POLICY,
} from "../core/sanitizer.ts";
import {
  ATTACKS,
  KEEP,
  UNWRAP,
  type Vector,
  VECTORS,
} from "./sanitizer_vectors.ts";
import { createSaveHandler } from "../server/save.ts";
import { MemoryContentStore } from "../server/store/memory.ts";

const HTML_NS = "http://www.w3.org/1999/xhtml";
const BASE = new URL("https://host.example/dir/page");
// The admitted tags, written out again here as an independent oracle.
const TAGS = new Set(
  ("p br h2 h3 h4 strong b em i u s strike del a ul ol li blockquote code pre " +
    "img table caption thead tbody tfoot tr th td").split(" "),
);
const ATTRS: Record<string, readonly string[]> = {
  a: ["href", "rel", "target"],
  img: [
    "src",
    "alt",
    "width",
    "height",
    "srcset",
    "sizes",
    "loading",
    "decoding",
  ],
  th: ["colspan", "rowspan"],
  td: ["colspan", "rowspan"],
};
// Attributes admitted with one value only.
const EXACT: Record<string, string> = {
  target: "_blank",
  loading: "lazy",
  decoding: "async",
};
// deno-lint-ignore no-control-regex
const LEADING_C0 = /^[\u0000-\u0020]+/;
const checkerDocument = new JSDOM("").window.document;

/**
 * Checks the URL the way a browser resolves it, independently of the
 * policy's own helper: a listed scheme, or a relative URL that stays on the
 * page's host (so `//evil` fails).
 */
function urlOk(value: string, schemes: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return false;
  }
  if (!schemes.includes(url.protocol)) return false;
  // As the URL parser: drop tabs and newlines, then leading C0 and space.
  const cleaned = value.replace(/[\t\n\r]/g, "").replace(LEADING_C0, "");
  const explicit = /^[a-z][a-z\d+.-]*:/i.test(cleaned);
  return explicit || url.host === BASE.host;
}

/** Re-parses sanitized HTML and asserts the invariants of the policy. */
function assertSafe(html: string, label: string): void {
  const template = checkerDocument.createElement("template");
  template.innerHTML = html;
  for (const el of template.content.querySelectorAll("*")) {
    const tag = el.localName;
    const where = `${label}: <${tag}> in ${JSON.stringify(html)}`;
    assert.ok(TAGS.has(tag), `${where} not allowed`);
    assert.equal(el.namespaceURI, HTML_NS, `${where} not HTML`);
    for (const attr of el.attributes) {
      assert.ok(
        !attr.name.toLowerCase().startsWith("on"),
        `${where} ${attr.name}`,
      );
      if (attr.name === "is" && attr.value === "") continue; // inert, see vectors
      assert.ok(
        (ATTRS[tag] ?? []).includes(attr.name),
        `${where} has ${attr.name}`,
      );
      if (attr.name in EXACT) {
        assert.equal(attr.value, EXACT[attr.name], `${where} ${attr.name}`);
      }
    }
    if (tag === "a" && el.hasAttribute("href")) {
      const href = el.getAttribute("href")!;
      assert.ok(
        urlOk(href, ["http:", "https:", "mailto:", "tel:"]),
        `${where} href ${href}`,
      );
      assert.equal(el.getAttribute("rel"), LINK_REL, `${where} rel`);
    }
    if (tag === "a" && el.hasAttribute("target")) {
      assert.equal(el.getAttribute("target"), "_blank", `${where} target`);
      assert.ok(el.hasAttribute("href"), `${where} target without href`);
    }
    if (tag === "img") {
      for (const side of ["width", "height"]) {
        const value = el.getAttribute(side) ?? "";
        assert.match(value, /^[1-9]\d*$/, `${where} ${side}`);
        assert.ok(Number(value) <= MAX_IMAGE_SIDE, `${where} ${side}`);
      }
      const src = el.getAttribute("src") ?? "";
      assert.ok(urlOk(src, ["http:", "https:"]), `${where} src ${src}`);
    }
  }
}

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

Deno.test("createSanitizer installs its hooks once per instance", () => {
  const hooks: string[] = [];
  const fake: Purifier = {
    isSupported: true,
    addHook(name: string) {
      hooks.push(name);
    },
    sanitize: (html) => String(html).toUpperCase(),
  };
  const a = createSanitizer(fake);
  const b = createSanitizer(fake, { mediaBase: "/media/" });
  assert.notEqual(a, b);
  assert.deepEqual(hooks, [
    "uponSanitizeElement",
    "uponSanitizeAttribute",
    "afterSanitizeElements",
    "afterSanitizeAttributes",
  ]);
  assert.equal(a("x"), "X");
  assert.equal(b("y"), "Y");
});

Deno.test("createSanitizer refuses an unsupported DOMPurify (it would pass input through)", () => {
  const fake: Purifier = {
    isSupported: false,
    addHook() {},
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
    new URL("../core/sanitizer.ts", import.meta.url),
  );
  assert.doesNotMatch(source, /^\s*import\s+(?!type\b)/m, "only type imports");
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
