import assert from "node:assert/strict";
import sharp from "sharp";
import { HttpError } from "../../../server/http/pipeline.ts";
import { createMediaHandler } from "../../../server/media/upload.ts";
import {
  type ImageOptions,
  ImagePipeline,
} from "../../../server/image/pipeline.ts";
import { WorkQueue } from "../../../server/image/queue.ts";
import { storeImage, variantKey } from "../../../server/media/variants.ts";
import { LocalMediaStorage } from "../../../server/media/local.ts";
import { MemoryMediaStorage } from "../../../server/media/memory.ts";
import { S3MediaStorage } from "../../../s3/storage.ts";
import { sniffImage } from "../../../server/image/sniff/mod.ts";
import type { MediaStorage } from "../../../server/media/types.ts";
import {
  animated,
  bytes,
  displayP3,
  gifFrameBomb,
  phonePhoto,
  PRIVATE,
  solid,
} from "../../fixtures/images.ts";
import { startS3rver } from "../../helpers/s3rver.ts";

/** Bytes as a string of char codes 0–255 (true Latin-1, not windows-1252). */
const latin1 = (b: Uint8Array) =>
  Array.from(b, (c) => String.fromCharCode(c)).join("");

/** Sniffs, prepares and stores `data` as `key`, like the media endpoint. */
async function upload(
  data: Uint8Array,
  storage: MediaStorage,
  options: ImageOptions = {},
  key = "media/up.bin",
) {
  const info = sniffImage(data);
  assert.ok(info, "the fixture passes the sniff");
  const prepared = await new ImagePipeline(options).prepare(data, info);
  return await storeImage(
    storage,
    key.replace(/bin$/, prepared.original.ext),
    prepared,
  );
}

/** Awaits `promise` and asserts it fails with an HttpError of `status`. */
async function refused(
  promise: Promise<unknown>,
  status: number,
  reason: RegExp,
): Promise<void> {
  const err = await promise.then(() => null, (e) => e);
  assert.ok(err instanceof HttpError, `expected HttpError, got ${err}`);
  assert.equal(err.status, status);
  assert.match(err.message, reason);
}

/** The markers of a JPEG's segments before the first scan. */
function jpegMarkers(data: Uint8Array): number[] {
  const out: number[] = [];
  let i = 2;
  while (i + 4 <= data.length && data[i] === 0xff) {
    const marker = data[i + 1];
    out.push(marker);
    if (marker === 0xda) break;
    i += 2 + (data[i + 2] << 8 | data[i + 3]);
  }
  return out;
}

Deno.test("a phone photo is turned upright and loses EXIF, GPS, XMP, IPTC and comments", async () => {
  const photo = await phonePhoto(300, 200);
  const before = await sharp(photo).metadata();
  assert.equal(before.orientation, 6);
  assert.ok(before.exif && before.xmp && before.iptc, "fixture has metadata");
  const exif = latin1(before.exif);
  assert.ok(exif.includes("\x88\x25") || exif.includes("\x25\x88"), "GPS IFD");
  for (const secret of Object.values(PRIVATE)) {
    assert.ok(latin1(photo).includes(secret), secret);
  }

  const storage = new MemoryMediaStorage();
  const stored = await upload(photo, storage);
  assert.deepEqual(
    [stored.width, stored.height, stored.type, stored.processed],
    [200, 300, "image/jpeg", true],
  );
  const original = storage.get(stored.key)!.bytes;
  const after = await sharp(original).metadata();
  assert.deepEqual([after.width, after.height], [200, 300]);
  assert.equal(after.orientation, undefined);
  assert.equal(after.exif, undefined);
  assert.equal(after.xmp, undefined);
  assert.equal(after.iptc, undefined);
  assert.equal(after.icc, undefined);
  for (const secret of Object.values(PRIVATE)) {
    assert.ok(!latin1(original).includes(secret), secret);
  }
  // No APP1 (EXIF, XMP), APP13 (IPTC) or COM segment is left at all.
  const markers = jpegMarkers(original);
  assert.ok(markers.includes(0xda), "walked to the scan");
  for (const m of [0xe1, 0xed, 0xfe]) assert.ok(!markers.includes(m));
  // The red corner was stored top-left; orientation 6 puts it top-right.
  const { data, info } = await sharp(original).raw().toBuffer({
    resolveWithObject: true,
  });
  const at = (x: number, y: number) => (y * info.width + x) * info.channels;
  assert.ok(data[at(195, 4)] > 200 && data[at(195, 4) + 1] < 60, "red");
  assert.ok(data[at(4, 4)] < 160, "grey at the top-left");
});

