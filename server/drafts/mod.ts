/**
 * Drafts and what ends them: the drafts list, publish, discard, signed
 * preview links, schedules (their endpoints and the {@linkcode Scheduler}
 * that fires them).
 *
 * @module
 */
export {
  createCancelScheduleHandler,
  createDiscardHandler,
  createDraftsHandler,
  createPublishHandler,
  createScheduleHandler,
  type DraftHandlerOptions,
} from "./handlers.ts";
export { Scheduler, type SchedulerOptions } from "./scheduler.ts";
export {
  createPreviewHandler,
  PREVIEW_PARAM,
  type PreviewHandlerOptions,
  PreviewSigner,
} from "./preview.ts";
