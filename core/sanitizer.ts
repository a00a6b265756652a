/**
 * The one sanitizer policy for rich fields, shared by the browser (paste
 * cleaning, the rich text editor) and the server (the save endpoint, through
 * `server/sanitize.ts` on jsdom).
 *
 * It is a DOMPurify configuration plus three hooks. This module is pure: it
 * touches no DOM and no Deno API, and importing it does nothing. The caller
 * brings a DOMPurify instance bound to a window.
 *
 * The policy:
 * - Admitted tags: `p br h2 h3 h4 strong b em i u s strike del a ul ol li
 *   blockquote code pre img`. Anything else is unwrapped (its text is kept),
 *   except script, style, template, svg, math, iframe and similar, which are
 *   dropped with their content. Comments are dropped.
 * - Attributes: `href` and `target="_blank"` (no other target) on `<a>`;
 *   `src`, `alt`, `width`, `height` on `<img>`. Nothing else: no `class`,
 *   `id`, `style`, `title`, `data-*`, `aria-*` or event handlers.
 * - `href`: `http:`, `https:`, `mailto:`, `tel:` or a relative URL. A
 *   rejected `href` is removed (with any `target`) and the `<a>` stays inert.
 *   Every `<a href>` gets `rel="noopener noreferrer nofollow"`.
 * - `<img>` stays only with `width` and `height` that are integers from 1 to
 *   10000 written plainly (`/^[1-9]\d{0,4}$/`), and a `src` that is `http:`,
 *   `https:` or relative. Otherwise the whole `<img>` is removed.
 * - Relative means path, query or fragment: protocol-relative URLs
 *   (`//host`, `\\host`) are rejected for both `href` and `src`. Tabs,
 *   newlines, control characters and Unicode spaces are ignored when the
 *   scheme is judged, as browsers ignore them when they parse the URL.
 *
 * @example Browser
 * ```ts ignore
 * import DOMPurify from "dompurify";
 * import { createSanitizer } from "./sanitizer.ts";
 *
 * // A dedicated instance: the hooks apply to every call on it.
 * const sanitize = createSanitizer(DOMPurify(window));
 * sanitize('<p onclick="x()">Hi<script>x()</script></p>'); // "<p>Hi</p>"
 * ```
 *
 * @module
 */

/** The DOMPurify options the policy sets (a subset of DOMPurify's `Config`). */
export interface SanitizerPolicy {
  /** Tags kept. */
  readonly ALLOWED_TAGS: string[];
  /** Attributes kept on some tag; the hooks narrow them per tag. */
  readonly ALLOWED_ATTR: string[];
  /** Only the HTML namespace: no SVG, no MathML. */
  readonly ALLOWED_NAMESPACES: string[];
  /** First gate for URL-valued attributes. */
  readonly ALLOWED_URI_REGEXP: RegExp;
  /** `data-*` attributes: off. */
  readonly ALLOW_DATA_ATTR: false;
  /** `aria-*` attributes: off. */
  readonly ALLOW_ARIA_ATTR: false;
  /** Unknown URL schemes: off. */
  readonly ALLOW_UNKNOWN_PROTOCOLS: false;
  /** Keep the text of unwrapped elements (never of script, style, svg...). */
  readonly KEEP_CONTENT: true;
  /** Drop comments and attributes that could break out in XML contexts. */
  readonly SAFE_FOR_XML: true;
  /** Return a plain string, never a `TrustedHTML`. */
  readonly RETURN_TRUSTED_TYPE: false;
  /** Return a string, not a DOM node. */
  readonly RETURN_DOM: false;
  /** Return a string, not a fragment. */
  readonly RETURN_DOM_FRAGMENT: false;
  /** Return the body's content only. */
  readonly WHOLE_DOCUMENT: false;
}

/** The attribute hook event DOMPurify passes to `uponSanitizeAttribute`. */
export interface AttributeHookEvent {
  /** Lower-cased attribute name. */
  readonly attrName: string;
  /** Trimmed attribute value. */
  attrValue: string;
  /** Set to false to remove the attribute. */
  keepAttr: boolean;
}

/**
 * The part of a DOMPurify instance the policy uses. A DOMPurify 3 instance
 * (`DOMPurify(window)`) satisfies it.
 */
