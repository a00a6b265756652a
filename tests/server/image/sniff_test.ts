import assert from "node:assert/strict";
import { imageEnd, sniffImage } from "../../../server/image/sniff/mod.ts";
import {
  animated,
  avif,
  avifGrid,
  bytes,
  gif,
  gifFrameBomb,
  html,
  jpeg,
  lyingAvif,
  png,
  pngHeader,
  randomBytes,
  solid,
  svg,
  webpVp8,
  webpVp8l,
  webpVp8x,
} from "../../fixtures/images.ts";

Deno.test("sniffImage reads type and dimensions of each raster format", async () => {
  const cases: [Uint8Array, string, string, number, number][] = [
    [await png(7, 5), "image/png", "png", 7, 5],
    [gif(300, 2), "image/gif", "gif", 300, 2],
    [jpeg(640, 480), "image/jpeg", "jpg", 640, 480],
    [jpeg(33, 44, 0xc2), "image/jpeg", "jpg", 33, 44], // progressive SOF2
    [webpVp8(1920, 1080), "image/webp", "webp", 1920, 1080],
    [webpVp8l(16383, 1), "image/webp", "webp", 16383, 1],
    [webpVp8x(16777216, 3), "image/webp", "webp", 16777216, 3],
    [avif(4032, 3024), "image/avif", "avif", 4032, 3024],
    [avif(10, 20, "avis"), "image/avif", "avif", 10, 20],
  ];
  for (const [data, type, ext, width, height] of cases) {
    assert.deepEqual(sniffImage(data), { type, ext, width, height, frames: 1 });
  }
});

Deno.test("sniffImage ignores the bytes' surroundings (subarray views)", () => {
  const data = gif(4, 9);
  const padded = bytes([1, 2, 3], data);
  assert.deepEqual(sniffImage(padded.subarray(3)), {
    type: "image/gif",
    ext: "gif",
    width: 4,
    height: 9,
    frames: 1,
  });
});

Deno.test("sniffImage rejects non-images: SVG, HTML, empty, random, text", () => {
  assert.equal(sniffImage(svg), null);
  assert.equal(sniffImage(html), null);
  assert.equal(sniffImage(new Uint8Array(0)), null);
  assert.equal(
    sniffImage(new TextEncoder().encode("GIF is not an image")),
    null,
  );
  for (let seed = 1; seed <= 200; seed++) {
    assert.equal(sniffImage(randomBytes(64, seed)), null, `seed ${seed}`);
  }
});

Deno.test("sniffImage rejects every truncated header", async () => {
  const headers: [string, Uint8Array, number][] = [
    ["png", await png(2, 2), 33],
    ["gif", gif(2, 2), 20],
    ["jpeg", jpeg(2, 2), 40],
    ["vp8", webpVp8(2, 2), 30],
    ["vp8l", webpVp8l(2, 2), 25],
    ["vp8x", webpVp8x(2, 2), 30],
  ];
  for (const [name, data, needed] of headers) {
    for (let n = 0; n < needed; n++) {
      assert.equal(
        sniffImage(data.subarray(0, n)),
        null,
        `${name} cut at ${n}`,
      );
    }
    assert.notEqual(sniffImage(data.subarray(0, needed)), null, name);
  }
  const full = avif(2, 2);
  const ispeEnd = new TextDecoder("latin1").decode(full).indexOf("ispe") + 16;
  for (let n = 0; n < ispeEnd; n++) {
    assert.equal(sniffImage(full.subarray(0, n)), null, `avif cut at ${n}`);
  }
  // Cut after the size box, the item tables or the AV1 data are missing:
  // never a clean answer.
  for (let n = ispeEnd; n < full.length; n++) {
    const cut = sniffImage(full.subarray(0, n));
    assert.ok(cut === null || cut.conflict, `avif cut at ${n}`);
  }
});

Deno.test("sniffImage rejects zero dimensions in every format", () => {
  for (
    const data of [
      pngHeader(0, 5),
      pngHeader(5, 0),
      gif(0, 3),
      gif(3, 0),
      jpeg(0, 10),
      jpeg(10, 0),
      webpVp8(0, 10),
      avif(0, 10),
      avif(10, 0),
    ]
  ) {
    assert.equal(sniffImage(data), null);
  }
});

Deno.test("sniffImage rejects a PNG signature with a bad IHDR", () => {
  const good = pngHeader(10, 10);
  const wrongLength = good.slice();
  wrongLength[11] = 12;
  const wrongType = good.slice();
  wrongType[12] = "X".charCodeAt(0);
  const huge = good.slice();
  huge.set([0x80, 0, 0, 0], 16); // width 2^31
  for (const data of [wrongLength, wrongType, huge]) {
    assert.equal(sniffImage(data), null);
  }
  assert.notEqual(sniffImage(good), null);
});