Deno.test("an embedded colour profile is converted to sRGB, then dropped", async () => {
  const p3 = await displayP3([200, 60, 60]);
  const raw = await sharp(p3).keepIccProfile().raw().toBuffer();
  assert.ok(Math.abs(raw[0] - 200) > 8, "P3 numbers differ from sRGB");
  const storage = new MemoryMediaStorage();
  const stored = await upload(p3, storage);
  const original = storage.get(stored.key)!.bytes;
  assert.equal((await sharp(original).metadata()).icc, undefined);
  const px = await sharp(original).raw().toBuffer();
  for (const [got, want] of [[px[0], 200], [px[1], 60], [px[2], 60]]) {
    assert.ok(Math.abs(got - want) <= 3, `${got} ≈ ${want}`);
  }
});

Deno.test("variants: default widths below the image's, WebP, decoding to their stated sizes", async () => {
  const storage = new MemoryMediaStorage({ publicUrl: "https://cdn.test/m" });
  const stored = await upload(await solid(1600, 900, "jpeg"), storage);
  assert.deepEqual(
    stored.variants.map((v) => [v.width, v.height, v.type]),
    [[480, 270, "image/webp"], [960, 540, "image/webp"], [
      1440,
      810,
      "image/webp",
    ]],
  );
  for (const v of stored.variants) {
    const key = variantKey(stored.key, v.width, "webp");
    assert.equal(v.url, `https://cdn.test/m/${key}`);
    const object = storage.get(key)!;
    assert.equal(object.contentType, "image/webp");
    const meta = await sharp(object.bytes).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], [
      "webp",
      v.width,
      v.height,
    ]);
  }
  assert.deepEqual(storage.keys(), [
    "media/up-1440w.webp",
    "media/up-480w.webp",
    "media/up-960w.webp",
    "media/up.jpg",
  ]);
});

Deno.test("variants: configured widths and AVIF, never upscaled", async () => {
  const storage = new MemoryMediaStorage();
  const small = await upload(await solid(300, 200), storage, {
    widths: [100, 300, 600],
    formats: ["webp", "avif"],
  });
  assert.deepEqual(
    small.variants.map((v) => [v.width, v.height, v.type]),
    [[100, 67, "image/webp"], [100, 67, "image/avif"]],
  );
  const avif = storage.get(variantKey(small.key, 100, "avif"))!;
  assert.equal((await sharp(avif.bytes).metadata()).compression, "av1");
  const tiny = await upload(await solid(40, 40), new MemoryMediaStorage());
  assert.deepEqual(tiny.variants, []);
});

Deno.test("animated GIF and WebP keep their frames, in the original and the variants", async () => {
  for (const format of ["gif", "webp"] as const) {
    const storage = new MemoryMediaStorage();
    const stored = await upload(await animated(600, 100, 3, format), storage);
    assert.deepEqual([stored.width, stored.height], [600, 100], format);
    const original = await sharp(storage.get(stored.key)!.bytes, {
      animated: true,
    }).metadata();
    assert.equal(original.pages, 3, format);
    assert.equal(original.format, format);
    assert.deepEqual(
      stored.variants.map((v) => [v.width, v.height]),
      [[480, 80]],
    );
    const variant = await sharp(
      storage.get(variantKey(stored.key, 480, "webp"))!.bytes,
      { animated: true },
    ).metadata();
    assert.deepEqual([variant.pages, variant.pageHeight], [3, 80], format);
  }
});

