/**
 * Drafts and what ends them: the drafts list (`list.ts`), publish
 * (`publish.ts`), discard (`discard.ts`), scheduled publishes and their
 * cancel (`schedule.ts`, fired by the {@linkcode Scheduler} of
 * `scheduler.ts`), and signed preview links (`preview.ts`). The draft
 * endpoints share their options and front in `_shared.ts`.
 *
 * @module
 */
export { type DraftHandlerOptions } from "./_shared.ts";
export { createDraftsHandler } from "./list.ts";
export { createPublishHandler, type PublishHandlerOptions } from "./publish.ts";
export { createDiscardHandler } from "./discard.ts";
export {
  createCancelScheduleHandler,
  createScheduleHandler,
} from "./schedule.ts";
export { Scheduler, type SchedulerOptions } from "./scheduler.ts";
export {
  createPreviewHandler,
  PREVIEW_PARAM,
  type PreviewHandlerOptions,
  PreviewSigner,
} from "./preview.ts";
