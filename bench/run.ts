/**
 * Runs the script benchmarks under bench/ and prints every goal as a ratio
 * against a baseline measured in the same run. `deno task bench` runs
 * `deno bench` (save handler vs a bare 204 handler, sanitizer vs parse-only)
 * first, then this.
 *
 * Run: `deno run -A bench/run.ts`
 *
 * @module
 */
import { run as uploadMemory } from "./upload_memory.ts";
import { run as imageBench } from "./image.ts";
import { run as clientSize } from "./client_size.ts";
import { run as clientMount } from "./client_mount.ts";
import { run as clientSave } from "./client_save.ts";
import { run as historyBench } from "./history.ts";

interface Row {
  what: string;
  measured: string;
  baseline: string;
  ratio: string;
  goal: string;
  met: string;
}

const KiB = 1024;
/** KB = 1,000 bytes, the unit of the goals. */
const kb = (n: number) => `${(n / 1000).toFixed(2)} KB`;
const mib = (n: number) => `${(n / KiB / KiB).toFixed(2)} MiB`;
const ms = (n: number) => `${n.toFixed(2)} ms`;

function row(
  what: string,
  measured: string,
  baseline: string,
  ratio: number,
  goal?: number,
): Row {
  return {
    what,
    measured,
    baseline,
    ratio: `${ratio.toFixed(2)}x`,
    goal: goal === undefined ? "(context)" : `<= ${goal}x`,
    met: goal === undefined ? "" : ratio <= goal ? "yes" : "NO",
  };
}

const rows: Row[] = [];

const up = await uploadMemory();
rows.push(
  row(
    "bytes read before 413 (11 MiB chunked body)",
    mib(up.chunkedBytesRead),
    `cap + 64 KiB = ${mib(up.bytesReadGoal)}`,
    up.chunkedBytesRead / up.bytesReadGoal,
    1,
  ),
  row(
    "bytes read before 413 (11 MiB, Content-Length)",
    mib(up.declaredBytesRead),
    `cap + 64 KiB = ${mib(up.bytesReadGoal)}`,
    up.declaredBytesRead / up.bytesReadGoal,
    1,
  ),
  row(
    "peak memory, one 10 MiB upload",
    mib(Math.max(up.peakExternalDeclared, up.peakExternalChunked)),
    `body = ${mib(up.uploadBytes)}`,
    Math.max(up.peakExternalDeclared, up.peakExternalChunked) / up.uploadBytes,
    2,
  ),
);

const img = await imageBench();
rows.push(
  row(
    "12 MP JPEG -> normalized original + 4 WebP variants, stored",
    ms(img.pipelineMs),
    `bare sharp, same 4 resizes = ${ms(img.bareMs)}`,
    img.pipelineMs / img.bareMs,
    1.3,
  ),
  row(
    `peak RSS growth, 10 parallel 12 MP uploads (${img.parallelStored} stored)`,
    mib(img.parallelPeakRss),
    "goal 600 MiB",
    img.parallelPeakRss / (600 * KiB * KiB),
    1,
  ),
);

const size = await clientSize();
rows.push(
  row(
    "client entry chunk, min+gz",
    kb(size.entry),
    "goal 5 KB",
    size.entry / 5000,
    1,
  ),
  row(
    "all client chunks, gz",
    kb(size.all),
    `goal 20 KB (DOMPurify alone ${kb(size.dompurify)})`,
    size.all / 20000,
    1,
  ),
);

const mount = await clientMount();
rows.push(
  row(
    `mountCms() on ${mount.markers} plain markers`,
    ms(mount.mountMs),
    `bare loop ${ms(mount.baselineMs)}`,
    mount.ratio,
    3,
  ),
);

const save = await clientSave();
rows.push(
  row(
    `save ${save.fields} changed fields vs one`,
    ms(save.manyMs),
    `one field ${ms(save.oneMs)}`,
    save.ratio,
    1.5,
  ),
  row(
    `network floor: ${save.fields} bare fetches vs one (context)`,
    ms(save.bareManyMs),
    `one fetch ${ms(save.bareOneMs)}`,
    save.bareManyMs / save.bareOneMs,
  ),
);

for (const h of await historyBench()) {
  rows.push(
    row(
      `save with history vs without, ${h.store} (save endpoint)`,
      ms(h.endpointWithMs),
      `without ${ms(h.endpointWithoutMs)}`,
      h.endpointRatio,
      1.3,
    ),
    row(
      `list 1,000 revisions; restore, ${h.store} (context)`,
      `${ms(h.list1000Ms)}; ${ms(h.restoreMs)}`,
      `one save ${ms(h.saveMs)}`,
      h.restoreMs / h.saveMs,
    ),
  );
}

console.table(rows);
