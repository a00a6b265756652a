/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/**
 * Preact helpers for server-rendered pages: a field element that carries the
 * marker attributes only in edit mode, and the tags that load the client.
 *
 * @module
 */
import type { Allowlist, FieldAddressOf } from "../core/content.ts";
import {
  alternateLinks,
  type Attributes,
  clientScript,
  type CmsPageConfig,
  type CmsScriptOptions,
  CONFIG_ATTRIBUTES,
  type FieldMarkupOptions,
  type FieldName,
  fieldParts,
  type ImageMarkupOptions,
  imageParts,
  imageShown,
  itemMarkersOf,
  type ListMarkupOptions,
  resolveList,
  type ResponsiveImage,
  scriptJson,
} from "../server/markup/mod.ts";

export { type CmsPageConfig, scriptJson } from "../server/markup/mod.ts";

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
  & FieldName<C>;

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
): CmsElement | null {
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
  const { tag, attrs, kind, text, none } = fieldParts(
    {
      as,
      content,
      field,
      value,
      rich,
      editing,
      version,
      locale,
      from,
    } as FieldMarkupOptions,
    rest as Attributes,
    "CmsField",
  );
  if (none) return null;
  const Tag = tag as "div";
  if (kind === "image") return <Tag {...attrs} />;
  if (kind === "rich") {
    return <Tag {...attrs} dangerouslySetInnerHTML={{ __html: text }} />;
  }
  return <Tag {...attrs}>{text}</Tag>;
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
  return (
    <>
      {alternateLinks(props, "CmsAlternates").map((link) => (
        <link key={link.hreflang as string} {...link} />
      ))}
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
  const options: ListMarkupOptions = {
    content,
    field,
    value,
    editing,
    min,
    max,
    locale,
    from,
  };
  const list = resolveList(options, "CmsList");
  const Item = (itemAs ?? "li") as "li";
  const Tag = (as ?? "ul") as "ul";
  return (
    <Tag {...rest as Attributes} {...list.markers}>
      {(value ?? []).map((item, i) => (
        <Item key={i} class={itemClass} {...itemMarkersOf(options, list, i)}>
          {item}
        </Item>
      ))}
    </Tag>
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
      {...CONFIG_ATTRIBUTES}
      dangerouslySetInnerHTML={{ __html: scriptJson(props.config ?? {}) }}
    />
  );
}

/**
 * Props of {@linkcode CmsScript}: the config, and the client's `mount`
 * module (`cms.mount`) or its entry `src`.
 */
export type CmsScriptProps = CmsScriptOptions;

/**
 * In edit mode: the `#cms-config` script plus a module script that loads
 * the client: its `mount` module (`<script type="module" src>`, no inline
 * script), or an inline loader that imports the entry `src` and calls
 * `mountCms()`. Otherwise it renders nothing, so visitors download no
 * editor code.
 *
 * @example
 * ```tsx
 * import { CmsScript } from "@inplace/cms/fresh";
 * const editing = true;
 * <body>
 *   …
 *   <CmsScript editing={editing} mount="/api/cms/client/mount.js" config={{ editor: "Ada" }} />
 * </body>;
 * ```
 */
export function CmsScript(props: CmsScriptProps): CmsElement | null {
  if (!props.editing) return null;
  const script = clientScript(props);
  return (
    <>
      <CmsConfig editing config={props.config} />
      {script?.html
        ? (
          <script
            {...script.attrs}
            dangerouslySetInnerHTML={{ __html: script.html }}
          />
        )
        : script && <script {...script.attrs} />}
    </>
  );
}

/**
 * Props of {@linkcode CmsImage}: an image field, named as on
 * {@linkcode CmsField}, and its responsive image.
 */
export type CmsImageProps<C extends Allowlist = Allowlist> =
  & Omit<CmsFieldCommonProps, "value" | "as">
  & {
    /** `responsiveImage`'s answer for the field's stored URL. */
    image: ResponsiveImage | null | undefined;
  }
  & (
    | {
      /** The content declaration the field belongs to. */
      content: C;
      /** The image field's address, e.g. `"pages:home:hero"`. */
      field: FieldAddressOf<C>;
    }
    | {
      /** No declaration: `field` is any image field's address. */
      content?: undefined;
      /** The image field's address, e.g. `"pages:home:hero"`. */
      field: string;
    }
  );

/**
 * An image field as an `<img>` that is responsive for visitors: `src`,
 * `width`, `height`, `srcset` and `sizes` from `responsiveImage` (the
 * upload record), and in edit mode the field's markers, so the editor can
 * replace it. Pass `alt`. Throws a `TypeError` when `content` is given and
 * `field` is not a declared image field.
 *
 * @example
 * ```tsx
 * import { CmsImage } from "@inplace/cms/fresh";
 * import { MemoryContentStore, MemoryMediaStorage, responsiveImage } from "@inplace/cms";
 * const cms = { store: new MemoryContentStore(), storage: new MemoryMediaStorage() };
 * const hero = "/media/a.jpg"; // the stored value of pages:home:hero
 * <CmsImage field="pages:home:hero" image={await responsiveImage(hero, cms)} alt="" editing />;
 * ```
 */
export function CmsImage<C extends Allowlist>(
  props: CmsImageProps<C>,
): CmsElement | null {
  const { content, field, image, editing, version, locale, from, ...rest } =
    props;
  const attrs = imageParts(
    {
      content,
      field,
      image,
      editing,
      version,
      locale,
      from,
    } as ImageMarkupOptions,
    rest as Attributes,
    "CmsImage",
  );
  return imageShown(props as ImageMarkupOptions) ? <img {...attrs} /> : null;
}
