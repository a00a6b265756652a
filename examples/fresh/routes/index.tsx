import { page } from "fresh";
import { HomePage, loadHome } from "../components/HomePage.tsx";
import { define } from "../utils.ts";

export const handler = define.handlers({
  async GET(ctx) {
    return page(await loadHome(ctx.state.cms));
  },
});

export default define.page<typeof handler>(({ data }) => (
  <HomePage
    {...data}
  />
));
