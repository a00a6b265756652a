/**
 * The contract between the handlers and the host: who may edit, which fields
 * exist, and where content and media are kept.
 *
 * @module
 */

/** The signed-in editor, as the host's session knows them. */
export interface Editor {
  /** Display name, shown in the edit bar. */
  name: string;
  /** Anything else the host keeps about the editor (id, role, …). */
  [extra: string]: unknown;
}

/**
 * Resolves the editor from the server-side session of a request, or `null`
 * when nobody authorized is signed in. The page's edit mode is never a basis.
 */
export type Authorize = (
  req: Request,
) => Editor | null | undefined | Promise<Editor | null | undefined>;

/**
 * How a field is stored and saved:
 * - `plain`: a string; values are coerced to strings.
 * - `rich`: sanitized HTML (the rich-field set).
 * - `list`: an array of plain strings, saved one item at a time as
 *   `<field>.<index>`.
 */
export type FieldKind = "plain" | "rich" | "list";

/**
 * The save endpoint's allowlist: collection → field → kind. Fields of kind
 * `rich` form the rich-field set. Anything not listed is rejected with 400.
 *
 * @example
 * ```ts
 * import type { Allowlist } from "@inplace/cms";
 * const allowlist: Allowlist = {
 *   pages: { title: "plain", body: "rich", features: "list" },
 * };
 * ```
 */
export type Allowlist = Readonly<
  Record<string, Readonly<Record<string, FieldKind>>>
>;

/** A stored field value: a string, or a list of strings. */
export type ContentValue = string | string[];

/** A host record: field name → value. */
export type ContentRecord = Record<string, ContentValue>;

/**
 * Where content records live. Implement it for your own database; the
 * package ships a Deno KV store and an in-memory store.
 */
export interface ContentStore {
  /** Reads one record, or `null` when it does not exist. */
  get(collection: string, key: string): Promise<ContentRecord | null>;
  /**
   * Atomically replaces one record with what `mutate` returns. `mutate` gets
   * the current record (or `null`) and returns the new record, or `null` to
   * write nothing. It may run more than once under contention, so it must be
   * free of side effects other than recording its last decision.
   * Resolves to the record written, or `null` when nothing was written.
   */
  update(
    collection: string,
    key: string,
    mutate: (current: ContentRecord | null) => ContentRecord | null,
  ): Promise<ContentRecord | null>;
}

/** Where uploaded images are kept and how the public reaches them. */
export interface MediaStorage {
  /** Stores the bytes under `key` with the verified `contentType`. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Public URL of a key: the public base address, a slash, then the key. */
  url(key: string): string;
}
