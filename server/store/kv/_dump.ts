/**
 * Export and import of the Deno KV store: everything under the prefix as
 * store lines, and those lines written back into an empty store.
 *
 * @module
 */
import type { ContentRecord, Revision, StoreLine } from "../types.ts";
import { checkRevision } from "../_revision.ts";
import { checkDraft, draftLines, type RecordDrafts } from "../draft.ts";
import {
  commit,
  draftKey,
  DRAFTS,
  type KvAt,
  recordKey,
  REVISIONS,
} from "./_layout.ts";
import { setHead, setRevision } from "./_history.ts";

/**
 * Every record, then every revision (oldest first per field), then every
 * draft.
 */
export async function* dump(at: KvAt): AsyncIterable<StoreLine> {
  const depth = at.prefix.length;
  const drafts: [string, string, RecordDrafts][] = [];
  for await (const e of at.kv.list<unknown>({ prefix: at.prefix })) {
    const part = e.key[depth];
    if (typeof part === "string" && e.key.length === depth + 2) {
      yield {
        type: "record",
        collection: part,
        key: e.key[depth + 1] as string,
        record: e.value as ContentRecord,
      };
    } else if (part === REVISIONS) {
      yield { type: "revision", revision: e.value as Revision };
    } else if (part === DRAFTS) {
      const [collection, key] = e.key.slice(depth + 1) as string[];
      drafts.push([collection, key, e.value as RecordDrafts]);
    }
  }
  yield* draftLines(drafts);
}

/** Loads a dump into this empty store; throws on a non-empty one. */
export async function load(
  at: KvAt,
  lines: AsyncIterable<StoreLine> | Iterable<StoreLine>,
): Promise<void> {
  for await (const _ of at.kv.list({ prefix: at.prefix }, { limit: 1 })) {
    throw new Error("store is not empty");
  }
  const seqs = new Map<string, number>();
  for await (const line of lines) {
    const op = at.kv.atomic();
    if (line.type === "record") {
      op.set(recordKey(at, line.collection, line.key), line.record);
    } else if (line.type === "draft") {
      const { collection, key, field, value, at: when, editor } = checkDraft(
        line.draft,
      );
      const draftAt = draftKey(at, collection, key);
      const drafts = await at.kv.get<RecordDrafts>(draftAt);
      op.check(drafts).set(draftAt, {
        ...drafts.value,
        [field]: { value, at: when, editor },
      });
    } else {
      const rev = checkRevision(line.revision);
      const id = JSON.stringify([rev.collection, rev.key, rev.field]);
      const seq = (seqs.get(id) ?? 0) + 1;
      seqs.set(id, seq);
      setRevision(at, op, rev, seq);
      setHead(at, op, rev.collection, rev.key, rev.field, seq);
    }
    if (!await commit(op)) throw new Error("import write failed");
  }
}
