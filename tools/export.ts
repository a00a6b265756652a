/**
 * `deno task export [FILE]`: writes every record, revision, unpublished
 * draft, comment and review verdict of the content store as JSON lines (one {@linkcode StoreLine} per line) to FILE,
 * or to stdout. The store is the demo's: PostgreSQL when `CMS_DATABASE_URL`
 * is set, else `CMS_DATA_DIR/content.kv` (default `.data/`).
 *
 * @example
 * ```sh
 * deno task export backup.jsonl
 * CMS_DATABASE_URL=postgres://cms@127.0.0.1/cms deno task export > pg.jsonl
 * ```
 *
 * @module
 */
import { type HistoryStore, KvContentStore } from "../server/store/mod.ts";
import { PostgresContentStore } from "../postgres/mod.ts";

/** An open store and how to close it. */
export interface OpenStore {
  /** The store. */
  store: HistoryStore;
  /** Closes the KV or ends the PostgreSQL connections. */
  close(): Promise<void>;
  /** Where it is, for messages. */
  where: string;
}

/**
 * Opens the store the demo uses with this environment: PostgreSQL for
 * `CMS_DATABASE_URL`, else Deno KV in `CMS_DATA_DIR` (default `.data`).
 */
export async function openStoreFromEnv(
  env: (name: string) => string | undefined,
): Promise<OpenStore> {
  const url = env("CMS_DATABASE_URL");
  if (url) {
    const store = PostgresContentStore.connect(url, { max: 2 });
    return { store, close: () => store.close(), where: "PostgreSQL" };
  }
  const dir = (env("CMS_DATA_DIR") || ".data").replace(/\/+$/, "") || ".";
  await Deno.mkdir(dir, { recursive: true });
  const kv = await Deno.openKv(`${dir}/content.kv`);
  return {
    store: new KvContentStore(kv),
    close: () => Promise.resolve(kv.close()),
    where: `${dir}/content.kv`,
  };
}

/**
 * Writes a store's dump as JSON lines and closes `out`; resolves to the
 * number of lines.
 */
export async function exportLines(
  store: HistoryStore,
  out: WritableStream<Uint8Array>,
): Promise<number> {
  const writer = out.getWriter();
  const encoder = new TextEncoder();
  let n = 0;
  try {
    let batch = "";
    for await (const line of store.dump()) {
      batch += JSON.stringify(line) + "\n";
      n++;
      if (batch.length > 64 * 1024) {
        await writer.write(encoder.encode(batch));
        batch = "";
      }
    }
    if (batch) await writer.write(encoder.encode(batch));
    await writer.close();
  } catch (err) {
    await writer.abort(err).catch(() => {});
    throw err;
  }
  return n;
}

if (import.meta.main) {
  const opened = await openStoreFromEnv((name) => Deno.env.get(name));
  try {
    const file = Deno.args[0];
    const out = file
      ? await Deno.open(file, { write: true, create: true, truncate: true })
      : null;
    const n = await exportLines(
      opened.store,
      out?.writable ?? Deno.stdout.writable,
    );
    console.error(
      `Exported ${n} lines from ${opened.where}${file ? ` to ${file}` : ""}.`,
    );
  } finally {
    await opened.close();
  }
}
