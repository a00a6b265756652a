/**
 * The browser-safe ground floor shared by the client, the server and the
 * Fresh helpers: the field-address grammar, the content declaration, the
 * wire protocol of every endpoint and the sanitizer policy. No Deno APIs,
 * and no DOM lib needed to type-check it.
 *
 * Guides: [content and addresses](../docs/content.md), the
 * [protocol reference](../docs/protocol.md).
 *
 * @example
 * ```ts
 * import { defineContent, formatAddress, list, parseAddress } from "@inplace/cms/core";
 * export const content = defineContent({
 *   pages: { title: "plain", body: "rich", hero: "image", features: list() },
 * });
 * const address = parseAddress("pages:home:features.1");
 * if (typeof address !== "string") formatAddress(address); // "pages:home:features.1"
 * ```
 *
 * @module
 */
export {
  type FieldAddress,
  fieldPath,
  formatAddress,
  isLocale,
  MAX_KEY_LENGTH,
  MAX_NAME_LENGTH,
  parseAddress,
} from "./address.ts";
export {
  type Allowlist,
  type Content,
  defineContent,
  type FieldAddressOf,
  type FieldDecl,
  type FieldKind,
  type FieldSpec,
  image,
  list,
  type ListOptions,
  type LocaleOptions,
  type Locales,
  localesOf,
  plain,
  rich,
  shared,
  type TextLimits,
} from "./content.ts";
export {
  checkAlt,
  checkContent,
  checkMessage,
  type CheckOptions,
  type CheckRule,
  type Finding,
  type SiteLink,
  siteLinks,
} from "./checks.ts";
export {
  localizeAddress,
  type LocalizedRecord,
  readLocale,
  storedName,
} from "./locale.ts";
export {
  type ConflictBody,
  type DiscardBody,
  type DraftsEventData,
  type DraftsListing,
  ERROR_CONTENT_TYPE,
  type ErrorBody,
  type HistoryListing,
  type LinkCheckAnswer,
  type LinkCheckBody,
  type ListConflictBody,
  type ListSaveBody,
  type MediaAnswer,
  type MediaLibraryItem,
  type MediaLibraryPage,
  type MediaVariant,
  type PresenceBody,
  type PresenceEntry,
  type PresenceEventData,
  type PreviewAnswer,
  type PreviewBody,
  type PublishAnswer,
  type PublishBody,
  type PublishConflictBody,
  type PublishedEventData,
  REMOVED_HEADER,
  type RestoreBody,
  type RevisionBody,
  type RevisionSummary,
  type SaveBody,
  type SavedEventData,
  type ScheduleAnswer,
  SCHEDULED,
  type ScheduleEntry,
  type ScheduleEventData,
  type ScheduleListing,
  Status,
  type StatusCode,
  type StatusCodes,
  VERSION_HEADER,
} from "./protocol/mod.ts";
export {
  ANCHOR_CONTEXT_CHARS,
  type Approval,
  type ApproveBody,
  type Comment,
  type CommentAuthor,
  type CommentCreateBody,
  type CommentPatchBody,
  type CommentsAnswer,
  type CommentsEventData,
  MAX_APPROVALS_PER_PAGE,
  MAX_COMMENT_CHARS,
  MAX_COMMENTS_PER_PAGE,
  MAX_NAME_CHARS,
  MAX_QUOTE_CHARS,
  REVIEW_HEADER,
  REVIEW_LINK_DEFAULT_SECONDS,
  REVIEW_LINK_MAX_SECONDS,
  REVIEW_PARAM,
  type ReviewLinkAnswer,
  type ReviewLinkBody,
  type ReviewNameBody,
} from "./protocol/mod.ts";
export {
  anchorAt,
  resolveAnchor,
  type TextAnchor,
  textOf,
  type TextRange,
} from "./review/anchor.ts";
export {
  type ApprovalCoverage,
  approvalCovers,
  type DraftVersion,
} from "./review/approval.ts";
export { FALLBACK_ATTRIBUTE, LOCALE_ATTRIBUTE } from "./locale_markers.ts";
export {
  type AttributeHookEvent,
  createSanitizer,
  type DomDocument,
  type DomElement,
  type DomNode,
  type DomParent,
  type DomText,
  type ElementHookEvent,
  isAllowedUrl,
  KEPT_TAGS,
  LINK_REL,
  LINK_SCHEMES,
  type Purifier,
  type Sanitize,
  SANITIZER_POLICY,
  type SanitizeResult,
  type SanitizerOptions,
  type SanitizerPolicy,
} from "./sanitizer.ts";
