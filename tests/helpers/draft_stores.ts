/**
 * The draft stores the tests run one contract against: memory, Deno KV and
 * PostgreSQL. Each test registers one `Deno.test` per store, whose steps
 * open a fresh, empty store each.
 */
import postgres from "postgres";
import { KvContentStore } from "../../server/store/kv/mod.ts";
import { MemoryContentStore } from "../../server/store/memory.ts";
import { PostgresContentStore } from "../../postgres/store/mod.ts";
import type { DraftStore } from "../../server/store/types.ts";
import { HAS_POSTGRES, startPostgres } from "./postgres.ts";

/** A fresh store, closed when disposed. */
export interface Opened extends AsyncDisposable {
  store: DraftStore;
}

/** Opens a fresh store. */
export type Open = () => Promise<Opened>;

const none = { [Symbol.asyncDispose]: () => Promise.resolve() };

/** The stores by name: each sets up (and disposes) what its opens share. */
export const DRAFT_STORES: Record<
  string,
  () => Promise<Open & AsyncDisposable>
> = {
  MemoryContentStore: () =>
    Promise.resolve(Object.assign(
      () => Promise.resolve({ store: new MemoryContentStore(), ...none }),
      none,
    )),

  KvContentStore: async () => {
    const dir = await Deno.makeTempDir({ prefix: "cms-draft-kv-" });
    let n = 0;
    return Object.assign(async () => {
      const kv = await Deno.openKv(`${dir}/${++n}.kv`);
      return {
        store: new KvContentStore(kv),
        [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
      };
    }, {
      [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
    });
  },

  PostgresContentStore: async () => {
    const pg = await startPostgres();
    let sql: postgres.Sql;
    try {
      sql = postgres(await pg.database(), { max: 10, onnotice: () => {} });
    } catch (err) {
      await pg.close();
      throw err;
    }
    let n = 0;
    return Object.assign(
      () =>
        Promise.resolve({
          store: new PostgresContentStore(sql, { prefix: `d${++n}` }),
          ...none,
        }),
      {
        async [Symbol.asyncDispose]() {
          try {
            await sql.end();
          } finally {
            await pg.close();
          }
        },
      },
    );
  },
};

/** Whether the store `name` of {@linkcode DRAFT_STORES} cannot run here. */
export function skipStore(name: string): boolean {
  return name.startsWith("Postgres") && !HAS_POSTGRES;
}

/**
 * Registers `Deno.test("<name>: <store>")` for every store, with one step
 * per case, each given a way to open a fresh store.
 */
export function draftStoreSuite(
  name: string,
  cases: Record<string, (open: Open) => Promise<void>>,
): void {
  for (const [store, setup] of Object.entries(DRAFT_STORES)) {
    Deno.test(`${name}: ${store}`, { ignore: skipStore(store) }, async (t) => {
      await using open = await setup();
      for (const [title, run] of Object.entries(cases)) {
        await t.step(title, () => run(open));
      }
    });
  }
}
