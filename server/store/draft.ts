/**
 * Rules every draft store shares: how a record's drafts overlay its
 * published values, what one draft save writes ({@linkcode planDraft}) and
 * what one record's part of a publish writes ({@linkcode planPublish}). The
 * plans do no I/O: the stores only read what a plan needs and commit what
 * it returns, atomically each in its own way.
 *
 * @module
 */
import type {
  ContentRecord,
  Draft,
  DraftConflict,
  DraftRef,
  Revision,
  RevisionInput,
} from "./types.ts";
import { contentVersion } from "../../core/version.ts";
import { fieldValue, newRevisions } from "./_revision.ts";
import { copyRecord } from "./_record.ts";

/** One record's drafts as stored: field (`name` or `name.N`) → draft. */
export type RecordDrafts = Record<string, StoredDraft>;

/** A draft as a store keeps it (the address is where it is stored). */
export interface StoredDraft {
  /** The draft value. */
  value: Draft["value"];
  /** When it was saved, ISO 8601. */
  at: string;
  /** Who saved it. */
  editor: string;
}

/**
 * `record` with `drafts` written over it: a draft of `name` replaces the
 * field, a draft of `name.N` replaces item N while the list has it. With no
 * record, the drafts of whole fields make one; `null` when nothing is left.
 *
 * @example
 * ```ts
 * import { overlay } from "./draft.ts";
 * const at = new Date().toISOString();
 * overlay({ title: "Old", features: ["a", "b"] }, {
 *   title: { value: "New", at, editor: "Ada" },
 *   "features.1": { value: "B", at, editor: "Ada" },
 * }); // { title: "New", features: ["a", "B"] }
 * ```
 */
export function overlay(
  record: ContentRecord | null,
  drafts: RecordDrafts | null | undefined,
): ContentRecord | null {
  if (!drafts || Object.keys(drafts).length === 0) return record;
  const out: ContentRecord = { ...record };
  for (const [field, draft] of Object.entries(drafts)) {
    setField(out, field, draft.value);
  }
  return record === null && Object.keys(out).length === 0 ? null : out;
}

/** Sets `field` (`name` or `name.N`) in `record`; a missing item is skipped. */
function setField(
  record: ContentRecord,
  field: string,
  value: Draft["value"],
): boolean {
  const dot = field.lastIndexOf(".");
  const index = dot < 0 ? "" : field.slice(dot + 1);
  if (dot < 0 || !/^(0|[1-9]\d*)$/.test(index)) {
    record[field] = structuredClone(value);
    return true;
  }
  const name = field.slice(0, dot);
  const list = Object.hasOwn(record, name) ? record[name] : undefined;
  const i = Number(index);
  if (!Array.isArray(list) || i >= list.length || typeof value !== "string") {
    return false;
  }
  record[name] = list.with(i, value);
  return true;
}

/**
 * The draft a draft save stores: the value of `field` in the record its
 * mutate returned. Throws a `TypeError` when that record lacks the field,
 * before anything is written.
 *
 * @example
 * ```ts
 * import { draftOf } from "./draft.ts";
 * draftOf({ title: "New" }, "title", "Ada").value; // "New"
 * ```
 */
export function draftOf(
  next: ContentRecord,
  field: string,
  editor: string,
  at: string = new Date().toISOString(),
): StoredDraft {
  const value = fieldValue(next, field);
  if (value === undefined) {
    throw new TypeError(`draft field "${field}" is not in the record`);
  }
  return { value: structuredClone(value), at, editor };
}

/**
 * Where a draft save of `field` goes among a record's `drafts`, so that a
 * list never has both a whole-list draft and item drafts (an item index
 * means another item once the list is reordered): a whole-list draft
 * (`features`) replaces the list's item drafts (`drop`); an item save
 * (`features.2`) while the list has a whole-list draft updates that one
 * (`field` is `features`). Every draft store follows it.
 *
 * @example
 * ```ts
 * import { draftSlot } from "./draft.ts";
 * const at = new Date().toISOString();
 * const d = { value: "B", at, editor: "Ada" };
 * draftSlot({ "features.1": d }, "features"); // { field: "features", drop: ["features.1"] }
 * draftSlot({ features: { ...d, value: ["A"] } }, "features.0");
 * // { field: "features", drop: [] }
 * ```
 */
export function draftSlot(
  drafts: RecordDrafts | null | undefined,
  field: string,
): { field: string; drop: string[] } {
  const names = Object.keys(drafts ?? {});
  const dot = field.lastIndexOf(".");
  if (dot >= 0) {
    const list = field.slice(0, dot);
    return { field: names.includes(list) ? list : field, drop: [] };
  }
  const prefix = field + ".";
  return { field, drop: names.filter((name) => name.startsWith(prefix)) };
}

