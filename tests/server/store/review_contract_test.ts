/**
 * The review contract, run unchanged against the memory, Deno KV and
 * PostgreSQL stores: comments (threads, replies, resolve, edit, delete),
 * verdicts, the limits refused with nothing stored, and export/import.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import { KvContentStore } from "../../../server/store/kv/mod.ts";
import { PostgresContentStore } from "../../../postgres/store/mod.ts";
import type { DraftStore, StoreLine } from "../../../server/store/types.ts";
import { contentVersion } from "../../../core/version.ts";
import { approvalCovers } from "../../../core/review/approval.ts";
import {
  isReviewStore,
  MAX_APPROVAL_FIELDS,
  ReviewRefusal,
  type ReviewStore,
} from "../../../server/store/review.ts";
import {
  type Approval,
  type Comment,
  type CommentAuthor,
  MAX_APPROVALS_PER_PAGE,
  MAX_COMMENT_CHARS,
  MAX_COMMENTS_PER_PAGE,
  MAX_NAME_CHARS,
  MAX_QUOTE_CHARS,
} from "../../../core/protocol/review.ts";
import { HAS_POSTGRES, startPostgres } from "../../helpers/postgres.ts";

type Store = ReviewStore & DraftStore;
interface Opened extends AsyncDisposable {
  store: Store;
}
type Open = () => Promise<Opened>;
type Case = (open: Open) => Promise<void>;

const ADA: CommentAuthor = { name: "Ada", kind: "editor" };
const REV: CommentAuthor = { name: "Rita", kind: "reviewer" };
let clock = Date.parse("2030-01-01T00:00:00.000Z");
const tick = () => new Date(clock += 1000).toISOString();

function comment(id: string, over: Partial<Comment> = {}): Comment {
  return {
    id,
    page: "/de/article",
    anchor: {
      field: "pages:article:body@de",
      quote: "schnelle",
      prefix: "Der ",
      suffix: " Fuchs",
    },
    thread: id,
    text: `Text of ${id}`,
    author: ADA,
    created: tick(),
    ...over,
  };
}

function approval(id: string, over: Partial<Approval> = {}): Approval {
  return {
    id,
    page: "/de/article",
    verdict: "approved",
    by: REV,
    at: tick(),
    fields: [{ field: "pages:article:body@de", version: "3x" }],
    ...over,
  };
}

async function refused(
  promise: Promise<unknown>,
  status: number,
  message?: RegExp,
) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof ReviewRefusal, String(err));
    assert.equal(err.status, status, err.message);
    if (message) assert.match(err.message, message);
    return true;
  });
}

const ids = (list: { id: string }[]) => list.map((c) => c.id);

const cases: Record<string, Case> = {
  "is a review store": async (open) => {
    await using s = await open();
    assert.ok(isReviewStore(s.store));
  },

  "create a thread, reply, list per page, oldest first": async (open) => {
    await using s = await open();
    const first = await s.store.addComment(comment("c1"));
    assert.equal(first.text, "Text of c1");
    const reply = await s.store.addComment(
      comment("c2", {
        thread: "c1",
        author: REV,
        anchor: { field: "x", quote: "other", prefix: "", suffix: "" },
      }),
    );
    // A reply carries its thread's anchor.
    assert.deepEqual(reply.anchor, first.anchor);
    await s.store.addComment(comment("o1", { page: "/en/article" }));
    assert.deepEqual(ids(await s.store.comments("/de/article")), ["c1", "c2"]);
    assert.deepEqual(ids(await s.store.comments("/en/article")), ["o1"]);
    assert.deepEqual(await s.store.comments("/nothing"), []);
    assert.deepEqual(await s.store.comment("c2"), reply);
    assert.equal(await s.store.comment("nope"), null);
  },

  "a reply needs its thread on the same page": async (open) => {
    await using s = await open();
    await s.store.addComment(comment("c1"));
    await s.store.addComment(comment("c2", { thread: "c1" }));
    await refused(s.store.addComment(comment("r", { thread: "gone" })), 404);
    // A reply is no thread: no reply to a reply.
    await refused(s.store.addComment(comment("r", { thread: "c2" })), 404);
    await refused(
      s.store.addComment(comment("r", { thread: "c1", page: "/other" })),
      404,
    );
    await refused(s.store.addComment(comment("c1")), 409, /taken/);
    await refused(
      s.store.addComment(comment("c1", { page: "/other" })),
      409,
      /taken/,
    );
    assert.deepEqual(ids(await s.store.comments("/de/article")), ["c1", "c2"]);
    assert.deepEqual(await s.store.comments("/other"), []);
  },

  "resolve and reopen a thread": async (open) => {
    await using s = await open();
    await s.store.addComment(comment("c1"));
    await s.store.addComment(comment("c2", { thread: "c1" }));
    const at = tick();
    const resolved = await s.store.updateComment("c1", {
      resolved: { by: "Rita", at },
    });
    assert.deepEqual(resolved?.resolved, { by: "Rita", at });
    assert.deepEqual((await s.store.comment("c1"))?.resolved, {
      by: "Rita",
      at,
    });
    await refused(
      s.store.updateComment("c2", { resolved: { by: "Rita", at } }),
      400,
    );
    const reopened = await s.store.updateComment("c1", { resolved: null });
    assert.equal(reopened?.resolved, undefined);
    assert.equal((await s.store.comment("c1"))?.resolved, undefined);
    assert.equal(await s.store.updateComment("nope", { resolved: null }), null);
  },

  "authors edit their own comments": async (open) => {
    await using s = await open();
    const c = await s.store.addComment(comment("c1"));
    const edited = tick();
    const next = await s.store.updateComment(
      "c1",
      { text: "Better", edited },
      { author: ADA },
    );
    assert.equal(next?.text, "Better");
    assert.equal(next?.edited, edited);
    assert.equal(next?.created, c.created);
    await refused(
      s.store.updateComment("c1", { text: "Mine now" }, { author: REV }),
      403,
    );
    await refused(
      s.store.updateComment("c1", { text: "Mine" }, {
        author: { name: "Ada", kind: "reviewer" },
      }),
      403,
    );
    await refused(s.store.updateComment("c1", { text: "  " }), 400);
    await refused(
      s.store.updateComment("c1", { text: "x".repeat(MAX_COMMENT_CHARS + 1) }),
      413,
      /2000/,
    );
    assert.equal((await s.store.comment("c1"))?.text, "Better");
  },

  "delete: a reply goes, a first with replies stays as deleted": async (
    open,
  ) => {
    await using s = await open();
    await s.store.addComment(comment("c1"));
    await s.store.addComment(comment("c2", { thread: "c1", author: REV }));
    await s.store.addComment(comment("c3", { thread: "c1", author: REV }));
    await refused(s.store.deleteComment("c2", { author: ADA }), 403);
    assert.equal(await s.store.deleteComment("c2", { author: REV }), true);
    assert.equal(await s.store.deleteComment("c2"), false);
    assert.equal(await s.store.deleteComment("c1", { author: ADA }), true);
    const kept = await s.store.comment("c1");
    assert.equal(kept?.deleted, true);
    assert.equal(kept?.text, "");
    assert.deepEqual(ids(await s.store.comments("/de/article")), ["c1", "c3"]);
    // A deleted first takes no new text, but its thread takes replies.
    await refused(s.store.updateComment("c1", { text: "back" }), 409);
    await s.store.addComment(comment("c4", { thread: "c1" }));
    await s.store.deleteComment("c4");
    // The last reply takes the deleted first with it.
    assert.equal(await s.store.deleteComment("c3"), true);
    assert.deepEqual(await s.store.comments("/de/article"), []);
    assert.equal(await s.store.comment("c1"), null);
    // A thread without replies goes at once.
    await s.store.addComment(comment("c5"));
    assert.equal(await s.store.deleteComment("c5"), true);
    assert.deepEqual(await s.store.comments("/de/article"), []);
    // Its id is free again.
    await s.store.addComment(comment("c5"));
  },

  "the limits are refused and nothing is stored": async (open) => {
    await using s = await open();
    const bad: [Partial<Comment>, number][] = [
      [{ text: "x".repeat(MAX_COMMENT_CHARS + 1) }, 413],
      [{ text: "" }, 400],
      [{ text: " \n " }, 400],
      [{ text: "nul \0" }, 400],
      [{ text: "half \ud83d" }, 400],
      [{ author: { name: "\udc00", kind: "editor" } }, 400],
      [
        { author: { name: "x".repeat(MAX_NAME_CHARS + 1), kind: "editor" } },
        400,
      ],
      [{ author: { name: " ", kind: "editor" } }, 400],
      [{ author: { name: "Eve", kind: "admin" as "editor" } }, 400],
      [{ page: "no-slash" }, 400],
      [{ page: "/a?b" }, 400],
      [{ page: "/a b" }, 400],
      [{ created: "yesterday" }, 400],
      [{ anchor: { field: "f", quote: "", prefix: "", suffix: "" } }, 400],
      [{ anchor: { field: "f", quote: "q\0", prefix: "", suffix: "" } }, 400],
      [{
        anchor: {
          field: "f",
          quote: "q".repeat(MAX_QUOTE_CHARS + 1),
          prefix: "",
          suffix: "",
        },
      }, 400],
      [{
        anchor: { field: "f", quote: "q", prefix: "p".repeat(33), suffix: "" },
      }, 400],
    ];
    for (const [over, status] of bad) {
      await refused(s.store.addComment(comment("bad", over)), status);
    }
    await refused(
      s.store.addComment(null as unknown as Comment),
      400,
    );
    assert.equal(await s.store.comment("bad"), null);
    // The longest text and name are fine.
    await s.store.addComment(
      comment("max", {
        text: "ü".repeat(MAX_COMMENT_CHARS),
        author: { name: "n".repeat(MAX_NAME_CHARS), kind: "reviewer" },
      }),
    );
    assert.equal(
      (await s.store.comment("max"))?.text.length,
      MAX_COMMENT_CHARS,
    );
  },

  "a page keeps at most MAX_COMMENTS_PER_PAGE comments": async (open) => {
    await using s = await open();
    const page = "/full";
    await s.store.load(
      Array.from({ length: MAX_COMMENTS_PER_PAGE - 1 }, (_, i) => ({
        type: "comment" as const,
        comment: comment(`f${i}`, { page }),
      })),
    );
    await s.store.addComment(comment("last", { page, thread: "f0" }));
    await refused(
      s.store.addComment(comment("more", { page })),
      409,
      /1000 comments/,
    );
    assert.equal(await s.store.comment("more"), null);
    // Other pages have their own room; a delete makes room again.
    await s.store.addComment(comment("elsewhere"));
    await s.store.deleteComment("last");
    await s.store.addComment(comment("more", { page }));
    assert.equal((await s.store.comments(page)).length, MAX_COMMENTS_PER_PAGE);
  },

  "concurrent comments on one page all land, within the limit": async (
    open,
  ) => {
    await using s = await open();
    await s.store.addComment(comment("t"));
    await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => s.store.addComment(comment(`r${i}`, { thread: "t" })),
      ),
    );
    assert.equal((await s.store.comments("/de/article")).length, 21);
  },

  "a concurrent resolve and delete lose neither": async (open) => {
    await using s = await open();
    for (let i = 0; i < 5; i++) {
      await s.store.addComment(comment(`t${i}`));
      await s.store.addComment(comment(`t${i}r`, { thread: `t${i}` }));
      const at = tick();
      await Promise.all([
        s.store.updateComment(`t${i}`, { resolved: { by: "Rita", at } }),
        s.store.deleteComment(`t${i}`),
      ]);
      const first = await s.store.comment(`t${i}`);
      assert.equal(first?.deleted, true);
      assert.deepEqual(first?.resolved, { by: "Rita", at });
    }
  },

  "verdicts are recorded and listed per page": async (open) => {
    await using s = await open();
    const a = await s.store.addApproval(approval("a1", { note: "Fine" }));
    assert.equal(a.note, "Fine");
    await s.store.addApproval(
      approval("a2", { verdict: "changes", by: ADA, fields: [] }),
    );
    await s.store.addApproval(approval("o1", { page: "/other" }));
    const listed = await s.store.approvals("/de/article");
    assert.deepEqual(ids(listed), ["a1", "a2"]);
    assert.deepEqual(listed[0], a);
    assert.equal(listed[1].verdict, "changes");
    assert.deepEqual(ids(await s.store.approvals("/other")), ["o1"]);
    assert.deepEqual(await s.store.approvals("/none"), []);
    await refused(s.store.addApproval(approval("a1")), 409);
    await refused(
      s.store.addApproval(approval("x", { verdict: "ok" as "approved" })),
      400,
    );
    await refused(
      s.store.addApproval(
        approval("x", { note: "n".repeat(MAX_COMMENT_CHARS + 1) }),
      ),
      413,
    );
    await refused(
      s.store.addApproval(
        approval("x", {
          fields: Array.from(
            { length: MAX_APPROVAL_FIELDS + 1 },
            (_, i) => ({ field: `pages:p:f${i}`, version: "1" }),
          ),
        }),
      ),
      413,
    );
    assert.equal((await s.store.approvals("/de/article")).length, 2);
  },

  "a verdict is voided by a later draft edit": async (open) => {
    await using s = await open();
    const field = "pages:article:body";
    const draftNow = async () =>
      (await s.store.drafts()).map((d) => ({
        field: `${d.collection}:${d.key}:${d.field}`,
        version: contentVersion(d.value),
      }));
    const save = (body: string) =>
      s.store.updateDraft("pages", "article", (r) => ({ ...r, body }), {
        field: "body",
        editor: "Ada",
      });
    await save("<p>Der schnelle Fuchs</p>");
    await s.store.addApproval(approval("a1", { fields: await draftNow() }));
    const covered = approvalCovers(
      await s.store.approvals("/de/article"),
      await draftNow(),
    );
    assert.deepEqual(covered.missing, []);
    assert.deepEqual(covered.covered.map((c) => c.field), [field]);
    await save("<p>Der langsame Fuchs</p>");
    assert.deepEqual(
      approvalCovers(await s.store.approvals("/de/article"), await draftNow())
        .missing,
      [field],
    );
    // A new approval covers the new draft; a later "changes" voids it.
    await s.store.addApproval(approval("a2", { fields: await draftNow() }));
    assert.deepEqual(
      approvalCovers(await s.store.approvals("/de/article"), await draftNow())
        .missing,
      [],
    );
    await s.store.addApproval(
      approval("a3", { verdict: "changes", fields: await draftNow() }),
    );
    assert.deepEqual(
      approvalCovers(await s.store.approvals("/de/article"), await draftNow())
        .missing,
      [field],
    );
  },

  "a page keeps its newest verdicts": async (open) => {
    await using s = await open();
    for (let i = 0; i < MAX_APPROVALS_PER_PAGE + 2; i++) {
      await s.store.addApproval(approval(`a${String(i).padStart(3, "0")}`));
    }
    const kept = await s.store.approvals("/de/article");
    assert.equal(kept.length, MAX_APPROVALS_PER_PAGE);
    assert.equal(kept[0].id, "a002");
    assert.equal(kept.at(-1)?.id, `a${MAX_APPROVALS_PER_PAGE + 1}`);
  },

  "export and import keep comments and verdicts": async (open) => {
    await using s = await open();
    await s.store.update("pages", "article", () => ({ body: "Der schnelle" }), {
      field: "body",
      editor: "Ada",
    });
    await s.store.addComment(comment("c1"));
    await s.store.addComment(comment("c2", { thread: "c1", author: REV }));
    await s.store.addComment(comment("c3", { thread: "c1" }));
    await s.store.updateComment("c1", {
      resolved: { by: "Rita", at: tick() },
    });
    await s.store.deleteComment("c1");
    await s.store.updateComment("c2", { text: "Edited 😀", edited: tick() });
    await s.store.addComment(comment("e1", { page: "/en" }));
    await s.store.addApproval(approval("a1", { note: "ok" }));
    await s.store.addApproval(approval("a2", { verdict: "changes" }));
    const lines: StoreLine[] = [];
    for await (const line of s.store.dump()) lines.push(line);
    const json = lines.map((l) => JSON.parse(JSON.stringify(l)) as StoreLine);
    assert.equal(json.filter((l) => l.type === "comment").length, 4);
    assert.equal(json.filter((l) => l.type === "approval").length, 2);
    await using t = await open();
    await t.store.load(json);
    for (const page of ["/de/article", "/en"]) {
      assert.deepEqual(
        await t.store.comments(page),
        await s.store.comments(page),
      );
      assert.deepEqual(
        await t.store.approvals(page),
        await s.store.approvals(page),
      );
    }
    assert.deepEqual(await t.store.get("pages", "article"), {
      body: "Der schnelle",
    });
    // The loaded store goes on working: the thread, the ids, the count.
    await t.store.addComment(comment("c4", { thread: "c1" }));
    await refused(t.store.addComment(comment("e1")), 409);
    // A store with comments only is not empty: load refuses.
    await using u = await open();
    await u.store.addComment(comment("z"));
    await assert.rejects(u.store.load(json), /not empty/);
  },
};

/** Registers every case as a step of one test per store. */
function contract(
  name: string,
  setup: () => Promise<{ open: Open } & AsyncDisposable>,
) {
  Deno.test(`review contract: ${name}`, {
    ignore: name.startsWith("Postgres") && !HAS_POSTGRES,
  }, async (t) => {
    await using env = await setup();
    for (const [title, run] of Object.entries(cases)) {
      await t.step(title, () => run(env.open));
    }
  });
}

const none = { [Symbol.asyncDispose]: () => Promise.resolve() };

contract("MemoryContentStore", () =>
  Promise.resolve({
    open: () => Promise.resolve({ store: new MemoryContentStore(), ...none }),
    ...none,
  }));

contract("KvContentStore (file)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-kv-" });
  let n = 0;
  return {
    open: async () => {
      const kv = await Deno.openKv(`${dir}/${++n}.kv`);
      return {
        store: new KvContentStore(kv) as unknown as Store,
        [Symbol.asyncDispose]: () => Promise.resolve(kv.close()),
      };
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
});

contract("PostgresContentStore", async () => {
  const pg = await startPostgres();
  let sql: postgres.Sql | undefined;
  try {
    sql = postgres(await pg.database(), { max: 10, onnotice: () => {} });
  } catch (err) {
    await pg.close();
    throw err;
  }
  let n = 0;
  return {
    open: () =>
      Promise.resolve({
        store: new PostgresContentStore(sql, {
          prefix: `r${++n}`,
        }) as unknown as Store,
        ...none,
      }),
    async [Symbol.asyncDispose]() {
      try {
        await sql.end();
      } finally {
        await pg.close();
      }
    },
  };
});
