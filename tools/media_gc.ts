/**
 * `deno task media:gc [--delete] [--grace-days=N]`: finds uploads that no
 * current value, draft, pending schedule or kept revision uses, older than
 * the grace period (default 7 days), and prints them. A dry run unless
 * `--delete` is given; then it deletes each and its variants.
 *
 * The store and storage are the demo's: PostgreSQL for `CMS_DATABASE_URL`,
 * else `CMS_DATA_DIR/content.kv`; S3 for `CMS_S3_BUCKET` (with the other
 * `CMS_S3_*` variables), else `CMS_DATA_DIR/media/`. See
 * `collectMedia` in `server/media/gc.ts` for the rules.
 *
 * @example
 * ```sh
 * deno task media:gc                 # report only
 * deno task media:gc --delete        # delete what the report lists
 * ```
 *
 * @module
 */
import { s3FromEnv } from "../demo/main.ts";
import {
  collectMedia,
  type ListableMediaStorage,
  LocalMediaStorage,
  type MediaGcReport,
} from "../server/media/mod.ts";
import { S3MediaStorage } from "../s3/mod.ts";
import { openStoreFromEnv } from "./export.ts";

/** Parsed command-line flags. */
export interface GcArgs {
  /** Delete what is found. */
  delete: boolean;
  /** The grace period in days. */
  graceDays: number;
}

/**
 * Parses `--delete` and `--grace-days=N`; throws on anything else.
 *
 * @example
 * ```ts
 * import { parseGcArgs } from "./media_gc.ts";
 * parseGcArgs(["--delete"]); // { delete: true, graceDays: 7 }
 * ```
 */
export function parseGcArgs(args: string[]): GcArgs {
  const out: GcArgs = { delete: false, graceDays: 7 };
  for (const arg of args) {
    const grace = /^--grace-days=(\d+(\.\d+)?)$/.exec(arg);
    if (arg === "--delete") out.delete = true;
    else if (grace) out.graceDays = Number(grace[1]);
    else throw new Error(`unknown argument ${arg}`);
  }
  return out;
}

/** The report as text lines. */
export function formatReport(report: MediaGcReport): string {
  const lines = report.unused.map((u) =>
    `${report.deleted ? "deleted" : "unused"} ${u.key} (${
      1 + u.variants.length
    } files, ${u.size} bytes, stored ${u.uploaded})`
  );
  const bytes = report.unused.reduce((n, u) => n + u.size, 0);
  lines.push(
    `${report.uploads} uploads; ${report.unused.length} unused (${bytes} bytes)${
      report.deleted ? " deleted" : ", not deleted (dry run; --delete deletes)"
    }; ${report.recent} unused but recent, kept`,
  );
  return lines.join("\n");
}

if (import.meta.main) {
  const env = (name: string) => Deno.env.get(name);
  let args: GcArgs;
  try {
    args = parseGcArgs(Deno.args);
  } catch (err) {
    console.error(
      `${(err as Error).message}\nusage: media:gc [--delete] [--grace-days=N]`,
    );
    Deno.exit(2);
  }
  const s3 = s3FromEnv(env);
  const dataDir = env("CMS_DATA_DIR") || ".data";
  const storage: ListableMediaStorage = s3
    ? new S3MediaStorage(s3)
    : new LocalMediaStorage({ dir: `${dataDir}/media` });
  const opened = await openStoreFromEnv(env);
  try {
    const report = await collectMedia({
      storage,
      store: opened.store,
      graceDays: args.graceDays,
      delete: args.delete,
    });
    console.log(formatReport(report));
  } finally {
    await opened.close();
  }
}
