/**
 * Export and import of the Deno KV store: everything under the prefix as
 * store lines (large values read from their blobs), and those lines
 * written back into an empty store.
 *
 * @module
 */
import type { Revision, StoreLine } from "../types.ts";
import { checkRevision } from "../_revision.ts";
import { checkDraft, draftLines, type RecordDrafts } from "../draft.ts";
import {
  draftKey,
  DRAFTS,
  type KvAt,
  recordKey,
  REVISIONS,
} from "./_layout.ts";
import { setHead, setRevision, unpackRevisions } from "./_history.ts";
import { getRecord } from "./_records.ts";
import { loadReview, reviewLines } from "./_reviews.ts";
import {
  commitWith,
  type NewBlob,
  pack,
  packOne,
  readStable,
  type StoredDrafts,
  unpackDrafts,
} from "./_blobs.ts";

/**
 * Every record, then every revision (oldest first per field), then every
 * draft, then every comment and review verdict.
 */
export async function* dump(at: KvAt): AsyncIterable<StoreLine> {
  const depth = at.prefix.length;
  const drafts: [string, string, RecordDrafts][] = [];
  for await (const e of at.kv.list<unknown>({ prefix: at.prefix })) {
    const part = e.key[depth];
    if (typeof part === "string" && e.key.length === depth + 2) {
      const key = e.key[depth + 1] as string;
      yield {
        type: "record",
        collection: part,
        key,
        record: (await getRecord(at, part, key))!,
      };
    } else if (part === REVISIONS) {
      const [revision] = await unpackRevisions(at, [e.value as Revision]);
      if (revision) yield { type: "revision", revision };
    } else if (part === DRAFTS) {
      const [collection, key] = e.key.slice(depth + 1) as string[];
      const got = await readStable(async () =>
        unpackDrafts(
          at,
          (await at.kv.get<StoredDrafts>(e.key)).value,
        )
      );
      if (got[0]) drafts.push([collection, key, got[0]]);
    }
  }
  yield* draftLines(drafts);
  yield* reviewLines(at);
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
    if (line.type === "comment" || line.type === "approval") {
      await loadReview(at, line);
      continue;
    }
    const op = at.kv.atomic();
    let blobs: NewBlob[] = [];
    if (line.type === "record") {
      const packed = pack(null, null, line.record);
      blobs = packed.blobs;
      op.set(recordKey(at, line.collection, line.key), packed.stored);
    } else if (line.type === "draft") {
      const { collection, key, field, value, at: when, editor } = checkDraft(
        line.draft,
      );
      const draftAt = draftKey(at, collection, key);
      const drafts = await at.kv.get<StoredDrafts>(draftAt);
      const [stored, blob] = packOne(value);
      if (blob) blobs = [blob];
      op.check(drafts).set(draftAt, {
        ...drafts.value,
        [field]: { value: stored, at: when, editor },
      });
    } else {
      const rev = checkRevision(line.revision);
      const id = JSON.stringify([rev.collection, rev.key, rev.field]);
      const seq = (seqs.get(id) ?? 0) + 1;
      seqs.set(id, seq);
      const blob = setRevision(at, op, rev, seq);
      if (blob) blobs = [blob];
      setHead(at, op, rev.collection, rev.key, rev.field, seq);
    }
    if (!await commitWith(at, op, blobs, [])) {
      throw new Error("import write failed");
    }
  }
}
