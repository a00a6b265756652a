/**
 * The draft endpoints of publish mode `draft`: list the drafts, publish
 * them (all or none), discard one. Web-standard handlers
 * `(req, call?) => Promise<Response>` on the shared pipeline, with the save
 * endpoint's session, origin, allowlist and `canEdit` rules.
 *
 * @module
 */
import {
  type FieldAddress,
  fieldPath,
  formatAddress,
  parseAddress,
} from "../core/address.ts";
import {
  type DraftsListing,
  type PublishAnswer,
  type PublishConflictBody,
  Status,
} from "../core/wire.ts";
import { readBody } from "./body.ts";
import { endpoint, type Handler, HttpError, json } from "./http.ts";
import { admitEditor, allowedField, parseJsonObject } from "./request.ts";
import { draftStore, type SaveHandlerOptions } from "./save.ts";
import type {
  Draft,
  DraftRef,
  DraftStore,
  Editor,
  EndpointCall,
} from "./types.ts";

/** Options of the draft endpoints: the save endpoint's, with a draft store. */
export type DraftHandlerOptions =
  & Omit<SaveHandlerOptions, "store" | "publishMode" | "onSave">
  & {
    /** Where records, revisions and drafts live. */
    store: DraftStore;
    /**
     * Called after a publish, e.g. to purge a cache of the published pages.
     * An error it throws is logged; the publish still succeeds.
     */
    onPublish?: (published: Draft[], editor: Editor) => void | Promise<void>;
    /**
     * Called after a draft was discarded, with its address (e.g. to tell
     * other editors, `EditorEvents.onDiscard`). An error it throws is
     * logged; the discard still succeeds.
     */
    onDiscard?: (field: string, editor: Editor) => void | Promise<void>;
  };

/** Largest publish or discard body (a page's addresses fit easily). */
const MAX_BODY_BYTES = 256 * 1024;
/** Most fields one publish names. */
const MAX_FIELDS = 1000;

/**
 * The shared front of the draft endpoints: {@linkcode admitEditor}, then
 * `handle` with the editor.
 */
function draftEndpoint(
  name: string,
  options: DraftHandlerOptions,
  methods: string[],
  handle: (
    req: Request,
    editor: Editor,
    call: EndpointCall | undefined,
  ) => Promise<Response>,
): Handler<EndpointCall> {
  draftStore(options.store);
  return endpoint<EndpointCall>(name, async (req, _ctx, call) => {
    const editor = await admitEditor(req, methods, options, call);
    return await handle(req, editor, call);
  });
}

/** Whether `canEdit` lets `editor` change `address` (no rule: yes). */
async function mayEdit(
  options: DraftHandlerOptions,
  req: Request,
  address: FieldAddress,
  editor: Editor,
  call: EndpointCall | undefined,
): Promise<boolean> {
  return !options.canEdit ||
    await options.canEdit(req, address, editor, call?.context);
}

/** Reads a JSON object body (at most 256 KiB); throws 400/413 otherwise. */
async function readObject(req: Request): Promise<Record<string, unknown>> {
  const bytes = await readBody(req, MAX_BODY_BYTES);
  return bytes.byteLength === 0 ? {} : parseJsonObject(bytes);
}

/** A draft's address as the wire writes it. */
function addressOf(d: { collection: string; key: string; field: string }) {
  return `${d.collection}:${d.key}:${d.field}`;
}

