/**
 * Every handler parses what the client sent totally: a malformed `Host` or
 * request target over real HTTP (where `req.url` is built from the Host
 * header) is a 4xx, logged as one JSON record, never a 500.
 */
import assert from "node:assert/strict";
import { createHistoryHandler } from "../../../server/history/handler.ts";
import { createMediaHandler } from "../../../server/media/upload.ts";
import {
  LocalMediaStorage,
  serveLocalMedia,
} from "../../../server/media/local.ts";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";
import { type LogLine, setLogger } from "../../../server/ops/log.ts";
import { requestUrl } from "../../../server/http/origin.ts";
import {
  createPreviewHandler,
  PreviewSigner,
} from "../../../server/drafts/preview.ts";
import {
  createDiscardHandler,
  createDraftsHandler,
  createPublishHandler,
} from "../../../server/drafts/mod.ts";
import { createSaveHandler, draftStore } from "../../../server/save/handler.ts";
import {
  createLivenessHandler,
  createReadinessHandler,
} from "../../../server/health/checks.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { HttpError } from "../../../server/http/pipeline.ts";
import { rawStatus } from "../../helpers/serve.ts";

const BAD_HOSTS = (port: number) => [
  `127.0.0.1:${port}.`,
  "a, b",
  "a b",
  "[::1",
  "x:99999",
  "%",
  "a/b",
  "a?b",
  "a#b",
  "a@b",
  `127.0.0.1:${port}:1`,
  "",
];

Deno.test("requestUrl: plain host[:port] only", () => {
  const at = (host: string) =>
    new Request("http://example.com/p", { headers: { Host: host } });
  for (
    const host of [
      "example.com",
      "EXAMPLE.com:8000",
      "127.0.0.1:65535",
      "[::1]:8000",
      "my_service:80",
      "example.com.",
    ]
  ) {
    assert.equal(requestUrl(at(host)).pathname, "/p", host);
  }
  for (const host of BAD_HOSTS(8000)) {
    assert.throws(
      () => requestUrl(at(host)),
      (e: unknown) => e instanceof HttpError && e.status === 400,
      host,
    );
  }
  assert.equal(requestUrl(new Request("http://x/q")).pathname, "/q");
});

Deno.test("every handler: a malformed Host over real HTTP is 400 (logged), never 5xx", async () => {
  const store = new MemoryContentStore();
  const authorize = () => ({ name: "Ada" });
  const allowlist = { pages: { title: "plain" as const } };
  const dir = await Deno.makeTempDir({ prefix: "cms-host-" });
  const endpoints: [string, (req: Request) => Promise<Response>][] = [
    ["save", createSaveHandler({ authorize, allowlist, store })],
    ["history", createHistoryHandler({ authorize, allowlist, store })],
    [
      "media",
      createMediaHandler({ authorize, storage: new MemoryMediaStorage() }),
    ],
    [
      "drafts",
      createDraftsHandler({ authorize, allowlist, store: draftStore(store) }),
    ],
    [
      "publish",
      createPublishHandler({ authorize, allowlist, store: draftStore(store) }),
    ],
    [
      "discard",
      createDiscardHandler({ authorize, allowlist, store: draftStore(store) }),
    ],
    [
      "preview",
      createPreviewHandler({
        authorize,
        signer: new PreviewSigner("s".repeat(32)),
      }),
    ],
  ];
  const others: [string, (req: Request) => Promise<Response>][] = [
    ["healthz", createLivenessHandler()],
    ["readyz", createReadinessHandler({ checks: {} })],
    [
      "local media",
      serveLocalMedia(new LocalMediaStorage({ dir, publicUrl: "/media" })),
    ],
  ];
  const lines: LogLine[] = [];
  const previous = setLogger((line) => lines.push(line));
  try {
    for (const [name, handler] of [...endpoints, ...others]) {
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        handler,
      );
      const { port } = server.addr as Deno.NetAddr;
      try {
        for (const host of BAD_HOSTS(port)) {
          for (const method of ["GET", "POST", "PATCH"]) {
            lines.length = 0;
            const status = await rawStatus(
              port,
              `${method} /x?field=pages:home:title HTTP/1.1\r\nHost: ${host}\r\n` +
                "Content-Length: 0\r\nConnection: close\r\n\r\n",
            );
            const what = `${name} ${method} ${host}`;
            assert.ok(status >= 200 && status < 500, `${what}: ${status}`);
            if (endpoints.some(([n]) => n === name)) {
              // 405 for a method the endpoint does not take comes first.
              assert.ok(status === 400 || status === 405, `${what}: ${status}`);
              assert.equal(lines.length, 1, what);
              assert.equal(lines[0].status, status);
            }
          }
        }
      } finally {
        await server.shutdown();
      }
    }
  } finally {
    setLogger(previous);
    await Deno.remove(dir, { recursive: true });
  }
});
