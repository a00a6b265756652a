/**
 * Large values in Deno KV. KV takes at most 64 KiB per value, 800 KiB and
 * 1000 mutations per commit, 100 checks per commit and 10 keys per
 * `getMany`. A value that does not fit inline (see {@linkcode pack}) becomes
 * a blob: its UTF-8 bytes (a list: its JSON) in 60 KiB chunks under
 * `[BLOBS, id, i]`, where `id` is new for every value written, so a blob
 * never changes once written and its decoded value can be cached.
 *
 * Writing is two-phase. The chunks go first, in commits of at most 12, with
 * one pending marker `[PENDING, id]` naming the write's blobs (`since`:
 * when) in the first; then ONE commit switches: it writes the entries that
 * refer to the blobs, checks and deletes the marker, and writes a garbage
 * marker (`since: 0`) naming the blobs it stops referring to. A reader therefore sees either the old or the new
 * value, never half of one. The writer deletes what it retired (and, when
 * the switch failed, what it wrote) right after; what a crash leaves behind
 * still has its marker and is collected by {@linkcode sweep} once older than
 * {@linkcode GRACE_MS}, or at once for garbage. Checking the marker in the
 * switch means a writer stalled past the grace period cannot refer to a
 * blob the sweep deleted: its switch fails and it tries again.
 *
 * @module
 */
import type { ContentRecord, ContentValue } from "../types.ts";
import { commit, type KvAt, reading } from "./_layout.ts";
import { RecordTooLargeError } from "./_errors.ts";

/** Key part of blob chunks. */
export const BLOBS = 5;
/** Key part of pending and garbage blob markers. */
export const PENDING = 6;
/** Bytes per chunk (KV's value limit is 64 KiB). */
export const CHUNK = 60 * 1024;
/** Chunks per commit (KV's commit limit is 800 KiB). */
const PER_COMMIT = 12;
/** Largest value (UTF-16 bytes) kept inline in its entry. */
export const INLINE_MAX = 1024;
/** Most inline bytes (UTF-16) one entry holds; the rest become blobs. */
export const INLINE_BUDGET = 24 * 1024;
/** How old a pending blob must be before a sweep treats it as orphaned. */
export const GRACE_MS = 15 * 60 * 1000;

/** Where a blob is: its id, its number of chunks, whether it is a list. */
export interface BlobRef {
  /** Unique per value written. */
  blob: string;
  /** Number of chunks. */
  n: number;
  /** Present when the value is a list (stored as JSON). */
  list?: true;
}

/** A value as an entry holds it: inline, or where its blob is. */
export type Stored = ContentValue | BlobRef;

/** A record as its entry holds it: field → inline value or blob. */
export type StoredRecord = Record<string, Stored>;

/** A blob to write before the switch, and once written its marker's stamp. */
export interface NewBlob {
  /** Where it goes. */
  ref: BlobRef;
  /** Its bytes. */
  data: Uint8Array;
  /** Its value (cached once the switch committed). */
  value: ContentValue;
}

/** What packing produced: the entry, blobs to write, blobs to retire. */
export interface Packed<T> {
  /** The entry to write. */
  stored: T;
  /** Blobs to write before the switch. */
  blobs: NewBlob[];
  /** Blobs the entry no longer refers to. */
  retired: BlobRef[];
}

/**
 * A pending or garbage marker: the blobs of one write, and since when
 * (0: garbage, collectable at once).
 */
interface Marker {
  refs: BlobRef[];
  since: number;
}

/** A written pending marker: its id and versionstamp. */
export interface Pending {
  /** The marker's id. */
  id: string;
  /** Its versionstamp, checked by the switch. */
  stamp: string;
}

/** Whether a stored value is a blob reference. */
export function isRef(value: unknown): value is BlobRef {
  return typeof value === "object" && value !== null &&
    typeof (value as BlobRef).blob === "string";
}

/** Upper bound of a value's size in an entry (UTF-16 bytes). */
function cost(value: ContentValue): number {
  if (typeof value === "string") return value.length * 2;
  return value.reduce((n, s) => n + s.length * 2 + 8, 8);
}

function same(a: ContentValue | undefined, b: ContentValue): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
    return false;
  }
  return a.every((s, i) => s === b[i]);
}

