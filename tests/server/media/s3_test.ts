import assert from "node:assert/strict";
import { AwsClient } from "aws4fetch";
import { S3MediaStorage } from "../../../s3/storage.ts";
import { startS3rver } from "../../helpers/s3rver.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7]);
const region = "us-east-1";

const base = {
  region,
  bucket: "media",
  accessKeyId: "K",
  secretAccessKey: "S",
  publicUrl: "https://cdn.example.com/",
};

/** Signed GET of an object, path-style, straight from s3rver. */
async function fetchObject(endpoint: string, path: string) {
  const client = new AwsClient({
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    service: "s3",
    region,
  });
  const res = await client.fetch(`${endpoint}/${path}`);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

Deno.test("S3MediaStorage: path-style and virtual-hosted object URLs", () => {
  const path = new S3MediaStorage({
    ...base,
    endpoint: "http://127.0.0.1:9000/",
    pathStyle: true,
  });
  assert.equal(
    path.objectUrl("a/b.png"),
    "http://127.0.0.1:9000/media/a/b.png",
  );
  const vhost = new S3MediaStorage({
    ...base,
    endpoint: "https://s3.eu-west-1.amazonaws.com",
  });
  assert.equal(
    vhost.objectUrl("a/b.png"),
    "https://media.s3.eu-west-1.amazonaws.com/a/b.png",
  );
  const withPath = new S3MediaStorage({
    ...base,
    endpoint: "https://minio.example.com/s3/",
    pathStyle: true,
  });
  assert.equal(
    withPath.objectUrl("x"),
    "https://minio.example.com/s3/media/x",
  );
});

Deno.test("S3MediaStorage: keys are URL-encoded per segment", () => {
  const s3 = new S3MediaStorage({ ...base, endpoint: "https://s3.test" });
  assert.equal(
    s3.objectUrl("a b/c+d/(1)!*'é?#.png"),
    "https://media.s3.test/a%20b/c%2Bd/%281%29%21%2A%27%C3%A9%3F%23.png",
  );
});

// Put, read back with its type, replace, delete, list and url on s3rver:
// storage_contract_test.ts.

Deno.test("S3MediaStorage: a wrong secret fails with the S3 error code", async () => {
  await using s3rver = await startS3rver();
  const storage = new S3MediaStorage({
    ...s3rver,
    secretAccessKey: "not-the-secret",
    region,
    publicUrl: "https://cdn.example.com",
    pathStyle: true,
  });
  await assert.rejects(
    storage.put("media/x.png", PNG, "image/png"),
    /403 SignatureDoesNotMatch/,
  );
  const got = await fetchObject(s3rver.endpoint, "media/media/x.png");
  assert.equal(got.status, 404);
});

Deno.test("S3MediaStorage: a missing bucket fails with NoSuchBucket", async () => {
  await using s3rver = await startS3rver();
  const storage = new S3MediaStorage({
    ...s3rver,
    bucket: "nope",
    region,
    publicUrl: "https://cdn.example.com",
    pathStyle: true,
  });
  await assert.rejects(
    storage.put("x.png", PNG, "image/png"),
    /404 NoSuchBucket/,
  );
});

// Virtual-hosted addressing needs `media.s3.localhost` to reach 127.0.0.1,
// which this machine's resolver does not do, so requests go through an HTTP
// proxy client pointed at s3rver itself (absolute-form request, real Host
// header). s3rver routes the bucket from the Host header, but its SigV4 check
// signs `/<bucket>/<key>` even for virtual-hosted requests (real S3 signs
// `/<key>`), so a correct signature cannot match there: this test turns
// signature checking off. Signatures are proven by the path-style tests.
Deno.test("S3MediaStorage: virtual-hosted put lands in the bucket (s3rver)", async () => {
  await using s3rver = await startS3rver({
    serviceEndpoint: "localhost",
    allowMismatchedSignatures: true,
  });
  const port = new URL(s3rver.endpoint).port;
  const client = Deno.createHttpClient({ proxy: { url: s3rver.endpoint } });
  const realFetch = globalThis.fetch;
  const seen: string[] = [];
  globalThis.fetch = (input, init) => {
    seen.push(input instanceof Request ? input.url : String(input));
    return realFetch(input, { ...init, client });
  };
  try {
    const storage = new S3MediaStorage({
      ...s3rver,
      endpoint: `http://s3.localhost:${port}`,
      region,
      publicUrl: "https://cdn.example.com",
    });
    await storage.put("media/v.png", PNG, "image/png");
    assert.deepEqual(seen, [`http://media.s3.localhost:${port}/media/v.png`]);
  } finally {
    globalThis.fetch = realFetch;
    client.close();
  }
  const got = await fetchObject(s3rver.endpoint, "media/media/v.png");
  assert.equal(got.status, 200);
  assert.equal(got.type, "image/png");
  assert.deepEqual(got.bytes, PNG);
});