Deno.test("refusals: damaged files, polyglots, bombs and budgets; nothing is stored", async () => {
  const jpg = await solid(64, 48, "jpeg");
  const pngBytes = await solid(64, 48, "png");
  const sos = jpg.findIndex((b, i) => b === 0xff && jpg[i + 1] === 0xda);
  const garbled = jpg.slice();
  garbled.fill(0x41, sos + 20, jpg.length - 2); // scan data replaced
  const badCrc = pngBytes.slice();
  badCrc[pngBytes.length - 20] ^= 0xff; // inside IDAT's last bytes or CRC
  const idat = latin1(pngBytes).indexOf("IDAT");
  const badZlib = pngBytes.slice();
  badZlib[idat + 4] ^= 0xff; // the zlib header
  const fixCrc = (data: Uint8Array, at: number) => {
    // Recompute the CRC so only the zlib stream is wrong.
    const length = new DataView(data.buffer).getUint32(at - 4);
    let c = ~0;
    for (let i = at; i < at + 4 + length; i++) {
      c ^= data[i];
      for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    }
    new DataView(data.buffer).setUint32(at + 4 + length, ~c >>> 0);
    return data;
  };
  const cases: [string, Uint8Array, ImageOptions, RegExp][] = [
    ["truncated JPEG", jpg.subarray(0, jpg.length - 40), {}, /truncated/],
    ["truncated PNG", pngBytes.subarray(0, pngBytes.length - 12), {}, /trunc/],
    ["garbage after the header", garbled, {}, /does not decode/],
    ["bad CRC", badCrc, {}, /does not decode/],
    ["bad zlib data", fixCrc(badZlib, idat), {}, /does not decode/],
    [
      "JPEG + HTML polyglot",
      bytes(jpg, "<html><script>alert(1)</script>"),
      {},
      /after the end/,
    ],
    ["PNG + ZIP polyglot", bytes(pngBytes, "PK\x03\x04rest"), {}, /after/],
    ["GIF frame bomb", gifFrameBomb(20000, 20000), {}, /too large: 20000x/],
    ["pixel budget", await solid(100, 100), { maxPixels: 9999 }, /too large/],
    [
      "budget counts every frame",
      await animated(100, 100, 3),
      { maxPixels: 29999 },
      /x 3 frames/,
    ],
    [
      "frame budget",
      await animated(20, 20, 4),
      { maxFrames: 3 },
      /Too many frames: 4/,
    ],
    [
      "animation refused",
      await animated(20, 20, 2, "webp"),
      { animated: "refuse" },
      /Animated/,
    ],
  ];
  for (const [name, data, options, reason] of cases) {
    const storage = new MemoryMediaStorage();
    await refused(upload(data, storage, options), 422, reason).catch((e) => {
      throw new Error(`${name}: ${e.message}`);
    });
    assert.deepEqual(storage.keys(), [], name);
  }
  // Zero padding after the end is not a polyglot.
  const padded = await upload(bytes(jpg, new Uint8Array(64)), {
    ...new MemoryMediaStorage(),
    put: () => Promise.resolve(),
    delete: () => Promise.resolve(),
    url: (k) => k,
  });
  assert.equal(padded.width, 64);
});

Deno.test("a failed variant put removes everything stored for the upload", async () => {
  const memory = new MemoryMediaStorage();
  const failing: MediaStorage = {
    put: (key, data, type) =>
      key.endsWith("-960w.webp")
        ? Promise.reject(new Error("disk full"))
        : memory.put(key, data, type),
    delete: (key) => memory.delete(key),
    url: (key) => memory.url(key),
  };
  await assert.rejects(
    upload(await solid(1200, 800, "jpeg"), failing),
    /disk full/,
  );
  assert.deepEqual(memory.keys(), []);
});

Deno.test("without sharp: header-only checks, one warning, processed false", async () => {
  const warnings: unknown[][] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warnings.push(args);
  try {
    let loads = 0;
    const images = new ImagePipeline({
      sharp: () => (loads++, Promise.reject(new Error("no libvips here"))),
    });
    const photo = await phonePhoto(300, 200);
    const storage = new MemoryMediaStorage();
    for (let i = 0; i < 2; i++) {
      const prepared = await images.prepare(photo, sniffImage(photo)!);
      const stored = await storeImage(storage, `media/${i}.jpg`, prepared);
      assert.equal(stored.processed, false);
      assert.deepEqual(stored.variants, []);
      assert.deepEqual([stored.width, stored.height], [300, 200]);
      assert.deepEqual(storage.get(stored.key)!.bytes, photo);
    }
    assert.equal(loads, 1);
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0][0]), /sharp could not load/);
    // The header checks still refuse.
    const polyglot = bytes(photo, "<html>");
    await refused(
      images.prepare(polyglot, sniffImage(polyglot)!),
      422,
      /after the end/,
    );
    const bomb = gifFrameBomb(20000, 20000);
    await refused(images.prepare(bomb, sniffImage(bomb)!), 422, /too large/);
  } finally {
    console.warn = warn;
  }
});