/** What one draft save writes, planned by {@linkcode planDraft}. */
export interface DraftWrite {
  /** What `mutate` returned: the drafted record the save answers with. */
  record: ContentRecord;
  /** Where the draft goes among the record's drafts (see {@linkcode draftSlot}). */
  field: string;
  /** The draft to store at `field`. */
  draft: StoredDraft;
  /** Drafts to delete: the item drafts a whole-list draft replaces. */
  drop: string[];
  /** All the record's drafts after the save: `drop` gone, `draft` set. */
  drafts: RecordDrafts;
  /** The field's new revisions, unpublished, oldest first. */
  revisions: Revision[];
}

/**
 * Plans one draft save of `revision.field` from what the store read: the
 * published `record`, its `drafts`, and whether the field has revisions
 * already (`hasHistory`). `mutate` gets a copy of the record with its
 * drafts written over it; its answer becomes the draft (at the slot
 * {@linkcode draftSlot} picks) and an unpublished revision (preceded by the
 * value the field had when it has no history yet). `null` when `mutate`
 * answers `null`: nothing to write. Throws before anything is written when
 * the record `mutate` returned lacks the field.
 *
 * @example
 * ```ts
 * import { planDraft } from "./draft.ts";
 * const plan = planDraft(
 *   "pages", "home", { title: "Old" }, null,
 *   (r) => ({ ...r, title: "New" }), { field: "title", editor: "Ada" }, false,
 * );
 * plan?.draft.value; // "New"
 * plan?.revisions.map((r) => r.value); // ["Old", "New"]
 * ```
 */
export function planDraft(
  collection: string,
  key: string,
  record: ContentRecord | null,
  drafts: RecordDrafts | null | undefined,
  mutate: (current: ContentRecord | null) => ContentRecord | null,
  revision: RevisionInput,
  hasHistory: boolean,
): DraftWrite | null {
  const before = overlay(record, drafts);
  const next = mutate(before === null ? null : copyRecord(before));
  if (next === null) return null;
  const revisions = newRevisions(
    collection,
    key,
    { ...revision, published: false },
    before,
    next,
    hasHistory,
  );
  const slot = draftSlot(drafts, revision.field);
  const draft = draftOf(
    next,
    slot.field,
    revision.editor,
    revisions.at(-1)!.at,
  );
  const after: RecordDrafts = { ...drafts };
  for (const name of slot.drop) delete after[name];
  after[slot.field] = draft;
  return {
    record: next,
    field: slot.field,
    draft,
    drop: slot.drop,
    drafts: after,
    revisions,
  };
}

/**
 * A record's drafts without `field`'s: `null` when none are left, and
 * `undefined` when `field` had no draft (nothing to write).
 *
 * @example
 * ```ts
 * import { withoutDraft } from "./draft.ts";
 * const at = new Date().toISOString();
 * withoutDraft({ title: { value: "x", at, editor: "Ada" } }, "title"); // null
 * withoutDraft({}, "title"); // undefined
 * ```
 */
export function withoutDraft(
  drafts: RecordDrafts | null | undefined,
  field: string,
): RecordDrafts | null | undefined {
  if (!drafts || !Object.hasOwn(drafts, field)) return undefined;
  const { [field]: _, ...rest } = drafts;
  return Object.keys(rest).length ? rest : null;
}

/** Fields of one record to publish: all its drafts, or these (with versions). */
export type Selection = "all" | DraftRef[];

/** What publishing one record's selected drafts writes. */
export interface RecordPublish {
  /** The record's new published values (unchanged when nothing applies). */
  record: ContentRecord;
  /** The drafts left after publishing. */
  drafts: RecordDrafts;
  /** What went public, one per field. */
  published: Draft[];
  /** Fields whose draft is not the version the editor saw. */
  conflicts: DraftConflict[];
  /** The revisions to write, each marked published. */
  revisions: Revision[];
}

/**
 * Plans publishing the `selection` of one record's drafts: checks each
 * field's version (a mismatch is a conflict), writes the drafts over the
 * published record and makes one published revision per field.
 * `hasHistory(field)` says whether the field has revisions already (else the
 * value it had is kept first, as in a save). Fields without a draft are left
 * out; a list item whose list no longer has it stays a draft.
 *
 * @example
 * ```ts
 * import { planPublish } from "./draft.ts";
 * const at = new Date().toISOString();
 * const plan = planPublish(
 *   "pages", "home", { title: "Old" },
 *   { title: { value: "New", at, editor: "Ada" } },
 *   "all", "Bo", () => true,
 * );
 * plan.record.title; // "New"
 * plan.revisions[0].published !== undefined; // true
 * ```
 */
