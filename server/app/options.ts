/**
 * The options of `createCms`: the shared options every endpoint takes, the
 * base path, and one switch per optional part.
 *
 * @module
 */
import type { FieldAddress } from "../../core/address.ts";
import type { Editor } from "../http/mod.ts";
import type { SaveHandlerOptions } from "../save/mod.ts";
import type { MediaHandlerOptions, MediaStorage } from "../media/mod.ts";
import type { EditorEventsOptions, EventBus } from "../events/mod.ts";
import type { PreviewSigner } from "../drafts/mod.ts";
import type { Draft } from "../store/mod.ts";

/** The editor event stream's own settings (see `EditorEvents`). */
export type CmsEventsOptions = Pick<
  EditorEventsOptions,
  | "heartbeatMs"
  | "maxStreams"
  | "maxStreamsPerSession"
  | "maxStreamsPerEditor"
  | "sessionCookie"
  | "sessionOf"
  | "maxQueuedBytes"
  | "bufferEvents"
  | "bufferBytes"
  | "retryMs"
>;

/** The preview endpoint's settings (see `createPreviewHandler`). */
export interface CmsPreviewOptions {
  /** Signs and checks the links. */
  signer: PreviewSigner;
  /** How long a link lives, in seconds (the handler's default: 1 day). */
  ttlSeconds?: number;
  /** Which site paths may get a link. Default: any path. */
  allowPath?: (path: string) => boolean;
}

/** Review in place (see `docs/review.md`). */
export interface CmsReviewOptions {
  /**
   * Signs review links (at least 32 bytes; share it across instances;
   * rotate it to revoke every link). May equal the preview secret: review
   * tokens are signed for another capability.
   */
  secret: string | Uint8Array;
  /** Which site paths may get a review link. Default: any path. */
  allowPath?: (path: string) => boolean;
  /** Requests one review link may make per minute (→ 429). Default 120. */
  reviewerRequestsPerMinute?: number;
}

/**
 * Options of `createCms`. One object feeds every endpoint: the save
 * endpoint's options (`authorize`, `allowlist`, `store`, `canEdit`, the
 * origin rules, limits, `onSave`), the media endpoint's (`storage` and its
 * limits), and what turns the optional parts on.
 *
 * | Part | Routed when |
 * | --- | --- |
 * | save | always |
 * | media | `storage` is given |
 * | media files | `storage` is a `LocalMediaStorage` (and `serveMedia` is not `false`) |
 * | library | `storage` can list its uploads and the store keeps history (unless `library: false`) |
 * | history | the store keeps history (unless `history: false`) |
 * | drafts, publish, discard | `publishMode: "draft"` |
 * | schedule, schedule/cancel | `schedules` is set (draft mode; a scheduler runs in this process) |
 * | preview | `preview` is set (draft mode) |
 * | events | `events` is set, or a `bus` is given |
 * | comments, comments/ID, review/links, review/approve, review/name | `review` is set (a store that keeps comments) |
 * | client files | always (unless `client: false`) |
 */
export interface CmsOptions extends
  Omit<SaveHandlerOptions, "storage">,
  Pick<
    MediaHandlerOptions,
    "authorizeMedia" | "maxBytes" | "maxPixels" | "images" | "key"
  > {
  /**
   * Where every endpoint lives, e.g. `/cms`: `${basePath}/save`,
   * `${basePath}/media`, …, the client under `${basePath}/client/`.
   * Default `/api/cms`.
   */
  basePath?: string;
  /** Where uploads go. Without it, no media endpoint and no library. */
  storage?: MediaStorage;
  /**
   * Whether the files of a `LocalMediaStorage` are served at its
   * `publicUrl` path. Default `true` (other storages serve their own).
   */
  serveMedia?: boolean;
  /**
   * The history endpoint (revisions, restore). Default: on when the store
   * keeps history (the memory, KV and PostgreSQL stores do); `true` with a
   * store that doesn't is an error at set-up.
   */
  history?: boolean;
  /**
   * The media library ("Choose from library"). Default: on when `storage`
   * can list its uploads and the store keeps history.
   */
  library?: boolean;
  /**
   * Scheduled publishing (draft mode): `true` or `{ pollMs }` routes the
   * schedule endpoints and runs a `Scheduler` in this process, started at
   * once and stopped by `cms.close()`. `"elsewhere"`: the endpoints only; a
   * scheduler on the same store runs in another process. Default: off.
   */
  schedules?: boolean | "elsewhere" | { pollMs?: number };
  /**
   * Presence and live changes (`EditorEvents`): `true` or its settings.
   * Default: off, or on when `bus` is given.
   */
  events?: boolean | CmsEventsOptions;
  /**
   * The event bus that carries editor events between instances (e.g. the
   * PostgreSQL bus). Giving one turns `events` on. Default: a `KvEventBus`
   * over a `KvContentStore`'s database (every process sharing it hears every
   * event), else in-process.
   */
  bus?: EventBus;
  /** Preview links for drafts (draft mode): a signer, or its settings. */
  preview?: PreviewSigner | CmsPreviewOptions;
  /**
   * Review in place: comments on the page's text, review links and
   * approvals (`{ secret }`). Needs a store that keeps comments (memory,
   * KV, PostgreSQL). Default: off.
   */
  review?: CmsReviewOptions;
  /**
   * Publish waits for an approval that covers each field's current draft
   * (409 otherwise). Needs draft mode, `review` and `pageUrl`. Default off.
   */
  requireApproval?: boolean;
  /** Whether the browser client's files are served. Default `true`. */
  client?: boolean;
  /**
   * The site path of the page that shows a field, so the publish panel
   * links drafts on other pages (see `DraftHandlerOptions.pageUrl`).
   */
  pageUrl?: (address: FieldAddress) => string | null | undefined;
  /** Called after a publish (now or scheduled), e.g. to purge a cache. */
  onPublish?: (published: Draft[], editor: Editor) => void | Promise<void>;
  /** Called after a draft was discarded. */
  onDiscard?: (field: string, editor: Editor) => void | Promise<void>;
  /** Most revisions one history listing returns. Default 1000. */
  maxHistory?: number;
}
