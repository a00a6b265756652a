/**
 * Rules every history store shares: which value a revision holds, its size,
 * its id, and which revisions retention lets go.
 *
 * @module
 */
import type {
  ContentRecord,
  ContentValue,
  Retention,
  Revision,
  RevisionInput,
} from "./types.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The value at `field` (`name` or `name.index`) in `record`, or `undefined`.
 *
 * @example
 * ```ts
 * import { fieldValue } from "./_revision.ts";
 * fieldValue({ features: ["a", "b"] }, "features.1"); // "b"
 * ```
 */
export function fieldValue(
  record: ContentRecord | null,
  field: string,
): ContentValue | undefined {
  if (!record) return undefined;
  if (Object.hasOwn(record, field)) return record[field];
  const dot = field.lastIndexOf(".");
  if (dot < 0) return undefined;
  const name = field.slice(0, dot);
  const index = field.slice(dot + 1);
  const list = Object.hasOwn(record, name) ? record[name] : undefined;
  if (!Array.isArray(list) || !/^(0|[1-9]\d*)$/.test(index)) return undefined;
  return list[Number(index)];
}

/**
 * Size of a value in UTF-8 bytes; a list counts as its JSON.
 *
 * @example
 * ```ts
 * import { valueBytes } from "./_revision.ts";
 * valueBytes("é"); // 2
 * ```
 */
export function valueBytes(value: ContentValue): number {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return new TextEncoder().encode(text).length;
}

/**
 * The revisions one save writes: the new value, preceded by the value the
 * field held before when the field has no history yet (`editor: null`), so
 * the first recorded save can be undone too.
 *
 * @example
 * ```ts
 * import { newRevisions } from "./_revision.ts";
 * const revs = newRevisions(
 *   "pages", "home", { field: "title", editor: "Ada" },
 *   { title: "Old" }, { title: "New" }, false,
 * );
 * revs.map((r) => r.value); // ["Old", "New"]
 * ```
 */
export function newRevisions(
  collection: string,
  key: string,
  input: RevisionInput,
  before: ContentRecord | null,
  after: ContentRecord,
  hasHistory: boolean,
): Revision[] {
  const value = fieldValue(after, input.field);
  if (value === undefined) {
    throw new TypeError(`revision field "${input.field}" is not in the record`);
  }
  const at = new Date().toISOString();
  const out: Revision[] = [];
  const previous = hasHistory ? undefined : fieldValue(before, input.field);
  if (previous !== undefined) {
    out.push(make(collection, key, input.field, at, null, previous, at));
  }
  const published = input.published === false ? undefined : at;
  out.push(
    make(collection, key, input.field, at, input.editor, value, published),
  );
  return out;
}

function make(
  collection: string,
  key: string,
  field: string,
  at: string,
  editor: string | null,
  value: ContentValue,
  published: string | undefined,
): Revision {
  const revision: Revision = {
    id: crypto.randomUUID(),
    collection,
    key,
    field,
    at,
    editor,
    value: structuredClone(value),
    bytes: valueBytes(value),
  };
  if (published !== undefined) revision.published = published;
  return revision;
}

/**
 * Checks a {@linkcode Retention}; throws a `RangeError` naming the bad limit.
 *
 * @example
 * ```ts
 * import { checkRetention } from "./_revision.ts";
 * checkRetention({ keep: 50, days: 90 }); // ok
 * ```
 */
export function checkRetention(retention: Retention | undefined): void {
  if (!retention) return;
  const { keep, days } = retention;
  if (keep !== undefined && !(Number.isInteger(keep) && keep >= 1)) {
    throw new RangeError("retention.keep must be an integer ≥ 1");
  }
  if (days !== undefined && !(Number.isFinite(days) && days > 0)) {
    throw new RangeError("retention.days must be a number > 0");
  }
}

/**
 * Whether retention lets a revision go: `newer` is how many revisions of the
 * same field are newer than it. The newest (`newer === 0`, the current
 * value) always stays.
 *
 * @example
 * ```ts
 * import { expired } from "./_revision.ts";
 * const at = new Date().toISOString();
 * expired(2, at, { keep: 2 }); // true
 * expired(0, "2000-01-01T00:00:00Z", { days: 1 }); // false: the newest
 * ```
 */
export function expired(
  newer: number,
  at: string,
  retention: Retention | undefined,
  now: number = Date.now(),
): boolean {
  if (!retention || newer < 1) return false;
  if (retention.keep !== undefined && newer >= retention.keep) return true;
  return retention.days !== undefined &&
    Date.parse(at) < now - retention.days * DAY_MS;
}

/**
 * Checks that an imported value is a well-formed {@linkcode Revision};
 * throws a `TypeError` otherwise.
 *
 * @example
 * ```ts
 * import { checkRevision } from "./_revision.ts";
 * checkRevision({
 *   id: "1", collection: "pages", key: "home", field: "title",
 *   at: new Date().toISOString(), editor: "Ada", value: "Hi", bytes: 2,
 * });
 * ```
 */
export function checkRevision(value: unknown): Revision {
  const r = value as Revision;
  const ok = typeof r === "object" && r !== null &&
    typeof r.id === "string" && typeof r.collection === "string" &&
    typeof r.key === "string" && typeof r.field === "string" &&
    typeof r.at === "string" && !Number.isNaN(Date.parse(r.at)) &&
    (r.editor === null || typeof r.editor === "string") &&
    (typeof r.value === "string" ||
      (Array.isArray(r.value) &&
        r.value.every((v) => typeof v === "string"))) &&
    typeof r.bytes === "number" &&
    (r.published === undefined || typeof r.published === "string");
  if (!ok) throw new TypeError("invalid revision line");
  return r;
}
