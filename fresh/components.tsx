/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/**
 * Preact helpers for server-rendered pages: a field element that carries the
 * marker attributes only in edit mode, and the tags that load the client.
 *
 * @module
 */
import { formatAddress, parseAddress } from "../core/address.ts";
import { localizeAddress } from "../core/locale.ts";
import {
  type Allowlist,
  type FieldAddressOf,
  type FieldKind,
  fieldSpec,
  localesOf,
  markerType,
} from "../core/content.ts";
import {
  FALLBACK_ATTRIBUTE,
  LOCALE_ATTRIBUTE,
} from "../core/locale_markers.ts";
import { contentVersion } from "../core/version.ts";

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

/** What every {@linkcode CmsField} takes, whatever names the field. */
export interface CmsFieldCommonProps {
  /** The element to render. Default `"div"` (`"img"` for an image field). */
  as?: string;
  /**
   * The stored value: plain text, sanitized HTML (rich), or an image URL
   * (image fields render it as `src`).
   */
  value: string | null | undefined;
  /** Render the marker attributes (edit mode). Default `false`. */
  editing?: boolean;
  /** Overrides `data-cms-version` (default: `contentVersion(value)`). */
  version?: string;
  /**
   * The page's locale (a declared one). In edit mode the marker names it:
   * `data-cms-field="pages:home:title@de"` (the plain address for the
   * default locale) and `data-cms-locale="de"`, so a save writes that
   * locale's value. Neither on a shared field, which has one value for all
   * locales.
   */
  locale?: string;
  /**
   * The locale `value` came from (`readLocalized`'s `from[field]`). When it
   * is not `locale` (a fallback), the marker also gets
   * `data-cms-fallback="en"`, and the editor marks the region "not
   * translated yet"; typing there creates the locale's own value.
   */
  from?: string;
  /** CSS class of the element. */
  class?: string;
  /** Any other attribute (`id`, `lang`, `alt`, `aria-*`, …), passed through. */
  [attribute: string]: unknown;
}

/**
 * Props of {@linkcode CmsField}. With `content` (a
 * {@linkcode defineContent} result, or any allowlist), the field's kind
 * comes from it and `field` must name a declared field: a misspelling is a
 * type error. Without `content`, `field` is any marker text and `rich` says
 * whether the value is HTML.
 */
export type CmsFieldProps<C extends Allowlist = Allowlist> =
  & CmsFieldCommonProps
  & (
    | {
      /** The content declaration the field belongs to. */
      content: C;
      /** The marker: `"<collection>:<key>:<field>"`, e.g. `"pages:home:features.2"`. */
      field: FieldAddressOf<C>;
      /** Not used: the kind comes from `content`. */
      rich?: never;
    }
    | {
      /** No declaration: the kind is plain, or rich with `rich`. */
      content?: undefined;
      /** The marker: `"<collection>:<key>:<field>"`, e.g. `"pages:home:features.2"`. */
      field: string;
      /** A rich text field: `value` is stored, sanitized HTML. */
      rich?: boolean;
    }
  );