Deno.test("sniffImage rejects JPEGs without a frame header before the scan", () => {
  const noSof = bytes([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xda, 0, 2]);
  const eoi = bytes([0xff, 0xd8, 0xff, 0xd9]);
  const dht = bytes([0xff, 0xd8, 0xff, 0xc4, 0, 8, 0, 0, 1, 0, 1, 0]); // C4 is not a SOF
  const badLength = bytes([0xff, 0xd8, 0xff, 0xe0, 0, 1, 0xff, 0xc0]);
  const junk = bytes([0xff, 0xd8, 0xff, 0xe0, 0, 2, 0x12, 0x34]);
  for (const data of [noSof, eoi, dht, badLength, junk]) {
    assert.equal(sniffImage(data), null);
  }
});

Deno.test("sniffImage rejects AVIF without avif brand or without ispe", () => {
  assert.equal(sniffImage(avif(10, 10, "heic")), null);
  const noIspe = avif(10, 10);
  const at = new TextDecoder("latin1").decode(noIspe).indexOf("ispe");
  noIspe.set(new TextEncoder().encode("ispX"), at);
  assert.equal(sniffImage(noIspe), null);
  const notFtyp = avif(10, 10);
  notFtyp[4] = "x".charCodeAt(0);
  assert.equal(sniffImage(notFtyp), null);
});

Deno.test("sniffImage takes the largest AVIF ispe, so the pixel cap is never underestimated", () => {
  assert.deepEqual(sniffImage(avif(10, 10, "avif", [[4, 4]]))?.width, 10);
  const bomb = sniffImage(avif(10, 10, "avif", [[60000, 50000]]));
  assert.equal(bomb?.width, 60000);
  assert.equal(bomb?.height, 50000);
});

Deno.test("sniffImage reads every GIF frame descriptor: a 1x1 screen holding a 20000x20000 frame", () => {
  assert.deepEqual(sniffImage(gifFrameBomb(20000, 20000)), {
    type: "image/gif",
    ext: "gif",
    width: 20000,
    height: 20000,
    frames: 1,
  });
  assert.deepEqual(sniffImage(gifFrameBomb(1, 1))?.width, 1);
});

Deno.test("sniffImage counts GIF and WebP animation frames", async () => {
  assert.equal(sniffImage(await animated(30, 20, 4))?.frames, 4);
  assert.equal(sniffImage(await animated(30, 20, 5, "webp"))?.frames, 5);
  assert.equal(sniffImage(await solid(30, 20, "webp"))?.frames, 1);
});

Deno.test("sniffImage finds the AVIF size box after more than 256 boxes", () => {
  const many = Array.from(
    { length: 300 },
    () => [0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65],
  ); // "free" boxes
  const padded = avifWithPadding(6000, 4000, many.flat());
  assert.deepEqual(sniffImage(padded)?.width, 6000);
  assert.deepEqual(sniffImage(padded)?.height, 4000);
});

/** An AVIF header whose `ipco` holds `padding` (boxes) before its `ispe`. */
function avifWithPadding(width: number, height: number, padding: number[]) {
  const u32 = (
    n: number,
  ) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const box = (type: string, body: Uint8Array) =>
    bytes(u32(body.length + 8), type, body);
  const ispe = box("ispe", bytes([0, 0, 0, 0], u32(width), u32(height)));
  const ipco = box("ipco", bytes(padding, ispe));
  const meta = box("meta", bytes([0, 0, 0, 0], box("iprp", ipco)));
  const ftyp = box("ftyp", bytes("avif", [0, 0, 0, 0], "mif1"));
  return bytes(ftyp, meta, box("mdat", new Uint8Array(4)));
}

Deno.test("imageEnd: the end of each real format, null when truncated", async () => {
  const images = [
    await solid(20, 10, "jpeg"),
    await solid(20, 10, "png"),
    await solid(20, 10, "gif"),
    await solid(20, 10, "webp"),
    await solid(20, 10, "avif"),
    await animated(20, 10, 3, "gif"),
    await animated(20, 10, 3, "webp"),
  ];
  for (const data of images) {
    const { type } = sniffImage(data)!;
    assert.equal(imageEnd(data, type), data.length, type);
    assert.equal(imageEnd(bytes(data, "trailer"), type), data.length, type);
    for (const cut of [1, 2, 7, Math.floor(data.length / 2)]) {
      const end = imageEnd(data.subarray(0, data.length - cut), type);
      // AVIF's last box is mdat: a cut shortens it, so the walk fails.
      assert.equal(end, null, `${type} cut by ${cut}`);
    }
  }
  assert.equal(imageEnd(new Uint8Array(4), "image/svg+xml"), null);
});

