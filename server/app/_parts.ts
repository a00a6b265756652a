/**
 * Builds the endpoints `createCms` routes from its options: which parts are
 * on, each part's handler, and the hooks that tie them together (editor
 * events hear every save, publish and discard; the scheduler fires
 * schedules and tells the events).
 *
 * @module
 */
import type { EndpointCall, Handler } from "../http/mod.ts";
import { createSaveHandler, draftStore } from "../save/mod.ts";
import {
  createMediaHandler,
  createMediaLibraryHandler,
  type ListableMediaStorage,
  LocalMediaStorage,
  type MediaStorage,
  serveLocalMedia,
} from "../media/mod.ts";
import { createHistoryHandler } from "../history/mod.ts";
import {
  createCancelScheduleHandler,
  createDiscardHandler,
  createDraftsHandler,
  createPreviewHandler,
  createPublishHandler,
  createScheduleHandler,
  type DraftHandlerOptions,
  PreviewSigner,
  Scheduler,
} from "../drafts/mod.ts";
import { EditorEvents, type EventBus, KvEventBus } from "../events/mod.ts";
import {
  type ContentStore,
  type HistoryStore,
  isReviewStore,
  isScheduleStore,
  KvContentStore,
} from "../store/mod.ts";
import {
  createReviewHandlers,
  type ReviewHandlers,
  reviewSigner,
  withReviewers,
} from "../review/mod.ts";
import { createClientHandler } from "../bundle/mod.ts";
import type { CmsOptions } from "./options.ts";

/** A request handler of one routed part. */
export type PartHandler = (
  req: Request,
  call?: EndpointCall,
) => Promise<Response>;

/** One routed part: its name, path, methods and handler. */
export interface Part {
  /** Its name in the route table. */
  name: string;
  /** Its path (a prefix when `prefix`). */
  path: string;
  /** The methods it answers (others get 405 from the handler). */
  methods: readonly string[];
  /** Whether `path` is a prefix (client and media files). */
  prefix: boolean;
  /** The handler. */
  handle: PartHandler;
}

/** What `buildParts` makes: the parts, and what runs in the background. */
export interface Built {
  /** The routed parts, in route-table order. */
  parts: Part[];
  /** The editor event hub, when events are on. */
  events: EditorEvents | null;
  /** The scheduler this process runs, when schedules are on. */
  scheduler: Scheduler | null;
  /** The client's mount module path, when the client is served. */
  mount: string | null;
  /** The review endpoints, when review is on. */
  review: ReviewHandlers | null;
}

/** Whether the store keeps revisions (a {@linkcode HistoryStore}). */
function keepsHistory(store: ContentStore): store is HistoryStore {
  const s = store as Partial<HistoryStore>;
  return typeof s.revisions === "function" &&
    typeof s.revision === "function";
}

/** Whether the storage can list what it holds. */
function lists(storage: MediaStorage | undefined): boolean {
  return typeof (storage as { list?: unknown } | undefined)?.list ===
    "function";
}

/** The base path, checked: `/x` or `/x/y`, no trailing slash. */
export function basePathOf(options: CmsOptions): string {
  const base = (options.basePath ?? "/api/cms").replace(/\/+$/, "");
  if (!/^(\/[\w.~-]+)+$/.test(base)) {
    throw new TypeError(
      `basePath must be a path like "/api/cms" (got ${
        JSON.stringify(options.basePath)
      })`,
    );
  }
  return base;
}

/** Runs every given hook in turn (each one's errors are its caller's). */
function both<A extends unknown[]>(
  ...hooks: (((...args: A) => void | Promise<void>) | undefined)[]
): ((...args: A) => Promise<void>) | undefined {
  const set = hooks.filter((h) => h !== undefined);
  if (!set.length) return undefined;
  return async (...args: A) => {
    for (const hook of set) await hook(...args);
  };
}