/** A new blob holding `value`. */
export function newBlob(value: ContentValue): NewBlob {
  const list = Array.isArray(value);
  const data = new TextEncoder().encode(list ? JSON.stringify(value) : value);
  const ref: BlobRef = {
    blob: crypto.randomUUID(),
    n: Math.max(1, Math.ceil(data.length / CHUNK)),
  };
  if (list) ref.list = true;
  return { ref, data, value };
}

/** `value` as an entry holds it: inline when small, else a new blob. */
export function packOne(value: ContentValue): [Stored, NewBlob | null] {
  if (cost(value) <= INLINE_MAX) return [value, null];
  const blob = newBlob(value);
  return [blob.ref, blob];
}

/**
 * `next` as an entry holds it, given the entry it replaces (`prev`, whose
 * values are `prevValues`): an unchanged field keeps its slot (so saving one
 * field writes only that field), a changed one goes inline while small and
 * within {@linkcode INLINE_BUDGET}, else to a new blob.
 */
export function pack(
  prev: StoredRecord | null,
  prevValues: ContentRecord | null,
  next: ContentRecord,
): Packed<StoredRecord> {
  const stored: StoredRecord = {};
  const blobs: NewBlob[] = [];
  let inline = 0;
  const changed: string[] = [];
  for (const [field, value] of Object.entries(next)) {
    const slot = prev && Object.hasOwn(prev, field) ? prev[field] : undefined;
    const old = prevValues && Object.hasOwn(prevValues, field)
      ? prevValues[field]
      : undefined;
    const small = slot !== undefined &&
      (isRef(slot) || cost(slot) <= INLINE_MAX);
    if (small && same(old, value)) {
      stored[field] = slot;
      if (!isRef(slot)) inline += cost(slot);
    } else changed.push(field);
  }
  for (const field of changed) {
    const value = next[field];
    const c = cost(value);
    if (c <= INLINE_MAX && inline + c <= INLINE_BUDGET) {
      stored[field] = structuredClone(value);
      inline += c;
    } else {
      const blob = newBlob(value);
      stored[field] = blob.ref;
      blobs.push(blob);
    }
  }
  return { stored, blobs, retired: retiredOf(prev, stored) };
}

/** Blobs `prev` refers to that `next` does not. */
export function retiredOf(
  prev: Record<string, unknown> | null,
  next: Record<string, unknown> | null,
): BlobRef[] {
  const kept = new Set<string>();
  for (const v of Object.values(next ?? {})) if (isRef(v)) kept.add(v.blob);
  return Object.values(prev ?? {}).filter((v): v is BlobRef =>
    isRef(v) && !kept.has(v.blob)
  );
}

function chunkKey(at: KvAt, id: string, i: number): Deno.KvKey {
  return [...at.prefix, BLOBS, id, i];
}

function markerKey(at: KvAt, id: string): Deno.KvKey {
  return [...at.prefix, PENDING, id];
}

/**
 * Writes the chunks of `blobs`, at most 12 a commit, the first commit with
 * one pending marker naming them all.
 */
export async function writeBlobs(
  at: KvAt,
  blobs: NewBlob[],
): Promise<Pending> {
  const id = crypto.randomUUID();
  const marker: Marker = { refs: blobs.map((b) => b.ref), since: Date.now() };
  let op = at.kv.atomic().set(markerKey(at, id), marker);
  let n = 0;
  let stamp = "";
  const flush = async () => {
    const res = await op.commit();
    if (!res.ok) throw new Error("KV blob write failed");
    stamp ||= res.versionstamp;
    op = at.kv.atomic();
    n = 0;
  };
  for (const { ref, data } of blobs) {
    for (let i = 0; i < ref.n; i++) {
      if (n === PER_COMMIT) await reading(flush);
      const part = data.subarray(i * CHUNK, (i + 1) * CHUNK);
      op.set(chunkKey(at, ref.blob, i), part);
      n++;
    }
  }
  if (n || !stamp) await reading(flush);
  return { id, stamp };
}

/**
 * Adds the switch to `op`: checks and deletes the `pending` marker (from
 * {@linkcode writeBlobs}) and marks `retired` as garbage; returns the
 * garbage marker's id (`null`: nothing retired).
 */
export function switchBlobs(
  at: KvAt,
  op: Deno.AtomicOperation,
  pending: Pending | null,
  retired: BlobRef[],
): string | null {
  if (pending) {
    const key = markerKey(at, pending.id);
    op.check({ key, versionstamp: pending.stamp }).delete(key);
  }
  if (!retired.length) return null;
  const id = crypto.randomUUID();
  op.set(markerKey(at, id), { refs: retired, since: 0 } satisfies Marker);
  return id;
}

