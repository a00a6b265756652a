import { CmsAlternates } from "@inplace/cms/fresh";
import { content, homeOf } from "../cms.ts";
import { define } from "../utils.ts";

export default define.page(function App({ Component, state }) {
  return (
    <html lang={state.cms?.locale ?? "en"}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1.0" />
        <title>Fresh + @inplace/cms</title>
        {/* <link rel="alternate" hreflang> for each language. */}
        <CmsAlternates content={content} href={homeOf} />
      </head>
      <body>
        <Component />
      </body>
    </html>
  );
});
