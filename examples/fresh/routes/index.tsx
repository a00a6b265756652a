import { page } from "fresh";
import { CmsConfig, CmsField } from "@inplace/cms/fresh";
import CmsLoader from "../islands/CmsLoader.tsx";
import { store } from "../cms.ts";
import { define } from "../utils.ts";

export const handler = define.handlers({
  async GET() {
    const record = await store.get("pages", "home");
    return page({
      title: String(record?.title ?? ""),
      body: String(record?.body ?? ""),
      features: Array.isArray(record?.features) ? record.features : [],
    });
  },
});

export default define.page<typeof handler>(({ data, state }) => {
  const editing = state.cms?.editing ?? false;
  return (
    <main>
      <CmsField
        as="h1"
        field="pages:home:title"
        value={data.title}
        editing={editing}
      />
      {/* Stored rich HTML was sanitized by the save endpoint. */}
      <CmsField
        field="pages:home:body"
        value={data.body}
        rich
        editing={editing}
      />
      <ul>
        {data.features.map((feature, i) => (
          <CmsField
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
            config={{ editor: state.cms?.editor?.name, exit: "/" }}
          />
          <CmsLoader />
        </>
      )}
    </main>
  );
});