/**
 * `GET` the drafts an editor may publish:
 * 200 `{"drafts": [{"field", "at", "editor"}]}`, oldest first. Drafts of
 * fields that `canEdit` refuses to this editor are left out.
 * 403 without a session or from another site; 405 for other methods.
 *
 * @example
 * ```ts
 * import { createDraftsHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const drafts = createDraftsHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createDraftsHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "drafts",
    options,
    ["GET", "HEAD"],
    async (req, editor, call) => {
      const out: DraftsListing = { drafts: [] };
      for (const d of await options.store.drafts()) {
        const address = parseAddress(addressOf(d));
        if (typeof address === "string") continue;
        if (!await mayEdit(options, req, address, editor, call)) continue;
        out.drafts.push({ field: addressOf(d), at: d.at, editor: d.editor });
      }
      return json(Status.OK, out, { "Cache-Control": "no-store" });
    },
  );
}

/**
 * `POST` JSON `{"fields": [ADDRESS, …], "versions": {ADDRESS: VERSION}}`
 * publishes those fields' drafts; without `fields`, every draft the editor
 * may edit. All or none, in one atomic store operation; each field gets a
 * revision marked published.
 *
 * - 200 {@linkcode PublishAnswer}: the addresses that went public (fields
 *   without a draft are left out).
 * - 409 {@linkcode PublishConflictBody}: a field's draft is not the
 *   `versions` entry the editor sent (another editor changed it); nothing
 *   was published.
 * - 400: malformed JSON, `fields` not a list of allowlisted addresses (at
 *   most 1000), `versions` not an object of strings; 403 without a session,
 *   from another site, or when `canEdit` refuses a named field; 405 for
 *   other methods; 413 for a publish too large for the store.
 *
 * @example
 * ```ts
 * import { createPublishHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const publish = createPublishHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createPublishHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "publish",
    options,
    ["POST"],
    async (req, editor, call) => {
      const body = await readObject(req);
      const versions = body.versions ?? {};
      if (
        typeof versions !== "object" || versions === null ||
        Array.isArray(versions) ||
        !Object.values(versions).every((v) => typeof v === "string")
      ) {
        throw new HttpError(Status.BadRequest, "Invalid versions");
      }
      const given = versions as Record<string, string>;
      let refs: DraftRef[] | null = null;
      if (body.fields !== undefined) {
        if (!Array.isArray(body.fields) || body.fields.length > MAX_FIELDS) {
          throw new HttpError(
            Status.BadRequest,
            `fields must be a list of at most ${MAX_FIELDS} addresses`,
          );
        }
        refs = [];
        const seen = new Set<string>();
        for (const text of body.fields) {
          const address = allowedField(options.allowlist, text);
          if (!await mayEdit(options, req, address, editor, call)) {
            throw new HttpError(
              Status.Forbidden,
              `Not allowed to edit ${formatAddress(address)}`,
            );
          }
          const id = formatAddress(address);
          if (seen.has(id)) continue;
          seen.add(id);
          refs.push({
            collection: address.collection,
            key: address.key,
            field: fieldPath(address),
            version: Object.hasOwn(given, text as string)
              ? given[text as string]
              : undefined,
          });
        }
      } else if (options.canEdit) {
        // "All" is every draft this editor may edit.
        refs = [];
        for (const d of await options.store.drafts()) {
          const address = parseAddress(addressOf(d));
          if (typeof address === "string") continue;
          if (await mayEdit(options, req, address, editor, call)) {
            refs.push({ collection: d.collection, key: d.key, field: d.field });
          }
        }
      }
      const result = await options.store.publish(refs, editor.name);
      if (result.conflicts.length) {
        const conflict: PublishConflictBody = {
          error: "conflict",
          conflicts: result.conflicts.map((c) => ({
            field: addressOf(c),
            value: c.value,
            version: c.version,
          })),
        };
        return json(Status.Conflict, conflict);
      }
      if (options.onPublish && result.published.length) {
        try {
          await options.onPublish(result.published, editor);
        } catch (err) {
          console.error("cms: onPublish failed", err);
        }
      }
      const answer: PublishAnswer = {
        published: result.published.map(addressOf),
      };
      return json(Status.OK, answer);
    },
  );
}

/**
 * `POST` JSON `{"field": ADDRESS}` drops that field's draft; the published
 * value stays. 204 (also when the field had no draft: nothing to drop);
 * 400 for malformed JSON or a malformed or non-allowlisted field; 403
 * without a session, from another site, or when `canEdit` refuses; 405 for
 * other methods.
 *
 * @example
 * ```ts
 * import { createDiscardHandler, MemoryContentStore } from "@inplace/cms";
 * // The editor of the request's session in YOUR session store, or null.
 * declare function editorOf(req: Request): Promise<{ name: string } | null>;
 * const discard = createDiscardHandler({
 *   authorize: (req) => editorOf(req), // your session lookup
 *   allowlist: { pages: { title: "plain", body: "rich" } },
 *   store: new MemoryContentStore(),
 * });
 * ```
 */
export function createDiscardHandler(
  options: DraftHandlerOptions,
): Handler<EndpointCall> {
  return draftEndpoint(
    "discard",
    options,
    ["POST"],
    async (req, editor, call) => {
      const body = await readObject(req);
      const address = allowedField(options.allowlist, body.field);
      if (!await mayEdit(options, req, address, editor, call)) {
        throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
      }
      await options.store.discard(
        address.collection,
        address.key,
        fieldPath(address),
      );
      try {
        await options.onDiscard?.(formatAddress(address), editor);
      } catch (err) {
        console.error("cms: onDiscard failed", err);
      }
      return new Response(null, { status: Status.NoContent });
    },
  );
}
