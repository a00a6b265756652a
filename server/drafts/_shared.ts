/**
 * What the draft endpoints (`list.ts`, `publish.ts`, `discard.ts`,
 * `schedule.ts`) share: their options ({@linkcode DraftHandlerOptions}),
 * their front ({@linkcode draftEndpoint}: the editor admitted, the store
 * checked for drafts), the `canEdit` question ({@linkcode mayEdit}), their
 * body ({@linkcode readDraftBody}), and the fields a publish or a schedule
 * names ({@linkcode publishRefs}).
 *
 * @module
 */
import {
  type FieldAddress,
  fieldPath,
  formatAddress,
  parseAddress,
} from "../../core/address.ts";
import { storedAddress } from "../../core/stored_address.ts";
import { Status } from "../../core/protocol/mod.ts";
import { localesOf } from "../../core/content.ts";
import { localeOfAddress } from "../../core/locale.ts";
import {
  admitEditor,
  allowedField,
  type Editor,
  endpoint,
  type EndpointCall,
  type Handler,
  HttpError,
  mayEdit,
  readJsonObject,
} from "../http/mod.ts";
import { draftStore, type SaveHandlerOptions } from "../save/mod.ts";
import type { Scheduler } from "./scheduler.ts";
import type { Draft, DraftRef, DraftStore } from "../store/mod.ts";

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
    /**
     * Fires scheduled publishes (`POST /api/cms/publish` with `at`); woken
     * when a schedule is made here. Without it (and without
     * `schedulerElsewhere`), a publish with `at` is refused (400): nothing
     * would fire it.
     */
    scheduler?: Scheduler;
    /**
     * `true` when a {@linkcode Scheduler} on this store runs in another
     * process (a worker, another instance): publishes with `at` are then
     * accepted here without `scheduler`. Default `false`.
     */
    schedulerElsewhere?: boolean;
    /**
     * The site path of the page that shows a field (e.g. `pages:about:body`
     * → `"/about"`), so the editor's publish panel links drafts on other
     * pages; `null`/`undefined`: listed without a link. The drafts listing
     * answers it as `page`. An error it throws counts as no link.
     */
    pageUrl?: (address: FieldAddress) => string | null | undefined;
  };

/** Largest publish, discard or cancel body (a page's addresses fit easily). */
const MAX_BODY_BYTES = 256 * 1024;
/** Most fields one publish names. */
const MAX_FIELDS = 1000;

/**
 * The shared front of the draft endpoints: `admitEditor`, then `handle`
 * with the editor. Throws a `TypeError` at set-up when the store keeps no
 * drafts.
 */
export function draftEndpoint(
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

/** Whether `canEdit` lets `editor` change `address`: the shared rule. */
export { mayEdit };

/**
 * A draft endpoint's JSON object body (at most 256 KiB; an empty body is
 * `{}`), through the front's one reader: 400/413 otherwise.
 */
export function readDraftBody(req: Request): Promise<Record<string, unknown>> {
  return readJsonObject(req, MAX_BODY_BYTES, { emptyIsObject: true });
}

/**
 * The fields a publish names (`fields`, with their `versions`), checked
 * against the allowlist and `canEdit`; without `fields`, every draft the
 * editor may edit (`null`: every draft, when no `canEdit` rule applies and
 * `listAll` is not asked).
 */
export async function publishRefs(
  options: DraftHandlerOptions,
  req: Request,
  editor: Editor,
  call: EndpointCall | undefined,
  body: Record<string, unknown>,
  listAll = false,
): Promise<DraftRef[] | null> {
  const given = publishVersions(body.versions);
  if (body.fields !== undefined) {
    return await namedRefs(options, req, editor, call, body, given);
  }
  if (options.canEdit || listAll || body.locale !== undefined) {
    // "All" is every draft this editor may edit (of one locale, if named).
    const locale = publishLocale(options, body.locale);
    const refs: DraftRef[] = [];
    for (const d of await options.store.drafts()) {
      const address = parseAddress(storedAddress(d));
      if (typeof address === "string") continue;
      if (
        locale !== undefined &&
        localeOfAddress(options.allowlist, address) !== locale
      ) continue;
      if (await mayEdit(options, req, address, editor, call)) {
        refs.push({ collection: d.collection, key: d.key, field: d.field });
      }
    }
    return refs;
  }
  return null;
}

/** A publish body's `versions` (absent or `null`: `{}`): strings, or 400. */
function publishVersions(value: unknown): Record<string, string> {
  const versions = value ?? {};
  if (
    typeof versions !== "object" || versions === null ||
    Array.isArray(versions) ||
    !Object.values(versions).every((v) => typeof v === "string")
  ) {
    throw new HttpError(Status.BadRequest, "Invalid versions");
  }
  return versions as Record<string, string>;
}

/**
 * The drafts of a publish's `fields`, each allowlisted and allowed by
 * `canEdit` (else 400/403), named once, with its `versions` entry.
 */
async function namedRefs(
  options: DraftHandlerOptions,
  req: Request,
  editor: Editor,
  call: EndpointCall | undefined,
  body: Record<string, unknown>,
  given: Record<string, string>,
): Promise<DraftRef[]> {
  if (!Array.isArray(body.fields) || body.fields.length > MAX_FIELDS) {
    throw new HttpError(
      Status.BadRequest,
      `fields must be a list of at most ${MAX_FIELDS} addresses`,
    );
  }
  if (body.locale !== undefined) {
    throw new HttpError(Status.BadRequest, "Give fields or locale, not both");
  }
  const refs: DraftRef[] = [];
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
  return refs;
}

/** A publish body's `locale`: a declared one, or 400. */
function publishLocale(
  options: DraftHandlerOptions,
  locale: unknown,
): string | undefined {
  if (locale === undefined) return undefined;
  if (
    typeof locale !== "string" ||
    !localesOf(options.allowlist)?.locales.includes(locale)
  ) {
    throw new HttpError(Status.BadRequest, "Unknown locale");
  }
  return locale;
}
