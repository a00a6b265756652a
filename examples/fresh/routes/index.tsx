import { page } from "fresh";
import { CmsConfig, CmsField } from "@inplace/cms/fresh";
import CmsLoader from "../islands/CmsLoader.tsx";
import { content, store } from "../cms.ts";
import { define } from "../utils.ts";

export const handler = define.handlers({
  async GET() {
    const record = await store.get("pages", "home");
    const text = (value: unknown) => typeof value === "string" ? value : "";
    return page({
      title: text(record?.title),
      body: text(record?.body),
      hero: text(record?.hero),
      features: Array.isArray(record?.features) ? record.features : [],
    });
  },
});

export default define.page<typeof handler>(({ data, state }) => {
  const editing = state.cms?.editing ?? false;
  return (
    <main>
      <CmsField
        content={content}
        as="h1"
        field="pages:home:title"
        value={data.title}
        editing={editing}
      />
      {data.hero && (
        <CmsField
          content={content}
          field="pages:home:hero"
          value={data.hero}
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
      />
      <ul>
        {data.features.map((feature, i) => (
          <CmsField
            content={content}
            as="li"
            key={i}
            field={`pages:home:features.${i}`}
            value={feature}
            editing={editing}
          />
        ))}
      </ul>
      {editing && (
        <>
          <CmsConfig
            editing
            // No settings drawer on this site: the edit bar hides Settings.
            config={{
              editor: state.cms?.editor?.name,
              exit: "/",
              settings: false,
            }}
          />
          <CmsLoader />
        </>
      )}
    </main>
  );
});
