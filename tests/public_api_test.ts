/**
 * The public API is deliberate: `@inplace/cms` and `@inplace/cms/core`
 * export by name what a host uses, and no internals; PostgreSQL and S3 live
 * in their own entry points.
 *
 * @module
 */
import assert from "node:assert/strict";
import * as root from "../mod.ts";
import * as core from "../core/mod.ts";
import * as postgres from "../postgres/mod.ts";
import * as s3 from "../s3/mod.ts";

const INTERNALS = [
  "QUIET_MS",
  "KV_MAX_PUBLISH",
  "imageEnd",
  "errorFacts",
  "jsonLines",
  "draftStore",
  "importSharp",
  "flattenUnwrapped",
  "outsideBody",
  "protectPreNewline",
  "URI_GATE",
  "log",
  "annotateRequest",
  "readBody",
  "checkOrigin",
  "storeImage",
  "ImagePipeline",
];

Deno.test("public API: no internals in @inplace/cms or @inplace/cms/core", () => {
  for (const name of INTERNALS) {
    assert.ok(!(name in root), `@inplace/cms exports ${name}`);
    assert.ok(!(name in core), `@inplace/cms/core exports ${name}`);
  }
  for (const module of [root, core]) {
    const source = Deno.readTextFileSync(
      new URL(
        module === root ? "../mod.ts" : "../core/mod.ts",
        import.meta.url,
      ),
    );
    // Names only: a re-export of a whole module would bring its internals.
    assert.doesNotMatch(source, /^export \* from "\.\.?\/(?!wire)/m);
  }
});

Deno.test("public API: what a host wires is there; backends are separate", () => {
  for (
    const name of [
      "createSaveHandler",
      "createMediaHandler",
      "createHistoryHandler",
      "createDraftsHandler",
      "createPublishHandler",
      "createDiscardHandler",
      "createPreviewHandler",
      "createClientHandler",
      "defineContent",
      "KvContentStore",
      "MemoryContentStore",
      "LocalMediaStorage",
      "MemoryMediaStorage",
      "serveLocalMedia",
      "setLogger",
      "serveGracefully",
      "HttpError",
      "endpoint",
    ]
  ) {
    assert.equal(
      typeof (root as Record<string, unknown>)[name],
      "function",
      name,
    );
  }
  assert.ok(!("PostgresContentStore" in root) && !("S3MediaStorage" in root));
  assert.equal(typeof postgres.PostgresContentStore, "function");
  assert.equal(typeof s3.S3MediaStorage, "function");
  assert.equal(typeof core.createSanitizer, "function");
  assert.equal(typeof core.parseAddress, "function");
});
