/**
 * One media storage contract, run unchanged against the local, memory and
 * S3 (s3rver) storages: put, url and delete, the listing, content types,
 * the readiness probe, and the keys a storage refuses.
 */
import assert from "node:assert/strict";
import { AwsClient } from "aws4fetch";
import { LocalMediaStorage } from "../../../server/media/local.ts";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";
import { S3MediaStorage } from "../../../s3/storage.ts";
import type { ListableMediaStorage } from "../../../server/media/types.ts";
import { startS3rver } from "../../helpers/s3rver.ts";
import { UNSAFE_LOCAL_KEYS } from "./_keys.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7]);

/** The public base every storage is given (the trailing slash is dropped). */
const PUBLIC = "https://cdn.example.com/m/";

/** An object as read straight from where the storage keeps it. */
interface Read {
  bytes: Uint8Array;
  type: string;
}

interface Opened extends AsyncDisposable {
  storage: ListableMediaStorage;
  /** Reads `key` behind the storage's back; `null` when not stored. */
  read(key: string): Promise<Read | null>;
  /** Keys this storage refuses with a `TypeError` (none: an empty list). */
  refused: string[];
  /**
   * The same kind of storage, reachable, to probe with `check()` where the
   * test server cannot answer this one's probe (see the S3 setup).
   */
  probe?: ListableMediaStorage;
}
type Open = () => Promise<Opened>;
type Case = (open: Open) => Promise<void>;

/** The stored keys, sorted. */
async function keys(storage: ListableMediaStorage): Promise<string[]> {
  return (await Array.fromAsync(storage.list())).map((o) => o.key).sort();
}

const cases: Record<string, Case> = {
  "put, url and delete round trip": async (open) => {
    await using s = await open();
    await s.storage.put("media/2f1c.png", PNG, "image/png");
    assert.deepEqual(await s.read("media/2f1c.png"), {
      bytes: PNG,
      type: "image/png",
    });
    assert.equal(
      s.storage.url("media/2f1c.png"),
      "https://cdn.example.com/m/media/2f1c.png",
    );
    await s.storage.delete("media/2f1c.png");
    assert.equal(await s.read("media/2f1c.png"), null);
    assert.deepEqual(await keys(s.storage), []);
  },

  "url is the public base, a slash, the key encoded per segment": async (
    open,
  ) => {
    await using s = await open();
    assert.equal(
      s.storage.url("m/a b.png"),
      "https://cdn.example.com/m/m/a%20b.png",
    );
    assert.equal(s.storage.url("m/u.png"), "https://cdn.example.com/m/m/u.png");
    assert.equal(
      s.storage.url("a b.png"),
      "https://cdn.example.com/m/a%20b.png",
    );
    assert.equal(s.storage.url(""), "https://cdn.example.com/m/");
  },

  "odd but ordinary keys are stored as given": async (open) => {
    await using s = await open();
    const odd = [
      "media/2f1c.png",
      "odd key/c+d (1).png",
      "2024/05/a-480w.webp",
    ];
    for (const key of odd) {
      await s.storage.put(key, PNG, "image/png");
      assert.deepEqual(
        await s.read(key),
        { bytes: PNG, type: "image/png" },
        key,
      );
    }
    assert.deepEqual(await keys(s.storage), [...odd].sort());
  },

  "the content type is kept, and a second put replaces the object": async (
    open,
  ) => {
    await using s = await open();
    await s.storage.put("media/2f1c.png", PNG, "image/png");
    await s.storage.put("media/2f1c.png", new Uint8Array([1, 2]), "image/webp");
    assert.deepEqual(await s.read("media/2f1c.png"), {
      bytes: new Uint8Array([1, 2]),
      type: "image/webp",
    });
    await s.storage.put("b.avif", PNG, "image/avif");
    assert.equal((await s.read("b.avif"))?.type, "image/avif");
    const listed = await Array.fromAsync(s.storage.list());
    assert.deepEqual(
      listed.map((o) => [o.key, o.size]).sort(),
      [["b.avif", PNG.length], ["media/2f1c.png", 2]],
    );
  },

  "the stored bytes are the ones given at put, not later changes": async (
    open,
  ) => {
    await using s = await open();
    const bytes = PNG.slice();
    await s.storage.put("img/a.png", bytes, "image/png");
    bytes[0] = 0;
    assert.deepEqual((await s.read("img/a.png"))?.bytes, PNG);
  },

  "delete of a missing key resolves": async (open) => {
    await using s = await open();
    await s.storage.delete("none.png");
    await s.storage.delete("never/was/there.png");
    await s.storage.put("kept.png", PNG, "image/png");
    await s.storage.delete("kept-not.png");
    await s.storage.delete("kept.png");
    await s.storage.delete("kept.png"); // twice
    assert.deepEqual(await keys(s.storage), []);
  },

  "list() sees what was put and not what was deleted": async (open) => {
    await using s = await open();
    assert.deepEqual(await keys(s.storage), []);
    const before = Date.now() - 60_000;
    await s.storage.put("a.png", PNG, "image/png");
    await s.storage.put("b/c.webp", new Uint8Array(3), "image/webp");
    await s.storage.put("b/d-480w.webp", new Uint8Array(5), "image/webp");
    await s.storage.delete("a.png");
    const listed = await Array.fromAsync(s.storage.list());
    assert.deepEqual(
      listed.map((o) => [o.key, o.size]).sort(),
      [["b/c.webp", 3], ["b/d-480w.webp", 5]],
    );
    for (const o of listed) {
      assert.equal(new Date(o.modified).toISOString(), o.modified, o.key);
      assert.ok(Date.parse(o.modified) >= before, o.modified);
      assert.ok(Date.parse(o.modified) <= Date.now() + 60_000, o.modified);
    }
  },

  "check() resolves when the storage is reachable": async (open) => {
    await using s = await open();
    const probe = s.probe ?? s.storage;
    await probe.check?.();
    await probe.put("a.png", PNG, "image/png");
    await probe.check?.();
  },

  "a refused key rejects with a TypeError and stores nothing": async (
    open,
  ) => {
    await using s = await open();
    for (const key of s.refused) {
      const name = JSON.stringify(key);
      await assert.rejects(
        s.storage.put(key, PNG, "image/png"),
        TypeError,
        name,
      );
      await assert.rejects(s.storage.delete(key), TypeError, name);
      assert.equal(await s.read(key), null, name);
    }
    assert.deepEqual(await keys(s.storage), []);
  },
};