Deno.test("WorkQueue: runs at most `concurrency`, refuses beyond `waiting` with 503 + Retry-After", async () => {
  const queue = new WorkQueue({ concurrency: 2, waiting: 1, retryAfter: 7 });
  const gates: (() => void)[] = [];
  const job = () =>
    new Promise<number>((r) => gates.push(() => r(gates.length)));
  const a = queue.run(job), b = queue.run(job), c = queue.run(job);
  assert.deepEqual([queue.running, queue.waiting], [2, 1]);
  const err = await queue.run(job).catch((e) => e);
  assert.ok(err instanceof HttpError);
  assert.equal(err.status, 503);
  assert.equal(new Headers(err.headers).get("Retry-After"), "7");
  await Promise.resolve();
  assert.equal(gates.length, 2, "the third job waits");
  gates[0]();
  await a;
  for (let i = 0; i < 10 && gates.length < 3; i++) await Promise.resolve();
  assert.equal(gates.length, 3, "the third job starts when one ends");
  gates[1]();
  gates[2]();
  await Promise.all([b, c]);
  assert.deepEqual([queue.running, queue.waiting], [0, 0]);
  await assert.rejects(queue.run(() => Promise.reject(new Error("x"))), /x/);
  assert.equal(queue.running, 0, "a failed job frees its slot");
});

Deno.test("ImagePipeline: a full decoder queue answers 503", async () => {
  const images = new ImagePipeline({ concurrency: 1, waiting: 0 });
  const data = await solid(800, 600, "jpeg");
  const info = sniffImage(data)!;
  const results = await Promise.allSettled([
    images.prepare(data, info),
    images.prepare(data, info),
  ]);
  assert.equal(results[0].status, "fulfilled");
  assert.equal(results[1].status, "rejected");
  assert.equal((results[1] as PromiseRejectedResult).reason.status, 503);
});

