import {
  type LocalizedRecord,
  readLocalized,
  type ResponsiveImage,
  responsiveImage,
} from "@inplace/cms";
import {
  CmsField,
  CmsImage,
  CmsList,
  CmsScript,
  type CmsState,
} from "@inplace/cms/fresh";
import { cms, content, homeOf, options } from "../cms.ts";

/** What the home page renders (the route's `page(data)`). */
export interface HomeData {
  editing: boolean;
  locale: string;
  /** Which locale each value came from: another one is not translated yet. */
  from: LocalizedRecord["from"];
  title: string;
  body: string;
  hero: ResponsiveImage | null;
  features: string[];
  /** The client's page config (edit mode only). */
  config: ReturnType<typeof cms.pageConfig>;
}

/** Reads the home page in the request's locale: drafts in edit mode. */
export async function loadHome(state: CmsState | undefined): Promise<HomeData> {
  const editing = state?.editing ?? false;
  const locale = state?.locale ?? "en";
  const page = await readLocalized(
    options.store,
    content,
    "pages",
    "home",
    locale,
    { drafts: editing },
  );
  const values = page?.values ?? {};
  const text = (value: unknown) => typeof value === "string" ? value : "";
  return {
    editing,
    locale,
    from: page?.from ?? {},
    title: text(values.title),
    body: text(values.body),
    // width, height, srcset and sizes from the upload's record.
    hero: await responsiveImage(text(values.hero), options),
    features: Array.isArray(values.features) ? values.features : [],
    // Only the routed endpoints; the page adds the editor and locales.
    config: cms.pageConfig({
      editor: state?.editor?.name,
      exit: homeOf(locale),
      settings: false,
      locale,
      locales: [{ tag: "en", url: "/" }, { tag: "de", url: "/de/" }],
    }),
  };
}

/** The home page: every field editable in place, in either language. */
export function HomePage(data: HomeData) {
  const { editing, locale, from } = data;
  return (
    <main>
      <nav>
        <a href="/">English</a> · <a href="/de/">Deutsch</a>
      </nav>
      <CmsField
        content={content}
        as="h1"
        field="pages:home:title"
        value={data.title}
        editing={editing}
        locale={locale}
        from={from.title}
      />
      {(data.hero || editing) && (
        <CmsImage
          content={content}
          field="pages:home:hero"
          image={data.hero}
          alt=""
          editing={editing}
        />
      )}
      {/* Stored rich HTML was sanitized by the save endpoint. */}
      <CmsField
        content={content}
        field="pages:home:body"
        value={data.body}
        editing={editing}
        locale={locale}
        from={from.body}
      />
      <CmsList
        content={content}
        field="pages:home:features"
        value={data.features}
        editing={editing}
        locale={locale}
        from={from.features}
      />
      {/* Edit mode only: the page config and the client (nothing for visitors). */}
      <CmsScript editing={editing} mount={cms.mount} config={data.config} />
    </main>
  );
}
