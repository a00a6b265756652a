/**
 * `deno task export` / `deno task import`: the real CLIs, Deno KV →
 * PostgreSQL → Deno KV, identical content, history, unpublished drafts,
 * review comments and verdicts;
 * a non-empty store and a bad line are refused.
 */
import assert from "node:assert/strict";
import { KvContentStore } from "../../server/store/kv/mod.ts";
import type { StoreLine } from "../../server/store/types.ts";
import { HAS_POSTGRES, startPostgres } from "../helpers/postgres.ts";

const ROOT = new URL("../../", import.meta.url);

/** Runs a tool as `deno task` would, with `env`; returns code and stderr. */
async function tool(
  name: "export" | "import",
  file: string,
  env: Record<string, string>,
) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `tools/${name}.ts`, file],
    cwd: ROOT,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

async function readLines(file: string): Promise<StoreLine[]> {
  const text = await Deno.readTextFile(file);
  return text.trim().split("\n").map((l) => JSON.parse(l));
}

Deno.test(
  "export/import: KV → PostgreSQL → KV keeps content, history and drafts",
  { ignore: !HAS_POSTGRES },
  async () => {
    await using pg = await startPostgres();
    const dir = await Deno.makeTempDir({ prefix: "cms-export-" });
    const PATH = Deno.env.get("PATH") ?? "";
    const HOME = Deno.env.get("HOME") ?? dir;
    const base = { PATH, HOME };
    let draftsBefore;
    try {
      // A KV store with records, lists, rich text, Unicode and history.
      await Deno.mkdir(`${dir}/a`);
      const kv = await Deno.openKv(`${dir}/a/content.kv`);
      try {
        const store = new KvContentStore(kv);
        await store.update("pages", "home", () => ({
          title: "Hello",
          features: ["a", "b"],
        }));
        for (const title of ["Hi", "Hé 👋", "Hey"]) {
          await store.update("pages", "home", (r) => ({ ...r, title }), {
            field: "title",
            editor: "Ada",
          });
        }
        await store.update("pages", "home", (r) => ({
          ...r,
          features: ["a", "B"],
        }), { field: "features.1", editor: "Bo" });
        await store.update("posts", "ünï-1", () => ({ body: "<p>x</p>" }), {
          field: "body",
          editor: "Cy",
          published: false,
        });
        // Unpublished drafts: of a published field, of a list item, and of a
        // record that has no published values yet.
        await store.updateDraft("pages", "home", (r) => ({
          ...r,
          title: "Draft ✏️",
        }), { field: "title", editor: "Ada" });
        await store.updateDraft("pages", "home", (r) => ({
          ...r,
          features: ["A", "B"],
        }), { field: "features.0", editor: "Bo" });
        await store.updateDraft("posts", "new", () => ({ body: "<p>d</p>" }), {
          field: "body",
          editor: "Cy",
        });
        draftsBefore = await store.drafts();
        // A thread with a reply, resolved, and a verdict on the page.
        const anchor = {
          field: "pages:home:title",
          quote: "Draft",
          prefix: "",
          suffix: " ✏️",
        };
        const author = { name: "Rita", kind: "reviewer" as const };
        const created = "2030-01-01T00:00:00.000Z";
        await store.addComment({
          id: "c1",
          page: "/",
          anchor,
          thread: "c1",
          text: "Wörds 👋",
          author,
          created,
        });
        await store.addComment({
          id: "c2",
          page: "/",
          anchor,
          thread: "c1",
          text: "Reply",
          author,
          created,
        });
        await store.updateComment("c1", {
          resolved: { by: "Ada", at: created },
        });
        await store.addApproval({
          id: "a1",
          page: "/",
          verdict: "approved",
          by: author,
          at: created,
          fields: [{ field: "pages:home:title", version: "1" }],
        });
      } finally {
        kv.close();
      }

      const a = await tool("export", `${dir}/a.jsonl`, {
        ...base,
        CMS_DATA_DIR: `${dir}/a`,
      });
      assert.equal(a.code, 0, a.stderr);
      const pgEnv = { ...base, CMS_DATABASE_URL: await pg.database() };
      const toPg = await tool("import", `${dir}/a.jsonl`, pgEnv);
      assert.equal(toPg.code, 0, toPg.stderr);
      const b = await tool("export", `${dir}/b.jsonl`, pgEnv);
      assert.equal(b.code, 0, b.stderr);
      const toKv = await tool("import", `${dir}/b.jsonl`, {
        ...base,
        CMS_DATA_DIR: `${dir}/c`,
      });
      assert.equal(toKv.code, 0, toKv.stderr);
      const c = await tool("export", `${dir}/c.jsonl`, {
        ...base,
        CMS_DATA_DIR: `${dir}/c`,
      });
      assert.equal(c.code, 0, c.stderr);

      const [la, lb, lc] = await Promise.all(
        ["a", "b", "c"].map((n) => readLines(`${dir}/${n}.jsonl`)),
      );
      assert.equal(la.filter((l) => l.type === "record").length, 2);
      assert.equal(la.filter((l) => l.type === "revision").length, 11);
      assert.equal(la.filter((l) => l.type === "comment").length, 2);
      assert.equal(la.filter((l) => l.type === "approval").length, 1);
      assert.deepEqual(
        la.filter((l) => l.type === "draft").map((l) => l.draft),
        draftsBefore?.toSorted((a, b) =>
          `${a.collection} ${a.key} ${a.field}` <
              `${b.collection} ${b.key} ${b.field}`
            ? -1
            : 1
        ),
      );
      assert.deepEqual(lb, la);
      assert.deepEqual(lc, la);
      // The drafts are back as drafts: the round-tripped store lists them and
      // overlays them, while its published values stay as they were.
      const kvC = await Deno.openKv(`${dir}/c/content.kv`);
      try {
        const back = new KvContentStore(kvC);
        assert.deepEqual(await back.drafts(), draftsBefore);
        assert.deepEqual(await back.get("pages", "home"), {
          title: "Hey",
          features: ["a", "B"],
        });
        assert.deepEqual(await back.getDrafted("pages", "home"), {
          title: "Draft ✏️",
          features: ["A", "B"],
        });
        assert.equal(await back.get("posts", "new"), null);
      } finally {
        kvC.close();
      }
      // The KV files themselves: byte-identical dumps too.
      assert.equal(
        await Deno.readTextFile(`${dir}/c.jsonl`),
        await Deno.readTextFile(`${dir}/a.jsonl`),
      );

      // A non-empty store is refused and left as it was.
      const again = await tool("import", `${dir}/a.jsonl`, pgEnv);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /not empty/);
      const still = await tool("export", `${dir}/d.jsonl`, pgEnv);
      assert.equal(still.code, 0);
      assert.deepEqual(await readLines(`${dir}/d.jsonl`), la);

      // A bad line into PostgreSQL: nothing is written (one transaction).
      await Deno.writeTextFile(
        `${dir}/bad.jsonl`,
        (await Deno.readTextFile(`${dir}/a.jsonl`)) + '{"type":"revision"}\n',
      );
      const emptyPg = { ...base, CMS_DATABASE_URL: await pg.database() };
      const bad = await tool("import", `${dir}/bad.jsonl`, emptyPg);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, new RegExp(`line ${la.length + 1}\\b`));
      const none = await tool("export", `${dir}/e.jsonl`, emptyPg);
      assert.equal(none.code, 0);
      assert.equal((await Deno.readTextFile(`${dir}/e.jsonl`)).trim(), "");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("import: comment and verdict lines are read and checked", async () => {
  const { parseLines } = await import("../../tools/import.ts");
  const comment = {
    id: "c1",
    page: "/",
    anchor: { field: "pages:home:title", quote: "Hi", prefix: "", suffix: "" },
    thread: "c1",
    text: "Ok",
    author: { name: "Rita", kind: "reviewer" },
    created: "2030-01-01T00:00:00.000Z",
  };
  const approval = {
    id: "a1",
    page: "/",
    verdict: "approved",
    by: { name: "Rita", kind: "reviewer" },
    at: "2030-01-01T00:00:00.000Z",
    fields: [],
  };
  const read = (...lines: unknown[]) =>
    Array.fromAsync(
      parseLines(
        ReadableStream.from([lines.map((l) => JSON.stringify(l)).join("\n")]),
      ),
    );
  const lines = await read(
    { type: "comment", comment },
    { type: "approval", approval },
  );
  assert.deepEqual(lines.map((l) => l.type), ["comment", "approval"]);
  await assert.rejects(
    read({ type: "comment", comment }, {
      type: "comment",
      comment: { ...comment, text: "x".repeat(2001) },
    }),
    /line 2: A comment may have at most 2000 characters/,
  );
  await assert.rejects(
    read({ type: "approval", approval: { ...approval, verdict: "maybe" } }),
    /line 1: Not a valid verdict/,
  );
});
