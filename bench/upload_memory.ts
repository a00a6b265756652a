/**
 * Memory behaviour of the media endpoint, measured in one run:
 *
 * (a) bytes read from the request stream before the 413, for an 11 MiB body
 *     against the 10 MiB cap, without a length (chunked, counted per pull)
 *     and with a `Content-Length` (nothing should be read). Goal: ≤ cap +
 *     64 KiB.
 * (b) peak extra memory (V8 external memory, i.e. ArrayBuffer backing
 *     stores, and RSS) while one 10 MiB upload is handled, against the body
 *     size. Goal: ≤ 2× the body. The source stream enqueues one reused
 *     64 KiB chunk, so only the handler's own buffers count; the storage
 *     keeps nothing.
 *
 * Run: `deno run -A bench/upload_memory.ts`; `run()` returns the numbers
 * for an aggregate report.
 *
 * @module
 */
import v8 from "node:v8";
import vm from "node:vm";
import sharp from "sharp";
import { createMediaHandler, type MediaStorage } from "../server/media/mod.ts";

const MiB = 1024 * 1024;
const CAP = 10 * MiB;
const CHUNK = 64 * 1024;

/** The numbers `run()` measured. */
export interface UploadMemoryResult {
  /** The media cap in bytes. */
  cap: number;
  /** Bytes pulled before the 413, 11 MiB chunked body. */
  chunkedBytesRead: number;
  /** Bytes pulled before the 413, 11 MiB body with Content-Length. */
  declaredBytesRead: number;
  /** Goal for the bytes read: cap + 64 KiB. */
  bytesReadGoal: number;
  /** Body size of the accepted upload. */
  uploadBytes: number;
  /** Peak extra external memory, upload with Content-Length. */
  peakExternalDeclared: number;
  /** Peak extra external memory, chunked upload. */
  peakExternalChunked: number;
  /** Peak extra RSS over both uploads (coarse, includes allocator slack). */
  peakRss: number;
}

/** A function that runs a full garbage collection (or nothing). */
export function collectGarbage(): () => void {
  try {
    v8.setFlagsFromString("--expose-gc");
    return vm.runInNewContext("gc");
  } catch {
    return () => {};
  }
}

/** A real 1024 × 1024 PNG (a few KB), so the upload decodes. */
const PNG = new Uint8Array(
  await sharp({
    create: { width: 1024, height: 1024, channels: 3, background: "#468" },
  }).png().toBuffer(),
);

/**
 * A body of `size` bytes: a real PNG, then zero padding (which the media
 * endpoint accepts after an image's end), in reused chunks.
 */
function body(size: number, onPull: () => void) {
  const head = new Uint8Array(CHUNK);
  head.set(PNG);
  const rest = new Uint8Array(CHUNK);
  const seen = { bytes: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      onPull();
      if (seen.bytes >= size) return controller.close();
      const chunk = seen.bytes === 0 ? head : rest;
      const n = Math.min(CHUNK, size - seen.bytes);
      seen.bytes += n;
      controller.enqueue(n === CHUNK ? chunk : chunk.subarray(0, n));
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

function post(stream: ReadableStream, length?: number): Request {
  const headers: Record<string, string> = length === undefined ? {} : {
    "Content-Length": String(length),
  };
  return new Request("http://localhost/api/cms/media", {
    method: "POST",
    body: stream,
    headers,
    duplex: "half",
  } as RequestInit);
}

/** Measures (a) and (b) and returns the numbers. */
export async function run(): Promise<UploadMemoryResult> {
  const gc = collectGarbage();
  let peakExternal = 0, peakRss = 0;
  const sample = () => {
    const m = Deno.memoryUsage();
    peakExternal = Math.max(peakExternal, m.external);
    peakRss = Math.max(peakRss, m.rss);
  };
  const storage: MediaStorage = {
    put: () => Promise.resolve(sample()),
    delete: () => Promise.resolve(),
    url: (key) => `/media/${key}`,
  };
  const handler = createMediaHandler({
    authorize: () => ({ name: "Bench" }),
    storage,
  });

  const over = 11 * MiB;
  const chunked = body(over, () => {});
  const r1 = await handler(post(chunked.stream));
  const declared = body(over, () => {});
  const r2 = await handler(post(declared.stream, over));
  if (r1.status !== 413 || r2.status !== 413) throw new Error("expected 413");

  const peak = async (length?: number) => {
    gc();
    const base = Deno.memoryUsage();
    peakExternal = base.external;
    peakRss = base.rss;
    const upload = body(CAP, sample);
    const res = await handler(post(upload.stream, length));
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}`);
    await res.body?.cancel();
    return { external: peakExternal - base.external, rss: peakRss - base.rss };
  };
  const withLength = await peak(CAP);
  const withoutLength = await peak();
  return {
    cap: CAP,
    chunkedBytesRead: chunked.seen.bytes,
    declaredBytesRead: declared.seen.bytes,
    bytesReadGoal: CAP + CHUNK,
    uploadBytes: CAP,
    peakExternalDeclared: withLength.external,
    peakExternalChunked: withoutLength.external,
    peakRss: Math.max(withLength.rss, withoutLength.rss),
  };
}

if (import.meta.main) {
  const r = await run();
  const mib = (n: number) => `${(n / MiB).toFixed(2)} MiB`;
  const rows: [string, number, number][] = [
    [
      "(a) bytes read before 413, 11 MiB chunked",
      r.chunkedBytesRead,
      r.bytesReadGoal,
    ],
    [
      "(a) bytes read before 413, 11 MiB with length",
      r.declaredBytesRead,
      r.bytesReadGoal,
    ],
    [
      "(b) peak external, 10 MiB upload with length",
      r.peakExternalDeclared,
      2 * r.uploadBytes,
    ],
    [
      "(b) peak external, 10 MiB upload chunked",
      r.peakExternalChunked,
      2 * r.uploadBytes,
    ],
    ["(b) peak RSS, 10 MiB upload (coarse)", r.peakRss, 2 * r.uploadBytes],
  ];
  console.log("| measure | value | goal (≤) | value / goal | x body |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const [name, value, goal] of rows) {
    console.log(
      `| ${name} | ${mib(value)} | ${mib(goal)} | ${
        (value / goal).toFixed(2)
      } | ${(value / r.uploadBytes).toFixed(2)} |`,
    );
  }
}