/**
 * Renders one editable field. In edit mode the element carries
 * `data-cms-field`, `data-cms-type` (from the field's kind: `richtext` for
 * rich, `image` for image, none for plain and list items),
 * `data-cms-label` (the declared `label`, if any) and `data-cms-version`; otherwise it is the bare element, so visitors' HTML
 * has no markers at all.
 *
 * Plain values render as escaped text; image values as the `src` of an
 * `<img>` (pass `alt`). Rich values render as raw HTML: pass only what the
 * save endpoint stored, which it sanitized on save with the shared policy.
 * Re-sanitizing here is not possible synchronously (the sanitizer loads
 * jsdom lazily); if your rich values can come from anywhere else, run
 * `sanitizeHtml` before rendering.
 *
 * Throws a `TypeError` when `content` is given and `field` is not a valid
 * address of a declared field (possible only past the type checker).
 *
 * @example
 * ```tsx
 * import { CmsField } from "@inplace/cms/fresh";
 * import { defineContent, list } from "@inplace/cms";
 * const content = defineContent({
 *   pages: { title: "plain", body: "rich", hero: "image", features: list() },
 * });
 * const page = { title: "Hello", body: "<p>Hi</p>", hero: "/media/a.png", features: ["Fast"] };
 * const editing = true;
 * <main>
 *   <CmsField content={content} as="h1" field="pages:home:title" value={page.title} editing={editing} />
 *   <CmsField content={content} field="pages:home:body" value={page.body} editing={editing} />
 *   <CmsField content={content} field="pages:home:hero" value={page.hero} alt="" editing={editing} />
 *   <ul>
 *     {page.features.map((f, i) => (
 *       <CmsField content={content} as="li" field={`pages:home:features.${i}`} value={f} editing={editing} />
 *     ))}
 *   </ul>
 * </main>;
 * ```
 *
 * @example In one of several languages
 * ```tsx
 * import { CmsField } from "@inplace/cms/fresh";
 * import { defineContent } from "@inplace/cms";
 * const content = defineContent({ pages: { title: "plain" } }, { locales: ["en", "de"] });
 * // data-cms-field="pages:home:title@de" data-cms-locale="de": a save
 * // writes the German title.
 * <CmsField content={content} as="h1" field="pages:home:title" value="Hallo" locale="de" editing />;
 * // A fallback value from `readLocalized`: data-cms-fallback="en" too.
 * <CmsField content={content} as="h1" field="pages:home:title" value="Hello" locale="de" from="en" editing />;
 * ```
 *
 * @example Without a declaration (hand-written allowlist)
 * ```tsx
 * import { CmsField } from "@inplace/cms/fresh";
 * <CmsField field="pages:home:body" value="<p>Hi</p>" rich editing />;
 * ```
 */
export function CmsField<C extends Allowlist>(
  props: CmsFieldProps<C>,
): CmsElement {
  const {
    as,
    content,
    field,
    value,
    rich,
    editing,
    version,
    locale,
    from,
    ...rest
  } = props;
  const [kind, label, shared]: [FieldKind, string?, boolean?] = content
    ? kindOf(content, field, locale)
    : [rich ? "rich" : "plain"];
  const text = value ?? "";
  const attrs: Record<string, unknown> = { ...rest };
  if (editing) {
    attrs["data-cms-field"] = localized(content, field, locale);
    const type = markerType(kind);
    if (type) attrs["data-cms-type"] = type;
    if (label) attrs["data-cms-label"] = label;
    attrs["data-cms-version"] = version ?? contentVersion(text);
    if (locale !== undefined && !shared) {
      attrs[LOCALE_ATTRIBUTE] = locale;
      if (from !== undefined && from !== locale) {
        attrs[FALLBACK_ATTRIBUTE] = from;
      }
    }
  }
  const Tag = (as ?? (kind === "image" ? "img" : "div")) as "div";
  if (kind === "image") {
    // No value, no `src`: `src=""` shows a broken image and may refetch the page.
    if (text) attrs.src = text;
    return <Tag {...attrs} />;
  }
  if (kind === "rich") {
    return <Tag {...attrs} dangerouslySetInnerHTML={{ __html: text }} />;
  }
  return <Tag {...attrs}>{text}</Tag>;
}

/**
 * The marker text of `field` in `locale`: the address with the locale in
 * its field part (`pages:home:title@de`), so that a save names the locale;
 * unchanged for the default locale and shared fields (`localizeAddress`).
 */
function localized(
  content: Allowlist | undefined,
  field: string,
  locale: string | undefined,
): string {
  const address = locale === undefined ? field : parseAddress(field);
  if (typeof address === "string" || address.locale !== undefined) {
    return field;
  }
  const stored = content
    ? localizeAddress(content, { ...address, locale })
    : { ...address, locale };
  return typeof stored === "string" ? field : formatAddress(stored);
}

/** The kind, declared label and sharedness of the field (or list item)
 * `field` names in `content`; a `locale` it does not declare throws. */
