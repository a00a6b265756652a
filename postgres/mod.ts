/**
 * The PostgreSQL content store, in its own entry point so that only apps
 * that use it load the `postgres` driver: content, history, drafts and
 * schedules in four tables, safe for any number of instances.
 *
 * Guide: [storage choices](../docs/storage.md#storage-choices) (set-up,
 * sharing one client with `PostgresEventBus`, several instances).
 *
 * @example
 * ```ts ignore
 * import { createSaveHandler, defineContent } from "@inplace/cms";
 * import { PostgresContentStore } from "@inplace/cms/postgres";
 *
 * const store = PostgresContentStore.connect(Deno.env.get("DATABASE_URL")!);
 * const save = createSaveHandler({
 *   authorize: () => null, // your session lookup
 *   allowlist: defineContent({ pages: { title: "plain" } }),
 *   store,
 * });
 * ```
 *
 * @module
 */
export {
  PostgresContentStore,
  type PostgresContentStoreOptions,
  UnstorableTextError,
} from "./store/mod.ts";
export { PostgresEventBus } from "./bus.ts";