Deno.test("local folder: original and variants stored, refusal stores nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "image-local-" });
  try {
    const storage = new LocalMediaStorage({ dir });
    const stored = await upload(await phonePhoto(1000, 600), storage);
    assert.deepEqual([stored.width, stored.height], [600, 1000]);
    assert.deepEqual(stored.variants.map((v) => v.width), [480]);
    const variant = await Deno.readFile(
      `${dir}/${variantKey(stored.key, 480, "webp")}`,
    );
    const meta = await sharp(variant).metadata();
    assert.deepEqual([meta.width, meta.height], [480, 800]);
    await storage.delete(stored.key);
    await storage.delete(stored.key); // already gone: fine
    assert.equal(await storage.open(stored.key), null);

    const empty = await Deno.makeTempDir({ prefix: "image-local-" });
    try {
      const none = new LocalMediaStorage({ dir: `${empty}/m` });
      await refused(
        upload(gifFrameBomb(20000, 20000), none),
        422,
        /too large/,
      );
      await assert.rejects(Deno.stat(`${empty}/m`), Deno.errors.NotFound);
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("S3 (s3rver): original and variants stored, refusal and cleanup leave nothing", async () => {
  await using s3 = await startS3rver({ bucket: "img" });
  const storage = new S3MediaStorage({
    endpoint: s3.endpoint,
    region: "us-east-1",
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    publicUrl: "https://cdn.test",
    pathStyle: true,
  });
  const list = async () => {
    const { AwsClient } = await import("aws4fetch");
    const client = new AwsClient({
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      region: "us-east-1",
      service: "s3",
    });
    const res = await client.fetch(`${s3.endpoint}/${s3.bucket}?list-type=2`);
    return [...(await res.text()).matchAll(/<Key>([^<]+)<\/Key>/g)]
      .map((m) => m[1]).sort();
  };
  const stored = await upload(await phonePhoto(1000, 600), storage);
  assert.deepEqual(await list(), [
    "media/up-480w.webp",
    "media/up.jpg",
  ]);
  const res = await fetch(storage.objectUrl("media/up-480w.webp"));
  assert.equal(res.headers.get("content-type"), "image/webp");
  const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
  assert.deepEqual([meta.width, meta.height], [
    stored.variants[0].width,
    stored.variants[0].height,
  ]);
  for (const key of await list()) await storage.delete(key);
  assert.deepEqual(await list(), []);

  await refused(
    upload(bytes(await solid(50, 50, "jpeg"), "<x>"), storage),
    422,
    /after/,
  );
  const failing: MediaStorage = {
    put: (key, data, type) =>
      key.endsWith("w.webp")
        ? Promise.reject(new Error("variant put failed"))
        : storage.put(key, data, type),
    delete: (key) => storage.delete(key),
    url: (key) => storage.url(key),
  };
  await assert.rejects(
    upload(await solid(1000, 500, "png"), failing),
    /variant/,
  );
  assert.deepEqual(await list(), []);
});

Deno.test("media endpoint: the answer lists variants and processed; a slow upload holds no decoder", async () => {
  const storage = new MemoryMediaStorage();
  const handler = createMediaHandler({
    authorize: () => ({ name: "Ada" }),
    storage,
    images: { concurrency: 1, waiting: 0, widths: [320] },
  });
  const post = (body: BodyInit) =>
    handler(
      new Request("https://site.example/api/cms/media", {
        method: "POST",
        body,
        duplex: "half",
      } as RequestInit),
    );
  // A slow upload: half its bytes, then it stalls until released.
  const data = await solid(640, 480, "jpeg");
  let release = () => {};
  const stalled = new Promise<void>((r) => release = r);
  const slow = post(
    new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(data.subarray(0, 100));
        await stalled;
        controller.enqueue(data.subarray(100));
        controller.close();
      },
    }),
  );
  // With one decoder and no queue, this would be a 503 if the slow upload
  // held the decoder while its body trickles in.
  const fast = await post(await solid(400, 300, "png"));
  assert.equal(fast.status, 200);
  const answer = await fast.json();
  assert.deepEqual(
    { ...answer, key: 0, url: 0 },
    {
      key: 0,
      url: 0,
      width: 400,
      height: 300,
      type: "image/png",
      variants: [{
        url: storage.url(variantKey(answer.key, 320, "webp")),
        width: 320,
        height: 240,
        type: "image/webp",
      }],
      processed: true,
    },
  );
  release();
  const late = await slow;
  assert.equal(late.status, 200);
  assert.equal((await late.json()).width, 640);
});

Deno.test("media endpoint: full queue is 503 with Retry-After; without sharp the answer says processed false", async () => {
  const storage = new MemoryMediaStorage();
  const busy = createMediaHandler({
    authorize: () => ({ name: "Ada" }),
    storage,
    images: { concurrency: 1, waiting: 0, retryAfter: 3 },
  });
  const req = (body: Uint8Array) =>
    new Request("https://site.example/api/cms/media", {
      method: "POST",
      body: body as Uint8Array<ArrayBuffer>,
    });
  const data = await solid(1200, 900, "jpeg");
  const [a, b] = await Promise.all([busy(req(data)), busy(req(data))]);
  assert.equal(a.status, 200);
  assert.equal(b.status, 503);
  assert.equal(b.headers.get("Retry-After"), "3");
  assert.match(await b.text(), /try again/);
  await a.body?.cancel();

  const warn = console.warn;
  console.warn = () => {};
  try {
    const plain = createMediaHandler({
      authorize: () => ({ name: "Ada" }),
      storage,
      images: { sharp: () => Promise.reject(new Error("no binary")) },
    });
    const res = await plain(req(data));
    const answer = await res.json();
    assert.deepEqual([answer.processed, answer.variants], [false, []]);
    assert.deepEqual(storage.get(answer.key)!.bytes, data);
  } finally {
    console.warn = warn;
  }
});
