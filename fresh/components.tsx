/**
 * Preact helpers for server-rendered pages: a field element that carries the
 * marker attributes only in edit mode, and the tags that load the client.
 *
 * @module
 */
import { contentVersion } from "../server/version.ts";

/**
 * What the components return: a Preact element (a `VNode`), typed opaquely
 * so this module's public API does not spell out Preact's types. Render the
 * components with JSX or `h()`, as usual.
 */
export interface CmsElement {
  /** The element type. */
  readonly type: unknown;
  /** The element's props. */
  readonly props: unknown;
}

/** Props of {@linkcode CmsField}. Other attributes pass through. */
export interface CmsFieldProps {
  /** The element to render. Default `"div"`. */
  as?: string;
  /** The marker: `"<collection>:<key>:<field>"`, e.g. `"pages:home:features.2"`. */
  field: string;
  /** The stored value (plain text, or sanitized HTML when `rich`). */
  value: string | null | undefined;
  /** A rich text field: `value` is stored, sanitized HTML. */
  rich?: boolean;
  /** Render the marker attributes (edit mode). Default `false`. */
  editing?: boolean;
  /** Overrides `data-cms-version` (default: `contentVersion(value)`). */
  version?: string;
  /** CSS class of the element. */
  class?: string;
  /** Any other attribute (`id`, `lang`, `aria-*`, …), passed through. */
  [attribute: string]: unknown;
}

/**
 * Renders one editable field. In edit mode the element carries
 * `data-cms-field`, `data-cms-type="richtext"` (rich only) and
 * `data-cms-version`; otherwise it is the bare element, so visitors' HTML
 * has no markers at all.
 *
 * Plain values render as escaped text. Rich values render as raw HTML: pass
 * only what the save endpoint stored, which it sanitized on save with the
 * shared policy. Re-sanitizing here is not possible synchronously (the
 * sanitizer loads jsdom lazily); if your rich values can come from anywhere
 * else, run `sanitizeHtml` before rendering.
 *
 * @example
 * ```tsx
 * import { CmsField } from "@inplace/cms/fresh";
 * const page = { title: "Hello", body: "<p>Hi</p>", features: ["Fast"] };
 * const editing = true;
 * <main>
 *   <CmsField as="h1" field="pages:home:title" value={page.title} editing={editing} />
 *   <CmsField field="pages:home:body" value={page.body} rich editing={editing} />
 *   <ul>
 *     {page.features.map((f, i) => (
 *       <CmsField as="li" field={`pages:home:features.${i}`} value={f} editing={editing} />
 *     ))}
 *   </ul>
 * </main>;
 * ```
 */
export function CmsField(props: CmsFieldProps): CmsElement {
  const { as = "div", field, value, rich, editing, version, ...rest } = props;
  const text = value ?? "";
  const attrs: Record<string, unknown> = { ...rest };
  if (editing) {
    attrs["data-cms-field"] = field;
    if (rich) attrs["data-cms-type"] = "richtext";
    attrs["data-cms-version"] = version ?? contentVersion(text);
  }
  const Tag = as as "div";
  if (rich) {
    return <Tag {...attrs} dangerouslySetInnerHTML={{ __html: text }} />;
  }
  return <Tag {...attrs}>{text}</Tag>;
}

/** The page config the client reads from `#cms-config` (all keys optional). */
export interface CmsPageConfig {
  /** The editor's name, shown in the edit bar. */
  editor?: string;
  /** Save endpoint. Default `/api/cms/save`. */
  save?: string;
  /** Media endpoint. Default `/api/cms/media`. */
  media?: string;
  /** Where Done goes. Default: the current URL without `edit`. */
  exit?: string;
}

/**
 * Serializes a value as JSON that is safe inside an inline `<script>`:
 * `<`, `>`, `&`, U+2028 and U+2029 become `\uXXXX` escapes, so the text can
 * never close the script element or start a comment.
 *
 * @example
 * ```ts
 * import { scriptJson } from "@inplace/cms/fresh";
 * scriptJson({ t: "</script>" }); // '{"t":"\\u003c/script\\u003e"}'
 * ```
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/** Props of {@linkcode CmsConfig}. */
export interface CmsConfigProps {
  /** Render only in edit mode. */
  editing?: boolean;
  /** Endpoints, editor name and exit URL for the client. */
  config?: CmsPageConfig;
}

/**
 * The `<script type="application/json" id="cms-config">` element the client
 * reads, only in edit mode. Use it with your own loader (e.g. a Fresh
 * island); {@linkcode CmsScript} renders it for you.
 *
 * @example
 * ```tsx
 * import { CmsConfig } from "@inplace/cms/fresh";
 * <CmsConfig editing config={{ editor: "Ada", exit: "/" }} />;
 * ```
 */
export function CmsConfig(props: CmsConfigProps): CmsElement | null {
  if (!props.editing) return null;
  return (
    <script
      type="application/json"
      id="cms-config"
      dangerouslySetInnerHTML={{ __html: scriptJson(props.config ?? {}) }}
    />
  );
}

/** Props of {@linkcode CmsScript}. */
export interface CmsScriptProps extends CmsConfigProps {
  /** URL of the built client module (it exports `mountCms`). */
  src: string;
  /** CSP nonce for the inline scripts, if your host uses one. */
  nonce?: string;
}

/**
 * In edit mode: the `#cms-config` script plus a module script that
 * lazy-imports the client from `src` and calls `mountCms()`. Otherwise it
 * renders nothing, so visitors download no editor code.
 *
 * @example
 * ```tsx
 * import { CmsScript } from "@inplace/cms/fresh";
 * const editing = true;
 * <body>
 *   …
 *   <CmsScript editing={editing} src="/cms/mod.js" config={{ editor: "Ada" }} />
 * </body>;
 * ```
 */
export function CmsScript(props: CmsScriptProps): CmsElement | null {
  if (!props.editing) return null;
  const loader = `import(${scriptJson(props.src)}).then((m) => m.mountCms())` +
    `.catch((e) => console.error("cms: client failed to load", e));`;
  return (
    <>
      <CmsConfig editing config={props.config} />
      <script
        type="module"
        nonce={props.nonce}
        dangerouslySetInnerHTML={{ __html: loader }}
      />
    </>
  );
}
