/**
 * The structural safety check shared by the sanitizer tests, written
 * independently of the policy in `core/sanitizer.ts` (its own tag and
 * attribute lists, URLs judged as a browser resolves them).
 *
 * @module
 */
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { LINK_REL, MAX_IMAGE_SIDE } from "../../../core/sanitizer.ts";

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

/**
 * Re-parses sanitized HTML and asserts the invariants of the policy: only
 * allowlisted HTML tags and attributes, no event handler, exact values where
 * one value is admitted, and every `href`, `src` and `srcset` URL a scheme
 * the policy admits (so no `javascript:` or `data:`) or same-host relative.
 */
export function assertSafe(html: string, label: string): void {
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
      const srcset = el.getAttribute("srcset");
      if (srcset !== null) {
        for (const candidate of srcset.split(",")) {
          const url = candidate.trim().split(/\s+/)[0];
          assert.ok(urlOk(url, ["http:", "https:"]), `${where} srcset ${url}`);
        }
      }
    }
  }
}
