/**
 * A generated sample picture (a soft gradient with a sun) as PNG bytes, used
 * by the screenshot script and the end-to-end test to upload a real image,
 * and the small PNG encoder behind it (the test fixtures use it too).
 *
 * @module
 */

/** Bytes backed by a plain `ArrayBuffer` (usable as a fetch body). */
type Bytes = Uint8Array<ArrayBuffer>;

/** Encodes a `width`×`height` RGB PNG of a small landscape. */
export function samplePng(width = 480, height = 240): Promise<Bytes> {
  const row = 1 + width * 3;
  const raw = new Uint8Array(row * height);
  const sun = {
    x: width * 0.72,
    y: height * 0.38,
    r: Math.min(width, height) * 0.16,
  };
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const t = y / height;
      let r = 52 + 160 * t, g = 87 + 110 * t, b = 213 - 40 * t;
      const hill = height * (0.72 + 0.08 * Math.sin(x / width * Math.PI * 2));
      if (y > hill) [r, g, b] = [46, 125 + 30 * (1 - t), 90];
      else if (Math.hypot(x - sun.x, y - sun.y) < sun.r) {
        [r, g, b] = [255, 214, 102];
      }
      const at = y * row + 1 + x * 3;
      raw[at] = r;
      raw[at + 1] = g;
      raw[at + 2] = b;
    }
  }
  return encodePng(width, height, raw, "rgb");
}

/**
 * Encodes 8-bit scanlines as a PNG. `raw` holds `height` rows, each a filter
 * byte (0) then `width` pixels of 1 (grey) or 3 (RGB) bytes.
 */
export async function encodePng(
  width: number,
  height: number,
  raw: Uint8Array<ArrayBuffer>,
  colour: "grey" | "rgb",
): Promise<Bytes> {
  const idat = new Uint8Array(
    await new Response(
      new Blob([raw]).stream().pipeThrough(new CompressionStream("deflate")),
    ).arrayBuffer(),
  );
  return concat([
    pngHead(width, height, colour),
    pngChunk("IDAT", idat),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

/** The PNG signature and the IHDR chunk alone (any dimensions). */
export function pngHead(
  width: number,
  height: number,
  colour: "grey" | "rgb" = "rgb",
): Bytes {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  // 8-bit, colour type, deflate, no filter, no interlace
  header.set([8, colour === "rgb" ? 2 : 0, 0, 0, 0], 8);
  return concat([
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", header),
  ]);
}

/** One PNG chunk: length, type, data, CRC-32 of type and data. */
function pngChunk(type: string, data: Uint8Array): Bytes {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

let table: Uint32Array | undefined;
function crc32(bytes: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of bytes) crc = table[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