/**
 * Writes `blobs`, then commits `op` with the switch (see
 * {@linkcode switchBlobs}); `false` when the commit lost a race. What the
 * commit stopped referring to (`retired`) is deleted after it; when it
 * failed or threw, the blobs just written are.
 */
export async function commitWith(
  at: KvAt,
  op: Deno.AtomicOperation,
  blobs: NewBlob[],
  retired: BlobRef[],
): Promise<boolean> {
  let ok = false;
  let pending: Pending | null = null;
  let garbage: string | null = null;
  try {
    if (blobs.length) pending = await writeBlobs(at, blobs);
    garbage = switchBlobs(at, op, pending, retired);
    ok = await commit(op);
  } catch (err) {
    if (!(err instanceof RecordTooLargeError)) throw err;
    throw new RecordTooLargeError(
      "record too large: its field names and small values exceed one Deno KV entry (64 KiB)",
      { cause: err },
    );
  } finally {
    if (!ok && pending) {
      await collect(at, blobs.map((b) => b.ref), [pending.id]);
    }
  }
  if (!ok) return false;
  for (const b of blobs) at.cache.set(b.ref.blob, b.value);
  if (garbage) await collect(at, retired, [garbage]);
  if (blobs.length) await sweep(at, Date.now(), 20);
  return true;
}

/**
 * Deletes the chunks of `refs`, then the `markers` naming them; a failure
 * is only logged (a sweep finishes it).
 */
export async function collect(
  at: KvAt,
  refs: BlobRef[],
  markers: string[],
): Promise<void> {
  try {
    let op = at.kv.atomic();
    let n = 0;
    for (const r of refs) {
      at.cache.delete(r.blob);
      if (n + r.n > 900) {
        await op.commit();
        op = at.kv.atomic();
        n = 0;
      }
      for (let i = 0; i < r.n; i++) op.delete(chunkKey(at, r.blob, i));
      n += r.n;
    }
    for (const id of markers) op.delete(markerKey(at, id));
    await op.commit();
  } catch (err) {
    console.error("cms: deleting unused blobs failed", err);
  }
}

/**
 * Deletes garbage blobs and pending ones older than {@linkcode GRACE_MS}
 * (left by a write that crashed), at most `limit`; returns how many.
 */
export async function sweep(
  at: KvAt,
  now = Date.now(),
  limit = 100,
): Promise<number> {
  let count = 0;
  const iter = at.kv.list<Marker>({ prefix: [...at.prefix, PENDING] });
  for await (const e of iter) {
    if (e.value.since > now - GRACE_MS) continue;
    await collect(at, e.value.refs, [e.key[e.key.length - 1] as string]);
    count += e.value.refs.length;
    if (count >= limit) break;
  }
  return count;
}

/**
 * The values of `refs` (cached, or read in `getMany`s of 10 chunks); `null`
 * when a chunk is gone (a writer retired the blob since the caller read the
 * entry: read it again).
 */
export async function readBlobs(
  at: KvAt,
  refs: BlobRef[],
): Promise<Map<string, ContentValue> | null> {
  const out = new Map<string, ContentValue>();
  const keys: Deno.KvKey[] = [];
  for (const r of refs) {
    const hit = at.cache.get(r.blob);
    if (hit !== undefined) out.set(r.blob, hit);
    else for (let i = 0; i < r.n; i++) keys.push(chunkKey(at, r.blob, i));
  }
  const chunks = new Map<string, Uint8Array[]>();
  for (let i = 0; i < keys.length; i += 10) {
    const got = await reading(() =>
      at.kv.getMany<Uint8Array[]>(keys.slice(i, i + 10))
    );
    for (const e of got) {
      if (e.value === null) return null;
      const id = e.key[e.key.length - 2] as string;
      const list = chunks.get(id) ?? [];
      list[e.key[e.key.length - 1] as number] = e.value;
      chunks.set(id, list);
    }
  }
  for (const r of refs) {
    if (out.has(r.blob)) continue;
    const value = decode(r, chunks.get(r.blob) ?? []);
    at.cache.set(r.blob, value);
    out.set(r.blob, value);
  }
  return out;
}