export function planPublish(
  collection: string,
  key: string,
  record: ContentRecord | null,
  drafts: RecordDrafts | null | undefined,
  selection: Selection,
  editor: string,
  hasHistory: (field: string) => boolean,
): RecordPublish {
  const plan: RecordPublish = {
    record: { ...record },
    drafts: { ...drafts },
    published: [],
    conflicts: [],
    revisions: [],
  };
  const refs: DraftRef[] = selection === "all"
    ? Object.keys(plan.drafts).map((field) => ({ collection, key, field }))
    : selection;
  for (const ref of refs) {
    const draft = Object.hasOwn(plan.drafts, ref.field)
      ? plan.drafts[ref.field]
      : undefined;
    if (!draft) continue;
    if (
      ref.version !== undefined && contentVersion(draft.value) !== ref.version
    ) {
      plan.conflicts.push({
        collection,
        key,
        field: ref.field,
        value: structuredClone(draft.value),
        version: contentVersion(draft.value),
      });
      continue;
    }
    const before = { ...plan.record };
    if (!setField(plan.record, ref.field, draft.value)) continue;
    delete plan.drafts[ref.field];
    plan.revisions.push(
      ...newRevisions(
        collection,
        key,
        {
          field: ref.field,
          editor,
          published: true,
        },
        before,
        plan.record,
        hasHistory(ref.field),
      ),
    );
    plan.published.push({
      collection,
      key,
      field: ref.field,
      value: structuredClone(draft.value),
      at: draft.at,
      editor: draft.editor,
    });
  }
  return plan;
}

/**
 * A store's drafts as the {@linkcode Draft} list, oldest first; drafts of
 * the same millisecond in address order (collection, key, field), so every
 * store lists the same drafts in the same order.
 *
 * @example
 * ```ts
 * import { listDrafts } from "./draft.ts";
 * const at = new Date().toISOString();
 * listDrafts([["pages", "home", { title: { value: "x", at, editor: "Ada" } }]]);
 * ```
 */
export function listDrafts(
  records: Iterable<[string, string, RecordDrafts]>,
): Draft[] {
  const out: Draft[] = [];
  for (const [collection, key, drafts] of records) {
    for (const [field, d] of Object.entries(drafts)) {
      out.push({
        collection,
        key,
        field,
        value: structuredClone(d.value),
        at: d.at,
        editor: d.editor,
      });
    }
  }
  return out.sort(byTimeThenAddress);
}

/** Oldest first; drafts made in the same millisecond by field address. */
function byTimeThenAddress(a: Draft, b: Draft): number {
  return compare(a.at, b.at) || compare(a.collection, b.collection) ||
    compare(a.key, b.key) || compare(a.field, b.field);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Groups a publish request by record, in a fixed order (so stores that lock
 * records lock them in the same order everywhere and never deadlock).
 *
 * @example
 * ```ts
 * import { byRecord } from "./draft.ts";
 * byRecord([{ collection: "pages", key: "b", field: "x" }, { collection: "pages", key: "a", field: "x" }])
 *   .map(([, key]) => key); // ["a", "b"]
 * ```
 */
export function byRecord(
  refs: DraftRef[],
): [string, string, DraftRef[]][] {
  const groups = new Map<string, [string, string, DraftRef[]]>();
  for (const ref of refs) {
    const id = JSON.stringify([ref.collection, ref.key]);
    const group = groups.get(id) ?? [ref.collection, ref.key, []];
    group[2].push(ref);
    groups.set(id, group);
  }
  return [...groups.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([, group]) => group);
}

/**
 * A store's drafts as export lines, record by record in the order given,
 * fields sorted, so every store writes the same lines for the same drafts.
 *
 * @example
 * ```ts
 * import { draftLines } from "./draft.ts";
 * const at = new Date().toISOString();
 * [...draftLines([["pages", "home", { title: { value: "x", at, editor: "Ada" } }]])]
 *   .map((l) => l.draft.field); // ["title"]
 * ```
 */
export function* draftLines(
  records: Iterable<[string, string, RecordDrafts]>,
): Iterable<{ type: "draft"; draft: Draft }> {
  for (const [collection, key, drafts] of records) {
    for (const field of Object.keys(drafts).sort()) {
      const d = drafts[field];
      yield {
        type: "draft",
        draft: {
          collection,
          key,
          field,
          value: structuredClone(d.value),
          at: d.at,
          editor: d.editor,
        },
      };
    }
  }
}

/**
 * Checks that an imported value is a well-formed {@linkcode Draft}; throws
 * a `TypeError` otherwise.
 *
 * @example
 * ```ts
 * import { checkDraft } from "./draft.ts";
 * checkDraft({
 *   collection: "pages", key: "home", field: "title", value: "Hi",
 *   at: new Date().toISOString(), editor: "Ada",
 * });
 * ```
 */
export function checkDraft(value: unknown): Draft {
  const d = value as Draft;
  const ok = typeof d === "object" && d !== null &&
    typeof d.collection === "string" && typeof d.key === "string" &&
    typeof d.field === "string" && d.field !== "" &&
    typeof d.at === "string" && !Number.isNaN(Date.parse(d.at)) &&
    typeof d.editor === "string" &&
    (typeof d.value === "string" ||
      (Array.isArray(d.value) && d.value.every((v) => typeof v === "string")));
  if (!ok) throw new TypeError("invalid draft line");
  return d;
}
