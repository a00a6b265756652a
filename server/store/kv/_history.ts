/**
 * History in Deno KV: a revision goes in the same atomic commit as what it
 * records, under its field and sequence number, with its id pointing there
 * and the field's head holding the newest sequence number. A large value
 * is a blob (`_blobs.ts`) the revision refers to. Retention prunes after
 * the commit, with the blobs of what it prunes.
 *
 * @module
 */
import type { Revision } from "../types.ts";
import { expired } from "../_revision.ts";
import {
  type Head,
  headKey,
  type IdEntry,
  IDS,
  type KvAt,
  listAll,
  reading,
  REVISIONS,
} from "./_layout.ts";
import {
  type BlobRef,
  collect,
  isRef,
  type NewBlob,
  packOne,
  readBlobs,
  switchBlobs,
} from "./_blobs.ts";

/**
 * Adds a revision and its id entry to an atomic operation; a large value
 * goes to a blob, returned to write before the commit (`commitWith`).
 */
export function setRevision(
  at: KvAt,
  op: Deno.AtomicOperation,
  rev: Revision,
  seq: number,
): NewBlob | null {
  const { collection, key, field } = rev;
  const [value, blob] = packOne(rev.value);
  const stored = blob ? { ...rev, value } : rev;
  op.set([...at.prefix, REVISIONS, collection, key, field, seq], stored);
  op.set(
    [...at.prefix, IDS, rev.id],
    [collection, key, field, seq] satisfies IdEntry,
  );
  return blob;
}

/**
 * Revisions as stored with their blobs read; one whose blob is gone (pruned
 * meanwhile) is left out.
 */
export async function unpackRevisions(
  at: KvAt,
  stored: Revision[],
): Promise<Revision[]> {
  const out: Revision[] = [];
  for (const rev of stored) {
    const v = rev.value as unknown;
    if (!isRef(v)) {
      out.push(rev);
      continue;
    }
    const got = await readBlobs(at, [v]);
    const value = got?.get(v.blob);
    if (value !== undefined) out.push({ ...rev, value });
  }
  return out;
}

/** Sets a field's history head to `seq` in an atomic operation. */
export function setHead(
  at: KvAt,
  op: Deno.AtomicOperation,
  collection: string,
  key: string,
  field: string,
  seq: number,
): void {
  op.set(headKey(at, collection, key, field), { seq } satisfies Head);
}

/** The history heads of `fields` (field → seq; absent: no history). */
export async function heads(
  at: KvAt,
  collection: string,
  key: string,
  fields: string[],
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  // getMany takes at most 10 keys.
  for (let i = 0; i < fields.length; i += 10) {
    const part = fields.slice(i, i + 10);
    const got = await reading(() =>
      at.kv.getMany<Head[]>(part.map((f) => headKey(at, collection, key, f)))
    );
    got.forEach((e, j) => {
      if (e.value) found.set(part[j], e.value.seq);
    });
  }
  return found;
}

/**
 * Drops what retention lets go, oldest first, at most 100 per save. Pruned
 * revisions are always the oldest, so sequence numbers above the oldest
 * kept one have no gaps and `seq - n` counts the newer revisions. A
 * failure here never fails the save.
 */
export async function prune(
  at: KvAt,
  collection: string,
  key: string,
  field: string,
  seq: number,
): Promise<void> {
  try {
    const base = [...at.prefix, REVISIONS, collection, key, field];
    const op = at.kv.atomic();
    let n = 0;
    const now = Date.now();
    const refs: BlobRef[] = [];
    for await (
      const e of at.kv.list<Revision>({
        prefix: base,
        end: [...base, seq],
      }, { limit: 100 })
    ) {
      const revSeq = e.key[e.key.length - 1] as number;
      if (!expired(seq - revSeq, e.value.at, at.retention, now)) break;
      op.delete(e.key).delete([...at.prefix, IDS, e.value.id]);
      if (isRef(e.value.value)) refs.push(e.value.value);
      n++;
    }
    const garbage = switchBlobs(at, op, null, refs);
    if (n) await op.commit();
    if (garbage) await collect(at, refs, [garbage]);
  } catch (err) {
    console.error("cms: pruning history failed", err);
  }
}

/** Prunes each `[collection, key, field, seq]` (only with a retention). */
export async function pruneAll(
  at: KvAt,
  pruned: [string, string, string, number][],
): Promise<void> {
  if (!at.retention) return;
  for (const [c, k, f, seq] of pruned) await prune(at, c, k, f, seq);
}

/** A field's revisions, newest first, at most `limit`. */
export async function revisions(
  at: KvAt,
  collection: string,
  key: string,
  field: string,
  limit?: number,
): Promise<Revision[]> {
  if (limit !== undefined && limit <= 0) return [];
  const prefix = [...at.prefix, REVISIONS, collection, key, field];
  const found = await listAll<Revision>(at, prefix, { reverse: true, limit });
  return unpackRevisions(at, found.map((e) => e.value));
}

/** One revision by id, or `null`. */
export function revision(at: KvAt, id: string): Promise<Revision | null> {
  return reading(async () => {
    const where = await at.kv.get<IdEntry>([...at.prefix, IDS, id]);
    if (!where.value) return null;
    const rev = await at.kv.get<Revision>([
      ...at.prefix,
      REVISIONS,
      ...where.value,
    ]);
    return rev.value && (await unpackRevisions(at, [rev.value]))[0] || null;
  });
}