function decode(ref: BlobRef, parts: Uint8Array[]): ContentValue {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  const text = new TextDecoder().decode(all);
  return ref.list ? JSON.parse(text) as string[] : text;
}

/**
 * An entry's values with its blobs read; `null` when a blob is gone (read
 * the entry again).
 */
export async function unpack(
  at: KvAt,
  stored: StoredRecord,
): Promise<ContentRecord | null> {
  const refs = Object.values(stored).filter(isRef);
  const values = refs.length ? await readBlobs(at, refs) : new Map();
  if (!values) return null;
  const out: ContentRecord = {};
  for (const [field, v] of Object.entries(stored)) {
    const value = isRef(v) ? values.get(v.blob)! : v as ContentValue;
    out[field] = Array.isArray(value) ? [...value] : value;
  }
  return out;
}

/**
 * A bounded cache of decoded blobs (blobs never change, so it is always
 * right); evicts the oldest past `max` UTF-16 bytes.
 */
export class BlobCache {
  readonly #map = new Map<string, ContentValue>();
  #size = 0;
  /** @param max Most bytes kept. */
  constructor(readonly max = 32 * 1024 * 1024) {}
  /** The value of blob `id`, if cached. */
  get(id: string): ContentValue | undefined {
    return this.#map.get(id);
  }
  /** Caches blob `id`. */
  set(id: string, value: ContentValue): void {
    this.delete(id);
    this.#map.set(id, value);
    this.#size += cost(value);
    for (const [k] of this.#map) {
      if (this.#size <= this.max) break;
      this.delete(k);
    }
  }
  /** Forgets blob `id`. */
  delete(id: string): void {
    const v = this.#map.get(id);
    if (v === undefined) return;
    this.#map.delete(id);
    this.#size -= cost(v);
  }
}

/**
 * Runs `read` until it answers (not `null`: a blob it needed was retired
 * meanwhile, so it reads the entries again); gives up after 20 tries.
 */
export async function readStable<T>(read: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 20; i++) {
    const got = await read();
    if (got !== null) return got;
  }
  throw new Error("KV record kept changing while being read");
}

/** One record's drafts as their entry holds them (values maybe blobs). */
export type StoredDrafts = Record<
  string,
  { value: Stored; at: string; editor: string }
>;

/** A drafts entry's values by field. */
function draftValues(drafts: StoredDrafts | null): StoredRecord | null {
  if (!drafts) return null;
  return Object.fromEntries(
    Object.entries(drafts).map(([f, d]) => [f, d.value]),
  );
}

/**
 * A drafts entry with its blobs read: `[drafts]` (`[null]`: none), or
 * `null` when a blob was retired meanwhile (read it again).
 */
export async function unpackDrafts(
  at: KvAt,
  stored: StoredDrafts | null,
): Promise<[RecordDraftsLike | null] | null> {
  if (!stored) return [null];
  const values = await unpack(at, draftValues(stored)!);
  if (!values) return null;
  return [
    Object.fromEntries(
      Object.entries(stored).map(([f, d]) => [f, { ...d, value: values[f] }]),
    ),
  ];
}

/** One record's drafts with their values (as `draft.ts` has them). */
export type RecordDraftsLike = Record<
  string,
  { value: ContentValue; at: string; editor: string }
>;

/** `next` drafts as their entry holds them, given the entry replaced. */
export function packDrafts(
  prev: StoredDrafts | null,
  prevValues: RecordDraftsLike | null,
  next: RecordDraftsLike,
): Packed<StoredDrafts> {
  const values = Object.fromEntries(
    Object.entries(next).map(([f, d]) => [f, d.value]),
  );
  const before = prevValues &&
    Object.fromEntries(
      Object.entries(prevValues).map(([f, d]) => [f, d.value]),
    );
  const packed = pack(draftValues(prev), before, values);
  const stored: StoredDrafts = {};
  for (const [f, d] of Object.entries(next)) {
    stored[f] = { ...d, value: packed.stored[f] };
  }
  return { stored, blobs: packed.blobs, retired: packed.retired };
}

/** Blobs the drafts entry `prev` refers to that `next` does not. */
export function retiredDrafts(
  prev: StoredDrafts | null,
  next: StoredDrafts | RecordDraftsLike | null,
): BlobRef[] {
  return retiredOf(draftValues(prev), draftValues(next as StoredDrafts));
}