/** Registers every case as a step of one test per storage. */
function contract(
  name: string,
  setup: () => Promise<{ open: Open } & AsyncDisposable>,
) {
  Deno.test(`media storage contract: ${name}`, async (t) => {
    await using env = await setup();
    for (const [title, run] of Object.entries(cases)) {
      await t.step(title, () => run(env.open));
    }
  });
}

const none = { [Symbol.asyncDispose]: () => Promise.resolve() };

contract("MemoryMediaStorage", () =>
  Promise.resolve({
    open: () => {
      const storage = new MemoryMediaStorage({ publicUrl: PUBLIC });
      const read = (key: string) => {
        const got = storage.get(key);
        return Promise.resolve(
          got && { bytes: got.bytes, type: got.contentType },
        );
      };
      return Promise.resolve({ storage, read, refused: [], ...none });
    },
    ...none,
  }));

contract("LocalMediaStorage (temp dir)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "media-contract-" });
  let n = 0;
  return {
    open: async () => {
      const folder = `${dir}/${++n}`;
      await Deno.mkdir(folder);
      const storage = new LocalMediaStorage({ dir: folder, publicUrl: PUBLIC });
      const read = async (key: string) => {
        const opened = await storage.open(key);
        if (!opened) return null;
        const bytes = new Uint8Array(
          await new Response(opened.file.readable).arrayBuffer(),
        );
        return { bytes, type: opened.contentType };
      };
      return { storage, read, refused: [...UNSAFE_LOCAL_KEYS], ...none };
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
});

// s3rver refuses the signature of a path-style `HEAD /<bucket>/`, the
// request `check()` sends (403 SignatureDoesNotMatch; the same request
// without the slash passes), so `check()` is probed on a second s3rver that
// accepts mismatched signatures. Every other case runs with signatures
// checked.
contract("S3MediaStorage (s3rver)", async () => {
  const s3rver = await startS3rver();
  let lenient;
  try {
    lenient = await startS3rver({ allowMismatchedSignatures: true });
  } catch (err) {
    await s3rver.close();
    throw err;
  }
  const region = "us-east-1";
  const admin = new AwsClient({
    accessKeyId: s3rver.accessKeyId,
    secretAccessKey: s3rver.secretAccessKey,
    service: "s3",
    region,
  });
  let n = 0;
  return {
    open: async () => {
      // A bucket of its own for each case, so listings start empty.
      const bucket = `contract-${++n}`;
      const made = await admin.fetch(`${s3rver.endpoint}/${bucket}`, {
        method: "PUT",
      });
      await made.body?.cancel();
      assert.ok(made.ok, `create bucket: ${made.status}`);
      const storage = new S3MediaStorage({
        ...s3rver,
        bucket,
        region,
        publicUrl: PUBLIC,
        pathStyle: true,
      });
      /** Signed GET of the object, path-style, straight from s3rver. */
      const read = async (key: string) => {
        const path = key.split("/").map(encodeURIComponent).join("/");
        const res = await admin.fetch(`${s3rver.endpoint}/${bucket}/${path}`);
        if (res.status === 404) {
          await res.body?.cancel();
          return null;
        }
        assert.equal(res.status, 200, key);
        return {
          bytes: new Uint8Array(await res.arrayBuffer()),
          type: res.headers.get("content-type") ?? "",
        };
      };
      const probe = new S3MediaStorage({
        ...lenient,
        region,
        publicUrl: PUBLIC,
        pathStyle: true,
      });
      return { storage, read, refused: [], probe, ...none };
    },
    async [Symbol.asyncDispose]() {
      try {
        await lenient.close();
      } finally {
        await s3rver.close();
      }
    },
  };
});
