/**
 * The decoders' memory budget: the process's memory limit where it can be
 * read (cgroup v2 `memory.max`, cgroup v1 `memory.limit_in_bytes`, else the
 * machine's total memory), and an estimate of the memory one image takes to
 * decode and resize, by format.
 *
 * @module
 */

const MiB = 1024 * 1024;

/**
 * Memory kept out of the budget for the runtime itself, sharp's library
 * and the requests being served: a Deno process with sharp loaded sits
 * near 80 MiB, and the bodies of uploads arriving at once are held before
 * they reach the decoders' queue.
 */
export const MEMORY_RESERVE = 128 * MiB;

/** The limit assumed where none can be read (Deno Deploy's default). */
export const ASSUMED_LIMIT = 512 * MiB;

/**
 * Peak bytes per pixel (width × height × frames) of decoding an image of
 * each type and making its variants, measured with `bench/image_worst.ts`
 * on the worst 40 MP image of each (rounded up): libheif's AVIF decoder
 * holds several full-size copies.
 */
export const BYTES_PER_PIXEL: Readonly<Record<string, number>> = {
  "image/avif": 20,
  "image/jpeg": 9.5,
  "image/webp": 9,
  "image/png": 8,
  "image/gif": 8,
};

/**
 * The memory one upload is estimated to take while it is processed: its
 * pixels by the type's {@linkcode BYTES_PER_PIXEL}, plus its body.
 */
export function estimateMemory(
  type: string,
  pixels: number,
  bodyBytes: number,
): number {
  return Math.ceil(pixels * (BYTES_PER_PIXEL[type] ?? 20)) + bodyBytes;
}

function readText(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null; // missing, or no read permission
  }
}

/** A limit in bytes from a cgroup file's text; `null` for "max" or huge. */
function cgroupLimit(text: string | null): number | null {
  const n = Number(text?.trim());
  // cgroup v1 says "no limit" with a number near 2^63.
  return Number.isSafeInteger(n) && n > 0 && n < 2 ** 52 ? n : null;
}

/** Whether this process runs on Deno Deploy (it sets `DENO_DEPLOYMENT_ID`). */
function onDeploy(): boolean {
  try {
    return Deno.env.get("DENO_DEPLOYMENT_ID") !== undefined;
  } catch {
    return false; // no permission to read the environment
  }
}

/**
 * The memory limit of this process in bytes: cgroup v2, then cgroup v1,
 * then the machine's total memory; {@linkcode ASSUMED_LIMIT} when none can
 * be read (no permission, another platform) and on Deno Deploy (whose
 * instances have 512 MB while the machine's memory is larger). `read`
 * reads a file's text, or `null` (default: the file system, where
 * allowed); `deploy` says whether this is Deno Deploy (default: whether
 * `DENO_DEPLOYMENT_ID` is set).
 *
 * @example
 * ```ts
 * import { memoryLimit } from "@inplace/cms";
 * // Three processes in one container: a third of its budget each.
 * const memoryBudget = (memoryLimit() - 3 * 128 * 2 ** 20) / 3;
 * ```
 */
export function memoryLimit(
  read: (path: string) => string | null = readText,
  deploy: boolean = onDeploy(),
): number {
  const v2 = cgroupLimit(read("/sys/fs/cgroup/memory.max"));
  if (v2) return v2;
  const v1 = cgroupLimit(read("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
  if (v1) return v1;
  if (deploy) return ASSUMED_LIMIT;
  try {
    const total = Deno.systemMemoryInfo().total;
    if (total > 0) return total;
  } catch { /* not allowed here */ }
  return ASSUMED_LIMIT;
}

/**
 * The default decoder memory budget: the process's
 * {@linkcode memoryLimit} less {@linkcode MEMORY_RESERVE}, at least 64 MiB
 * (384 MiB for a 512 MiB process).
 */
export function defaultMemoryBudget(limit: number = memoryLimit()): number {
  return Math.max(64 * MiB, limit - MEMORY_RESERVE);
}
