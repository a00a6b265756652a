/**
 * The whole service in one call: {@linkcode createCms} routes the save
 * endpoint and every optional part its options turn on (media, library,
 * history, drafts, publish, discard, preview, schedules, events), the
 * browser client and local media files, under one base path. Guide:
 * `docs/wiring.md`.
 *
 * @module
 */
export {
  type Cms,
  type CmsRoute,
  createCms,
  type PageConfig,
  type PageFacts,
} from "./cms.ts";
export type {
  CmsEventsOptions,
  CmsOptions,
  CmsPreviewOptions,
  CmsReviewOptions,
} from "./options.ts";