/** Which optional parts the options turn on; throws on a contradiction. */
function switches(options: CmsOptions) {
  const draft = options.publishMode === "draft";
  const history = options.history ?? keepsHistory(options.store);
  if (history && !keepsHistory(options.store)) {
    throw new TypeError(
      "history: true needs a store that keeps history (memory, KV, PostgreSQL)",
    );
  }
  const library = options.library ??
    (lists(options.storage) && keepsHistory(options.store));
  if (library && !(lists(options.storage) && keepsHistory(options.store))) {
    throw new TypeError(
      "library: true needs a storage that lists its uploads and a store that keeps history",
    );
  }
  const schedules = options.schedules ?? false;
  const preview = options.preview;
  for (const [on, name] of [[schedules, "schedules"], [preview, "preview"]]) {
    if (on && !draft) {
      throw new TypeError(`${name} needs publishMode: "draft"`);
    }
  }
  if (schedules && !isScheduleStore(options.store)) {
    throw new TypeError(
      "schedules need a store that keeps schedules (memory, KV, PostgreSQL)",
    );
  }
  const events = options.events ?? options.bus !== undefined;
  const review = options.review;
  if (review && !isReviewStore(options.store)) {
    throw new TypeError(
      "review needs a store that keeps comments (memory, KV, PostgreSQL)",
    );
  }
  if (options.requireApproval && !(draft && review && options.pageUrl)) {
    throw new TypeError(
      'requireApproval needs publishMode: "draft", review and pageUrl',
    );
  }
  return { draft, history, library, schedules, preview, events, review };
}

/** Adds one part to the route table. */
type Add = (
  name: string,
  path: string,
  methods: readonly string[],
  handle: PartHandler | Handler<EndpointCall>,
  prefix?: boolean,
) => void;

/** What the part builders share. */
interface Ctx {
  options: CmsOptions;
  base: string;
  on: ReturnType<typeof switches>;
  store: ContentStore;
  add: Add;
  hooks: Hooks;
}

/** The hooks that tie the parts together, and what runs in the background. */
interface Hooks {
  events: EditorEvents | null;
  scheduler: Scheduler | null;
  onSave: CmsOptions["onSave"];
  onPublish: CmsOptions["onPublish"];
  onDiscard: CmsOptions["onDiscard"];
}

/** Builds every part the options turn on. */
export function buildParts(options: CmsOptions, base: string): Built {
  const on = switches(options);
  const parts: Part[] = [];
  const add: Add = (name, path, methods, handle, prefix = false) =>
    parts.push({ name, path, methods, prefix, handle });
  const store = on.draft ? draftStore(options.store) : options.store;
  const hooks = background(options, on, store);
  const ctx: Ctx = { options, base, on, store, add, hooks };
  addContentParts(ctx);
  if (on.draft) addDraftParts(ctx);
  const review = addReviewParts(ctx);
  const { events, scheduler } = hooks;
  if (events) add("events", `${base}/events`, ["GET", "POST"], events.handler);
  let mount: string | null = null;
  if (options.client !== false) {
    const client = createClientHandler({ base: `${base}/client/` });
    mount = client.mount;
    add("client", client.base, ["GET", "HEAD"], client, true);
  }
  const { storage } = options;
  if (storage instanceof LocalMediaStorage && options.serveMedia !== false) {
    const prefix = new URL(storage.publicUrl, "http://x").pathname
      .replace(/\/+$/, "") + "/";
    if (prefix === "/" || prefix === `${base}/`) {
      throw new TypeError(
        `serve local media under a path of its own, e.g. "/media" (publicUrl is ${
          JSON.stringify(storage.publicUrl)
        })`,
      );
    }
    add("files", prefix, ["GET", "HEAD"], serveLocalMedia(storage), true);
  }
  return { parts, events, scheduler, mount, review };
}

/** The event hub and the scheduler, and the hooks that feed them. */
/**
 * The default event bus: over the store's Deno KV database, so every
 * process that shares it hears every event; in-process for other stores.
 */
function busOf(store: ContentStore): EventBus | undefined {
  return store instanceof KvContentStore ? new KvEventBus(store.kv) : undefined;
}

