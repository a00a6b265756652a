import { define } from "../utils.ts";

export default define.page(function App({ Component }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Fresh + @inplace/cms</title>
        <style>{"img{max-width:100%;height:auto}"}</style>
      </head>
      <body>
        <Component />
      </body>
    </html>
  );
});