export interface Purifier {
  /** False when the window lacks what DOMPurify needs. */
  readonly isSupported: boolean;
  /** Registers a hook that may detach the node to remove it. */
  addHook(entryPoint: "uponSanitizeElement", hook: (node: Node) => void): void;
  /** Registers a hook that decides per attribute. */
  addHook(
    entryPoint: "uponSanitizeAttribute",
    hook: (node: Element, event: AttributeHookEvent) => void,
  ): void;
  /** Registers a hook run after an element's attributes are sanitized. */
  addHook(
    entryPoint: "afterSanitizeAttributes",
    hook: (node: Element) => void,
  ): void;
  /** Sanitizes an HTML string with the given options. */
  sanitize(html: string, config: SanitizerPolicy): string;
}

/** Tags kept in stored rich HTML. */
const TAGS = [
  "p",
  "br",
  "h2",
  "h3",
  "h4",
  "strong",
  "b",
  "em",
  "i",
  "u",
  "s",
  "strike",
  "del",
  "a",
  "ul",
  "ol",
  "li",
  "blockquote",
  "code",
  "pre",
  "img",
] as const;

/** Attributes kept, per tag. Any other attribute on any tag is removed. */
const ATTRS_BY_TAG: ReadonlyMap<string, readonly string[]> = new Map([
  ["a", ["href", "target"]],
  ["img", ["src", "alt", "width", "height"]],
]);

/** The `rel` value forced on every link with an `href`. */
export const LINK_REL = "noopener noreferrer nofollow";

/** Largest accepted `width` or `height` of an `<img>`, in CSS pixels. */
export const MAX_IMAGE_SIDE = 10000;

/** Schemes a link's `href` may have (besides relative URLs). */
export const LINK_SCHEMES: readonly string[] = [
  "http",
  "https",
  "mailto",
  "tel",
];
const IMAGE_SCHEMES: readonly string[] = ["http", "https"];
const HTML_NS = "http://www.w3.org/1999/xhtml";
// Characters browsers strip from URLs (C0 controls, space, tab, newline),
// plus DEL, C1 controls and Unicode spaces, which DOMPurify also ignores.
const IGNORED_IN_URL =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u2029\u205f\u3000\ufeff]/g;
const SCHEME = /^([a-z][a-z\d+.-]*):/i;
const NETWORK_PATH = /^[\\/]{2}/;
const SIDE = /^[1-9]\d{0,4}$/;

/**
 * The DOMPurify configuration of the policy. Frozen; pass it as is.
 * `ALLOWED_URI_REGEXP` is a first gate only: the hooks installed by
 * {@linkcode createSanitizer} apply the exact per-tag rules.
 */
export const SANITIZER_POLICY: SanitizerPolicy = Object.freeze({
  // "body" is the root DOMPurify walks, never output: the HTML parser merges
  // any <body> tag into the one root. Allowing it spares DOMPurify a deep
  // clone of the whole input (server sanitize time halves). DOMPurify's
  // default allowlist has it too.
  ALLOWED_TAGS: Object.freeze([...TAGS, "body"]) as string[],
  ALLOWED_ATTR: Object.freeze([
    "href",
    "target",
    "src",
    "alt",
    "width",
    "height",
  ]) as string[],
  ALLOWED_NAMESPACES: Object.freeze([HTML_NS]) as string[],
  // http, https, mailto, tel, or no scheme at all (the hooks refine this).
  ALLOWED_URI_REGEXP:
    /^(?:(?:https?|mailto|tel):|[^a-z]|[a-z\d+.-]*(?:[^a-z\d+.:-]|$))/i,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  KEEP_CONTENT: true,
  SAFE_FOR_XML: true,
  RETURN_TRUSTED_TYPE: false,
  RETURN_DOM: false,
  RETURN_DOM_FRAGMENT: false,
  WHOLE_DOCUMENT: false,
});

/** A sanitizer bound to one DOMPurify instance: dirty HTML in, clean out. */
export type Sanitize = (html: string) => string;