function kindOf(
  content: Allowlist,
  field: string,
  locale: string | undefined,
): [FieldKind, string | undefined, boolean] {
  const address = parseAddress(field);
  const spec = typeof address === "string"
    ? undefined
    : fieldSpec(content, address.collection, address.field);
  const isItem = typeof address !== "string" && address.index !== undefined;
  if (!spec || isItem !== (spec.kind === "list")) {
    throw new TypeError(`CmsField: ${JSON.stringify(field)} is not declared`);
  }
  if (locale !== undefined && !localesOf(content)?.locales.includes(locale)) {
    throw new TypeError(`CmsField: unknown locale ${JSON.stringify(locale)}`);
  }
  return [isItem ? "plain" : spec.kind, spec.label, spec.shared === true];
}

/** Props of {@linkcode CmsAlternates}. */
export interface CmsAlternatesProps {
  /** A content declaration with locales. */
  content: Allowlist;
  /** The URL of this page in `locale`, e.g. `(l) => l === "en" ? "/" : `/${l}/``. */
  href: (locale: string) => string;
}

/**
 * The `<link rel="alternate" hreflang>` tags of a page in every declared
 * locale, and `x-default` for the default locale, for the page's `<head>`.
 * Throws a `TypeError` when `content` declares no locales.
 *
 * @example
 * ```tsx
 * import { CmsAlternates } from "@inplace/cms/fresh";
 * import { defineContent } from "@inplace/cms";
 * const content = defineContent({ pages: { title: "plain" } }, { locales: ["en", "de"] });
 * <head>
 *   <CmsAlternates content={content} href={(l) => l === "en" ? "/" : `/${l}/`} />
 * </head>;
 * ```
 */
export function CmsAlternates(props: CmsAlternatesProps): CmsElement {
  const config = localesOf(props.content);
  if (!config) throw new TypeError("CmsAlternates: content has no locales");
  const link = (hreflang: string, locale: string) => (
    <link
      key={hreflang}
      rel="alternate"
      hreflang={hreflang}
      href={props.href(locale)}
    />
  );
  return (
    <>
      {config.locales.map((locale) => link(locale, locale))}
      {link("x-default", config.defaultLocale)}
    </>
  );
}

/** Props of {@linkcode CmsList}. */
export interface CmsListProps<C extends Allowlist = Allowlist> {
  /** The content declaration the list belongs to (its limits and label). */
  content?: C;
  /**
   * The whole list's address, no item index: `"pages:home:features"` (see
   * `ListAddressOf`).
   */
  field: string;
  /** The stored items. */
  value: readonly string[] | null | undefined;
  /** Render the markers (edit mode). Default `false`. */
  editing?: boolean;
  /** The container element. Default `"ul"`. */
  as?: string;
  /** Each item's element. Default `"li"`. */
  itemAs?: string;
  /** Fewest items (default: the declared `min`, else 0). */
  min?: number;
  /** Most items (default: the declared `max`, else none). */
  max?: number;
  /** CSS class of the container. */
  class?: string;
  /** CSS class of each item. */
  itemClass?: string;
  /** The page's locale, as on {@linkcode CmsField} (container and items). */
  locale?: string;
  /**
   * The locale `value` came from, as on {@linkcode CmsField}: a fallback
   * list's container gets `data-cms-fallback`.
   */
  from?: string;
  /** Any other attribute of the container, passed through. */
  [attribute: string]: unknown;
}

/**
 * Renders a list field whose items editors can add, remove and reorder in
 * place: a container with `data-cms-list` (the list's address),
 * `data-cms-version` (of the whole list), `data-cms-min` / `data-cms-max`
 * (from the declaration's `list({ min, max })`) and `data-cms-label`, with
 * one item marker per item (`features.0`, `features.1`, …). Not editing, it
 * is the bare list. Throws a `TypeError` when `content` is given and
 * `field` is not a declared list.
 *
 * @example
 * ```tsx
 * import { CmsList } from "@inplace/cms/fresh";
 * import { defineContent, list } from "@inplace/cms";
 * const content = defineContent({ pages: { features: list({ min: 1, max: 6 }) } });
 * <CmsList content={content} field="pages:home:features" value={["Fast", "Small"]} editing />;
 * ```
 */
