/**
 * Locales on existing data: a Deno KV data folder and a PostgreSQL
 * database written by the pre-locale API (no locales declared, the store
 * closed), then opened again by a site that declares locales. Nothing is
 * lost or rewritten; the old values are the default locale's; a new
 * locale's values go beside them; export and import carry them.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import {
  type Allowlist,
  defineContent,
  image,
  plain,
  shared,
} from "../../../core/content.ts";
import { readLocalized } from "../../../server/store/localized.ts";
import { createSaveHandler } from "../../../server/save/handler.ts";
import { KvContentStore } from "../../../server/store/kv/mod.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { PostgresContentStore } from "../../../postgres/store/mod.ts";
import type { DraftStore, StoreLine } from "../../../server/store/types.ts";
import { HAS_POSTGRES, startPostgres } from "../../helpers/postgres.ts";

/** The declaration the site had before locales. */
const before = defineContent({
  pages: { title: plain(), body: "rich", logo: "image" },
});
/** The same site, now in English and German. */
const after = defineContent({
  pages: { title: plain(), body: "rich", logo: shared(image()) },
}, { locales: ["en", "de"] });

const ADA = () => ({ name: "Ada" });

async function save(
  store: DraftStore,
  allowlist: Allowlist,
  body: Record<string, unknown>,
): Promise<number> {
  const handler = createSaveHandler({ authorize: ADA, allowlist, store });
  const res = await handler(
    new Request("http://localhost/api/cms/save", {
      method: "PATCH",
      body: JSON.stringify({ collection: "pages", key: "home", ...body }),
    }),
  );
  await res.body?.cancel();
  return res.status;
}

/** Writes a site's content the way the pre-locale code does. */
async function writeOld(store: DraftStore) {
  await store.update("pages", "home", () => ({
    title: "Hello",
    body: "<p>Hi</p>",
    logo: "/m/logo.png",
  }));
  assert.equal(
    await save(store, before, { field: "title", value: "Hello!" }),
    204,
  );
  await store.updateDraft("pages", "home", (r) => ({
    ...r,
    body: "<p>Draft</p>",
  }), { field: "body", editor: "Ada" });
}

/** Opens the old data with locales declared and checks everything. */
async function readNew(store: DraftStore, old: StoreLine[]) {
  // Opening and reading rewrote nothing.
  assert.deepEqual(await Array.fromAsync(store.dump()), old);
  for (const locale of ["en", "de"]) {
    const page = await readLocalized(store, after, "pages", "home", locale);
    assert.deepEqual(page, {
      values: { title: "Hello!", body: "<p>Hi</p>", logo: "/m/logo.png" },
      from: { title: "en", body: "en" },
    });
  }
  const drafted = await readLocalized(store, after, "pages", "home", "de", {
    drafts: true,
  });
  assert.equal(drafted?.values.body, "<p>Draft</p>");
  // German gets its own value; every old line is still there.
  assert.equal(
    await save(store, after, { field: "title", locale: "de", value: "Hallo" }),
    204,
  );
  assert.equal(
    await save(store, after, { field: "logo", locale: "de", value: "/x.png" }),
    400,
  );
  const now = await Array.fromAsync(store.dump());
  const records = now.filter((l) => l.type === "record");
  assert.deepEqual(records, [{
    type: "record",
    collection: "pages",
    key: "home",
    record: {
      title: "Hello!",
      body: "<p>Hi</p>",
      logo: "/m/logo.png",
      "title@de": "Hallo",
    },
  }]);
  const kept = (lines: StoreLine[]) =>
    lines.filter((l) => l.type !== "record").map((l) => JSON.stringify(l));
  const added = kept(now).filter((l) => !kept(old).includes(l));
  assert.deepEqual(kept(old).filter((l) => !kept(now).includes(l)), []);
  assert.equal(added.length, 1);
  assert.equal(JSON.parse(added[0]).revision.field, "title@de");
  assert.equal(
    (await readLocalized(store, after, "pages", "home", "de"))?.values.title,
    "Hallo",
  );
  // Export and import carry every locale.
  const copy = new MemoryContentStore();
  await copy.load(now);
  assert.deepEqual(await Array.fromAsync(copy.dump()), now);
}

Deno.test("locales on a pre-locale Deno KV data folder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-locale-kv-" });
  try {
    const path = `${dir}/content.kv`;
    let old: StoreLine[];
    {
      const kv = await Deno.openKv(path);
      try {
        const store = new KvContentStore(kv);
        await writeOld(store);
        old = await Array.fromAsync(store.dump());
      } finally {
        kv.close();
      }
    }
    const kv = await Deno.openKv(path);
    try {
      await readNew(new KvContentStore(kv), old);
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("locales on a pre-locale PostgreSQL database", {
  ignore: !HAS_POSTGRES,
}, async () => {
  await using pg = await startPostgres();
  const url = await pg.database();
  let old: StoreLine[];
  {
    const sql = postgres(url, { max: 2, onnotice: () => {} });
    try {
      const store = new PostgresContentStore(sql);
      await writeOld(store);
      old = await Array.fromAsync(store.dump());
    } finally {
      await sql.end();
    }
  }
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    await readNew(new PostgresContentStore(sql), old);
  } finally {
    await sql.end();
  }
});

Deno.test("locales on a pre-locale memory store", async () => {
  const store = new MemoryContentStore();
  await writeOld(store);
  await readNew(store, await Array.fromAsync(store.dump()));
});