/**
 * Whether `value` is an acceptable URL given the allowed schemes: a listed
 * scheme, or a relative URL that is not protocol-relative.
 *
 * @example
 * ```ts
 * import { isAllowedUrl } from "./sanitizer.ts";
 * isAllowedUrl("java\tscript:alert(1)", ["http", "https"]); // false
 * isAllowedUrl("/a.png", ["http", "https"]); // true
 * isAllowedUrl("//evil.example/a.png", ["http", "https"]); // false
 * ```
 */
export function isAllowedUrl(
  value: string,
  schemes: readonly string[],
): boolean {
  const url = value.replace(IGNORED_IN_URL, "");
  if (url === "" || NETWORK_PATH.test(url)) return false;
  const scheme = SCHEME.exec(url);
  return scheme === null || schemes.includes(scheme[1].toLowerCase());
}

/**
 * Whether an `<img>` with these raw attribute values is admitted: `width`
 * and `height` plain integers from 1 to {@linkcode MAX_IMAGE_SIDE}, `src`
 * http(s) or relative.
 */
export function isAllowedImage(
  src: string | null,
  width: string | null,
  height: string | null,
): boolean {
  return src !== null && isAllowedUrl(src.trim(), IMAGE_SCHEMES) &&
    isSide(width) && isSide(height);
}

function isSide(value: string | null): boolean {
  return value !== null && SIDE.test(value) && Number(value) <= MAX_IMAGE_SIDE;
}

function isHtmlElement(node: Node, localName: string): node is Element {
  const el = node as Element;
  return node.nodeType === 1 && el.localName === localName &&
    el.namespaceURI === HTML_NS;
}

const installed = new WeakMap<Purifier, Sanitize>();

/**
 * Installs the policy's hooks on a DOMPurify instance (once per instance)
 * and returns the function that sanitizes with the policy.
 *
 * Give it a dedicated instance, for example `DOMPurify(window)`: hooks apply
 * to every `sanitize` call on that instance. It throws when the instance
 * reports `isSupported === false`, because DOMPurify then returns its input
 * unchanged.
 *
 * @example Browser
 * ```ts ignore
 * import DOMPurify from "dompurify";
 * const sanitize = createSanitizer(DOMPurify(window));
 * sanitize('<a href="javascript:alert(1)" target="_blank">x</a>'); // "<a>x</a>"
 * ```
 *
 * @example Server (what `sanitizeHtml` does)
 * ```ts ignore
 * import { JSDOM } from "jsdom";
 * import createDOMPurify from "dompurify";
 * const sanitize = createSanitizer(createDOMPurify(new JSDOM("").window));
 * sanitize('<img src="/a.png" width="10" height="20" alt="x">');
 * // '<img src="/a.png" width="10" height="20" alt="x">'
 * ```
 */
export function createSanitizer(purify: Purifier): Sanitize {
  const existing = installed.get(purify);
  if (existing) return existing;
  if (!purify.isSupported) {
    throw new Error("DOMPurify is not supported by this window");
  }
  purify.addHook("uponSanitizeElement", (node) => {
    // A bad <img> goes entirely; DOMPurify treats a detached node as removed.
    if (
      isHtmlElement(node, "img") &&
      !isAllowedImage(
        node.getAttribute("src"),
        node.getAttribute("width"),
        node.getAttribute("height"),
      )
    ) {
      node.parentNode?.removeChild(node);
    }
  });
  purify.addHook("uponSanitizeAttribute", (node, event) => {
    const allowed = ATTRS_BY_TAG.get(node.localName) ?? [];
    if (
      !allowed.includes(event.attrName) ||
      (event.attrName === "href" &&
        !isAllowedUrl(event.attrValue, LINK_SCHEMES)) ||
      (event.attrName === "target" && event.attrValue !== "_blank")
    ) {
      event.keepAttr = false;
    }
  });
  purify.addHook("afterSanitizeAttributes", (node) => {
    if (isHtmlElement(node, "a") && node.hasAttribute("href")) {
      node.setAttribute("rel", LINK_REL);
    } else if (isHtmlElement(node, "a")) node.removeAttribute("target");
  });
  const sanitize: Sanitize = (html) => {
    if (typeof html !== "string") {
      throw new TypeError("sanitize expects a string of HTML");
    }
    return purify.sanitize(html, SANITIZER_POLICY);
  };
  installed.set(purify, sanitize);
  return sanitize;
}
