/**
 * The persistent stores the benches compare: Deno KV in a temp file and
 * PostgreSQL (Debian's server, started for the run), each opened fresh,
 * measured, and closed and removed.
 *
 * @module
 */
import postgres from "postgres";
import { KvContentStore } from "../server/store/mod.ts";
import { PostgresContentStore } from "../postgres/mod.ts";
import { startPostgres } from "../tests/helpers/postgres.ts";

/** A measure of one store, named for the report. */
type Measure<S, T> = (name: string, store: S) => Promise<T>;

/**
 * Runs `measure` on a fresh Deno KV store in a temp file, removed after.
 *
 * @example
 * ```ts ignore
 * import { onKv } from "./stores.ts";
 * const row = await onKv(async (name, store) => ({ name, home: await store.get("pages", "home") }));
 * ```
 */
export async function onKv<T>(
  measure: Measure<KvContentStore, T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "cms-bench-" });
  const kv = await Deno.openKv(`${dir}/bench.kv`);
  try {
    return await measure("Deno KV (file)", new KvContentStore(kv));
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Runs `measure` on a fresh Deno KV store (a temp file), then on a fresh
 * PostgreSQL store, and returns both results in that order.
 *
 * @example
 * ```ts ignore
 * import { onKvAndPostgres } from "./stores.ts";
 * const rows = await onKvAndPostgres(async (name, store) => ({ name, home: await store.get("pages", "home") }));
 * ```
 */
export async function onKvAndPostgres<T>(
  measure: (
    name: string,
    store: KvContentStore | PostgresContentStore,
  ) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [await onKv(measure)];
  await using pg = await startPostgres();
  const sql = postgres(await pg.database(), { max: 4, onnotice: () => {} });
  try {
    out.push(await measure("PostgreSQL", new PostgresContentStore(sql)));
  } finally {
    await sql.end();
  }
  return out;
}