function background(
  options: CmsOptions,
  on: ReturnType<typeof switches>,
  store: ContentStore,
): Hooks {
  // With review on, a review link's holder may open its page's stream.
  const access = on.review
    ? withReviewers(options, reviewSigner(on.review.secret))
    : {};
  const events = on.events
    ? new EditorEvents({
      ...options,
      ...(typeof on.events === "object" ? on.events : {}),
      ...access,
      bus: options.bus ?? busOf(options.store),
    })
    : null;
  const scheduler = on.schedules && on.schedules !== "elsewhere" &&
      isScheduleStore(store)
    ? new Scheduler({
      store,
      pollMs: typeof on.schedules === "object"
        ? on.schedules.pollMs
        : undefined,
      allowlist: options.allowlist,
      onPublish: options.onPublish,
      onFire: events?.onFire,
    })
    : null;
  return {
    events,
    scheduler,
    onSave: both(options.onSave, events?.onSave),
    onPublish: both(options.onPublish, events?.onPublish),
    onDiscard: both(options.onDiscard, events?.onDiscard),
  };
}

/** Save, media, the library and history. */
function addContentParts({ options, base, on, store, add, hooks }: Ctx) {
  const { storage } = options;
  const { onSave } = hooks;
  add(
    "save",
    `${base}/save`,
    ["PATCH", "POST"],
    createSaveHandler({ ...options, store, onSave }),
  );
  if (storage) {
    add(
      "media",
      `${base}/media`,
      ["POST"],
      createMediaHandler({ ...options, storage, uploads: store }),
    );
  }
  if (on.library && storage && keepsHistory(store) && lists(storage)) {
    add(
      "library",
      `${base}/media/library`,
      ["GET", "HEAD", "POST"],
      createMediaLibraryHandler({
        ...options,
        storage: storage as ListableMediaStorage,
        store,
      }),
    );
  }
  if (on.history && keepsHistory(store)) {
    add(
      "history",
      `${base}/history`,
      ["GET", "HEAD", "POST"],
      createHistoryHandler({
        ...options,
        store,
        onSave,
        maxLimit: options.maxHistory,
      }),
    );
  }
}

/** Drafts, publish, discard, the schedule endpoints and preview. */
function addDraftParts({ options, base, on, add, hooks }: Ctx) {
  const opts: DraftHandlerOptions = {
    ...options,
    store: draftStore(options.store),
    scheduler: hooks.scheduler ?? undefined,
    schedulerElsewhere: on.schedules === "elsewhere",
    onPublish: hooks.onPublish,
    onDiscard: hooks.onDiscard,
  };
  const publish = { ...opts, requireApproval: options.requireApproval };
  add("drafts", `${base}/drafts`, ["GET", "HEAD"], createDraftsHandler(opts));
  add("publish", `${base}/publish`, ["POST"], createPublishHandler(publish));
  add("discard", `${base}/discard`, ["POST"], createDiscardHandler(opts));
  if (on.schedules) {
    add(
      "schedule",
      `${base}/schedule`,
      ["GET", "HEAD"],
      createScheduleHandler(opts),
    );
    add(
      "cancelSchedule",
      `${base}/schedule/cancel`,
      ["POST"],
      createCancelScheduleHandler(opts),
    );
  }
  if (on.preview) {
    const preview = on.preview instanceof PreviewSigner
      ? { signer: on.preview }
      : on.preview;
    add(
      "preview",
      `${base}/preview`,
      ["POST"],
      createPreviewHandler({ ...options, ...preview }),
    );
  }
}

/** The review endpoints (comments, links, approvals, names), when on. */
function addReviewParts(
  { options, base, on, store, add, hooks }: Ctx,
): ReviewHandlers | null {
  if (!on.review || !isReviewStore(store)) return null;
  const review = createReviewHandlers({
    ...options,
    store,
    signer: reviewSigner(on.review.secret),
    allowPath: on.review.allowPath,
    reviewerRequestsPerMinute: on.review.reviewerRequestsPerMinute,
    onComments: hooks.events?.onComments,
  });
  add("comments", `${base}/comments`, ["GET", "POST"], review.comments);
  add(
    "comment",
    `${base}/comments/`,
    ["PATCH", "DELETE"],
    review.comment,
    true,
  );
  add("reviewLinks", `${base}/review/links`, ["POST"], review.links);
  add("approve", `${base}/review/approve`, ["POST"], review.approve);
  add("reviewName", `${base}/review/name`, ["POST"], review.name);
  return review;
}
