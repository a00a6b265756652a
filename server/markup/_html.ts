/**
 * Escaped HTML for the marker helpers: text, attribute strings and whole
 * elements, written the way `preact-render-to-string` writes them, so a
 * template-string host and a Preact host send the same bytes.
 *
 * @module
 */

/**
 * An attribute value a helper accepts: text or a number (written as is),
 * `true` (the bare attribute name), `false`, `null` or `undefined` (left
 * out, except `data-*` and `aria-*`, where `false` is the text "false").
 */
export type AttributeValue = string | number | boolean | null | undefined;

/** Attributes by name, in the order they are written. */
export type Attributes = Record<string, AttributeValue>;

const ESCAPE = /[&<"]/g;
const ENTITY: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  '"': "&quot;",
};

/**
 * `text` escaped for an HTML text node or a double-quoted attribute value:
 * `&`, `<` and `"` become character references.
 *
 * @example
 * ```ts
 * import { escapeHtml } from "./_html.ts";
 * escapeHtml('a < "b" & c'); // "a &lt; &quot;b&quot; &amp; c"
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(ESCAPE, (c) => ENTITY[c]);
}

// deno-lint-ignore no-control-regex
const NAME = /^[^\s"'<>/=\x00-\x1f\x7f]+$/;

/**
 * The attributes as one escaped string, `name="value"` pairs separated by
 * a space (no leading space); `""` when none. A name that is not a valid
 * attribute name throws a `TypeError`: it would break the tag.
 *
 * @example
 * ```ts
 * import { attributeString } from "./_html.ts";
 * attributeString({ id: "a", hidden: true, title: undefined }); // 'id="a" hidden'
 * ```
 */
export function attributeString(attrs: Attributes): string {
  const out: string[] = [];
  for (const [name, raw] of Object.entries(attrs)) {
    if (!NAME.test(name)) {
      throw new TypeError(`Invalid attribute name ${JSON.stringify(name)}`);
    }
    const value = raw === false && /^(data|aria)-/.test(name) ? "false" : raw;
    if (value === null || value === undefined || value === false) continue;
    out.push(
      value === true || value === ""
        ? name
        : `${name}="${escapeHtml(String(value))}"`,
    );
  }
  return out.join(" ");
}

const TAG = /^[a-z][a-z0-9-]*$/i;
const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

/**
 * One element: `<tag attrs>html</tag>`, or `<tag attrs/>` for a void
 * element (`img`, `link`, …), which takes no content. `html` is written
 * as is: escape text with {@linkcode escapeHtml} first. A tag name that is
 * not a plain HTML name throws a `TypeError`.
 *
 * @example
 * ```ts
 * import { element } from "./_html.ts";
 * element("h1", { class: "t" }, "Hi"); // '<h1 class="t">Hi</h1>'
 * element("img", { src: "/a.png" }); // '<img src="/a.png"/>'
 * ```
 */
export function element(tag: string, attrs: Attributes, html = ""): string {
  if (!TAG.test(tag)) {
    throw new TypeError(`Invalid tag name ${JSON.stringify(tag)}`);
  }
  const text = attributeString(attrs);
  const open = text ? `<${tag} ${text}` : `<${tag}`;
  return VOID.has(tag.toLowerCase()) ? `${open}/>` : `${open}>${html}</${tag}>`;
}
