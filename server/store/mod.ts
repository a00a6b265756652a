/**
 * Content stores: the contract ({@linkcode ContentStore}, drafts, history,
 * schedules), the memory and Deno KV stores, the rules every store shares
 * (the pure plan of a draft write, revisions, retention, the record queue,
 * the plans of comment changes;
 * the PostgreSQL store in `postgres/` uses them too), and localized reads.
 *
 * @module
 */
export {
  MemoryContentStore,
  type MemoryContentStoreOptions,
} from "./memory.ts";
export {
  type ContentRecord,
  type ContentStore,
  type ContentValue,
  type Draft,
  type DraftConflict,
  type DraftRef,
  type DraftStore,
  type HistoryStore,
  type PublishMode,
  type PublishResult,
  type Retention,
  type Revision,
  type RevisionInput,
  type StoreLine,
} from "./types.ts";
export { type LocalizedRecord, readLocalized } from "./localized.ts";
export {
  KeyTooLargeError,
  KvContentStore,
  type KvContentStoreOptions,
  PublishTooLargeError,
  RecordTooLargeError,
} from "./kv/mod.ts";
export {
  isDue,
  isScheduleStore,
  type Schedule,
  type ScheduleCursor,
  type ScheduleFailure,
  type ScheduleFiring,
  type ScheduleQuery,
  type ScheduleStore,
} from "./schedule.ts";
export { checkDraft } from "./draft.ts";
export {
  byRecord,
  listDrafts,
  overlay,
  planDraft,
  planPublish,
  type RecordDrafts,
  type RecordPublish,
  type Selection,
} from "./draft.ts";
export { backoff, RecordQueue } from "./_queue.ts";
export {
  bySchedule,
  checkSchedule,
  failureOf,
  selectSchedules,
} from "./schedule.ts";
export {
  checkRetention,
  checkRevision,
  expired,
  newRevisions,
} from "./_revision.ts";
export { draftLines } from "./draft.ts";
export {
  approvalsToDrop,
  byCreated,
  canonicalApproval,
  canonicalComment,
  checkApproval,
  checkComment,
  checkCommentText,
  type CommentDeletion,
  type CommentExpect,
  type CommentUpdate,
  isPagePath,
  isReviewStore,
  MAX_APPROVAL_FIELDS,
  MAX_PAGE_CHARS,
  type PageState,
  planAdd,
  planDelete,
  planUpdate,
  ReviewRefusal,
  type ReviewStore,
} from "./review.ts";