export function CmsList<C extends Allowlist>(
  props: CmsListProps<C>,
): CmsElement {
  const {
    content,
    field,
    value,
    editing,
    as,
    itemAs,
    min,
    max,
    itemClass,
    locale,
    from,
    ...rest
  } = props;
  const items = value ?? [];
  const address = parseAddress(field);
  const spec = content && typeof address !== "string"
    ? fieldSpec(content, address.collection, address.field)
    : undefined;
  if (
    typeof address === "string" || address.index !== undefined ||
    (content && spec?.kind !== "list")
  ) {
    throw new TypeError(`CmsList: ${JSON.stringify(field)} is not a list`);
  }
  if (
    content && locale !== undefined &&
    !localesOf(content)?.locales.includes(locale)
  ) {
    throw new TypeError(`CmsList: unknown locale ${JSON.stringify(locale)}`);
  }
  const marker = localized(content, field, locale);
  const attrs: Record<string, unknown> = { ...rest };
  if (editing) {
    attrs["data-cms-list"] = marker;
    attrs["data-cms-version"] = contentVersion([...items]);
    const low = min ?? spec?.min, high = max ?? spec?.max;
    if (low !== undefined) attrs["data-cms-min"] = String(low);
    if (high !== undefined) attrs["data-cms-max"] = String(high);
    if (spec?.label) attrs["data-cms-label"] = spec.label;
    if (locale !== undefined && !spec?.shared) {
      attrs[LOCALE_ATTRIBUTE] = locale;
      if (from !== undefined && from !== locale) {
        attrs[FALLBACK_ATTRIBUTE] = from;
      }
    }
  }
  const Tag = (as ?? "ul") as "ul";
  return (
    <Tag {...attrs}>
      {items.map((item, i) => (
        <CmsField
          key={i}
          as={itemAs ?? "li"}
          class={itemClass}
          field={`${marker}.${i}`}
          value={item}
          editing={editing}
          {...editing && locale !== undefined && !spec?.shared
            ? { [LOCALE_ATTRIBUTE]: locale }
            : {}}
        />
      ))}
    </Tag>
  );
}

/** The page config the client reads from `#cms-config` (all keys optional). */
export interface CmsPageConfig {
  /** The editor's name, shown in the edit bar. */
  editor?: string;
  /** Save endpoint. Default `/api/cms/save`. */
  save?: string;
  /** Media endpoint. Default `/api/cms/media`. */
  media?: string;
  /** History endpoint, e.g. `/api/cms/history`. Default: none (no History). */
  history?: string;
  /**
   * Media library endpoint, e.g. `/api/cms/media/library`, where the host
   * routes `createMediaLibraryHandler`: image panels offer "Choose from
   * library". Default: none.
   */
  library?: string;
  /**
   * Show Settings (fires `cms:open-drawer`). Default `true`; `false` hides
   * it on a site without a settings drawer.
   */
  settings?: boolean;
  /**
   * Public base URL of uploaded media (the media storage's `url("")`): pasted
   * or restored `srcset` under it is kept in the editor.
   */
  mediaBase?: string;
  /** Where Done goes. Default: the current URL without `edit`. */
  exit?: string;
  /**
   * Publish endpoint (publish mode `draft`), e.g. `/api/cms/publish`: the
   * edit bar marks drafts and offers Publish and Discard. Its siblings
   * `drafts` and `discard` are in the same folder.
   */
  publish?: string;
  /**
   * Schedule listing endpoint, e.g. `/api/cms/schedule`, where a scheduler
   * fires schedules: with `publish`, the edit bar offers "Publish at…".
   * Absent: no scheduling.
   */
  schedule?: string;
  /**
   * Editor event stream, e.g. `/api/cms/events`: editors see each other and
   * saved values arrive live. Absent: off.
   */
  events?: string;
  /** The page's locale, on a site with locales (e.g. `"de"`). */
  locale?: string;
  /**
   * The site's locales and this page's URL in each, e.g.
   * `[{ tag: "en", url: "/" }, { tag: "de", url: "/de/" }]`: with `locale`,
   * the edit bar offers a locale switcher and counts untranslated fields.
   */
  locales?: { tag: string; url: string }[];
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
