import assert from "node:assert/strict";
import { sniffImage } from "../server/sniff.ts";
import {
  avif,
  bytes,
  gif,
  html,
  jpeg,
  png,
  pngHeader,
  randomBytes,
  svg,
  webpVp8,
  webpVp8l,
  webpVp8x,
} from "./fixtures/images.ts";

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
    assert.deepEqual(sniffImage(data), { type, ext, width, height });
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
  const ispeEnd = full.length - 12; // the mdat box follows the ispe box
  for (let n = 0; n < ispeEnd; n++) {
    assert.equal(sniffImage(full.subarray(0, n)), null, `avif cut at ${n}`);
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
  noIspe.set(new TextEncoder().encode("ispX"), noIspe.length - 12 - 16);
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