Deno.test("sniffImage reads the AV1 sequence header: a lying ispe is a conflict and the larger size counts", async () => {
  const lying = sniffImage(avif(100, 100, "avif", [], [16000, 16000]));
  assert.equal(lying?.width, 16000);
  assert.equal(lying?.height, 16000);
  assert.match(lying?.conflict ?? "", /16000x16000 but the AVIF header/);
  // A smaller stream than the header is a conflict too (the header counts).
  const small = sniffImage(avif(5000, 5000, "avif", [], [10, 10]));
  assert.equal(small?.width, 5000);
  assert.ok(small?.conflict);
  // A real AVIF from sharp, rewritten the same way.
  const real = sniffImage(await lyingAvif(16000, 16000));
  assert.deepEqual([real?.width, real?.height], [16000, 16000]);
  assert.ok(real?.conflict);
  // Honest files: no conflict, sizes from sharp (with and without alpha).
  assert.deepEqual(sniffImage(await solid(100, 60, "avif")), {
    type: "image/avif",
    ext: "avif",
    width: 100,
    height: 60,
    frames: 1,
  });
  assert.equal(sniffImage(await lyingAvif(100, 100))?.conflict, undefined);
  // A thumbnail item with its own honest header is no conflict.
  assert.equal(sniffImage(avif(40, 30, "avif", [[4, 3]]))?.conflict, undefined);
});

Deno.test("sniffImage compares a VP8X canvas with its bitstream", async () => {
  const real = await solid(64, 48, "webp");
  const body = real.subarray(12); // the VP8 chunk
  const u24 = (n: number) => [n & 255, (n >> 8) & 255, n >> 16];
  const u32 = (
    n: number,
  ) => [n & 255, (n >> 8) & 255, (n >> 16) & 255, n >>> 24];
  const vp8x = (w: number, h: number) => {
    const inner = bytes(
      "WEBP",
      "VP8X",
      u32(10),
      [0, 0, 0, 0],
      u24(w - 1),
      u24(h - 1),
      body,
    );
    return bytes("RIFF", u32(inner.length), inner);
  };
  assert.equal(sniffImage(vp8x(64, 48))?.conflict, undefined);
  const lying = sniffImage(vp8x(8, 8));
  assert.deepEqual([lying?.width, lying?.height], [64, 48]);
  assert.match(lying?.conflict ?? "", /bitstream is 64x48/);
});

Deno.test("sniffImage is total on damaged AVIF and WebP: 2,000 mutations, no throw", async () => {
  const seeds = [
    await solid(40, 30, "avif"),
    avif(64, 48, "avif", [[8, 6]]),
    await solid(40, 30, "webp"),
    await animated(20, 10, 3, "webp"),
  ];
  const noise = randomBytes(4 * 2000 * 3, 7);
  let n = 0;
  for (const seed of seeds) {
    for (let i = 0; i < 500; i++, n++) {
      const copy = seed.slice();
      for (let k = 0; k < 3; k++) {
        const at = (noise[(n * 3 + k) * 4] << 8 | noise[(n * 3 + k) * 4 + 1]) %
          copy.length;
        copy[at] = noise[(n * 3 + k) * 4 + 2];
      }
      const info = sniffImage(copy); // must not throw
      if (info) assert.ok(info.width > 0 && info.height > 0);
    }
  }
  assert.equal(n, 2000);
});

Deno.test("sniffImage checks AVIF grids: tiles count, cover the canvas, and overhang by less than a tile", () => {
  const honest = sniffImage(avifGrid([120, 100], 2, 2, [64, 64]));
  assert.equal(honest?.conflict, undefined);
  assert.deepEqual([honest?.width, honest?.height], [128, 128], "tiles' area");
  // 10 × 10 tiles of 64² behind a 100 × 100 grid: 409,600 pixels decoded.
  const bomb = sniffImage(avifGrid([100, 100], 10, 10, [64, 64]));
  assert.match(bomb?.conflict ?? "", /grid of tiles is 640x640/);
  assert.deepEqual([bomb?.width, bomb?.height], [640, 640]);
  // A grid whose data says more than its ispe.
  const lying = sniffImage(
    avifGrid([5000, 5000], 1, 1, [5000, 5000], [10, 10]),
  );
  assert.match(lying?.conflict ?? "", /grid canvas is 5000x5000/);
  assert.deepEqual([lying?.width, lying?.height], [5000, 5000]);
  // Too few tiles, or tiles that do not cover the canvas.
  assert.ok(sniffImage(avifGrid([200, 200], 1, 1, [64, 64]))?.conflict);
});
