/**
 * Several demo processes on one PostgreSQL, each on its own data folder,
 * for the multi-instance event tests and bench.
 *
 * @module
 */
import {
  DEMO_PASSWORD,
  type DemoProcess,
  spawnDemo,
  stopDemo,
} from "./demo.ts";

/** Running instances; `close()` stops them and removes their folders. */
export interface Instances {
  /** The instances, in start order. */
  sites: DemoProcess[];
  /** Stops every instance (SIGTERM) and removes the folders. */
  close(): Promise<void>;
}

/**
 * Starts `count` demo processes (one after another: each start seeds the
 * same database) on `databaseUrl`, with the editor password
 * {@linkcode DEMO_PASSWORD} and `env` added. On failure, what started is
 * stopped.
 *
 * @example
 * ```ts ignore
 * import { spawnInstances } from "./instances.ts";
 * const { sites, close } = await spawnInstances(3, databaseUrl);
 * try { console.log(sites[0].url); } finally { await close(); }
 * ```
 */
export async function spawnInstances(
  count: number,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Instances> {
  const dirs: string[] = [];
  const sites: DemoProcess[] = [];
  const close = async () => {
    for (const site of sites) await stopDemo(site);
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  };
  try {
    for (let i = 0; i < count; i++) {
      const dir = await Deno.makeTempDir({ prefix: "cms-instance-" });
      dirs.push(dir);
      sites.push(
        await spawnDemo({
          PATH: Deno.env.get("PATH") ?? "",
          HOME: Deno.env.get("HOME") ?? "/tmp",
          DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
          CMS_DATABASE_URL: databaseUrl,
          CMS_EDITOR_PASSWORD: DEMO_PASSWORD,
          CMS_DATA_DIR: dir,
          ...env,
        }, { stderr: "null" }),
      );
    }
    return { sites, close };
  } catch (err) {
    await close();
    throw err;
  }
}
