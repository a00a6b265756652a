/**
 * Save handler throughput against a bare 204 handler (`baseline: true`),
 * measured in the same run, two ways:
 *
 * - `save over HTTP`: each handler behind `Deno.serve` on 127.0.0.1, one
 *   `fetch` PATCH per iteration. This is the throughput a host sees; the
 *   goal (save ≥ 0.5× the bare handler) applies here.
 * - `save in process`: the handler called with a `Request` directly, no
 *   network. It shows the handler's own cost (body read, JSON, allowlist,
 *   store, version hash) next to a handler that does nothing.
 *
 * Run: `deno bench -A bench/server_bench.ts`
 *
 * @module
 */
import { createSaveHandler } from "../server/save/mod.ts";
import { MemoryContentStore } from "../server/store/mod.ts";

const save = createSaveHandler({
  authorize: () => ({ name: "Bench" }),
  allowlist: { pages: { title: "plain", features: "list" } },
  store: new MemoryContentStore({
    "pages:home": { title: "Hello", features: ["a", "b", "c"] },
  }),
});
const bare = (_req: Request) =>
  Promise.resolve(new Response(null, { status: 204 }));

const body = JSON.stringify({
  collection: "pages",
  key: "home",
  field: "title",
  value: "A plain title of ordinary length",
});
// What a browser's fetch sends; Deno.serve requests always carry a length.
const headers = {
  "Sec-Fetch-Site": "same-origin",
  "Content-Type": "application/json",
  "Content-Length": String(new TextEncoder().encode(body).length),
};

function listen(handler: (req: Request) => Promise<Response>): string {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  server.unref(); // let the bench process exit when it is done
  return `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/api/cms/save`;
}
const bareUrl = listen(bare);
const saveUrl = listen(save);

async function patch(url: string): Promise<void> {
  const res = await fetch(url, { method: "PATCH", body, headers });
  await res.body?.cancel();
  if (res.status !== 204) throw new Error(String(res.status));
}

Deno.bench("bare 204 handler (HTTP)", {
  group: "save over HTTP",
  baseline: true,
}, () => patch(bareUrl));

Deno.bench("save handler (HTTP, memory store, plain field)", {
  group: "save over HTTP",
}, () => patch(saveUrl));

const request = () =>
  new Request("http://localhost/api/cms/save", {
    method: "PATCH",
    body,
    headers,
  });

Deno.bench(
  "bare 204 handler",
  { group: "save in process", baseline: true },
  async () => {
    const res = await bare(request());
    if (res.status !== 204) throw new Error(String(res.status));
  },
);

Deno.bench("save handler (memory store, plain field)", {
  group: "save in process",
}, async () => {
  const res = await save(request());
  if (res.status !== 204) throw new Error(String(res.status));
});
