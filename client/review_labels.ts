/**
 * The labels of review in place: the review chunks' own English table, and
 * German (`review_de.ts`, loaded only for a German UI). Nothing of them
 * loads to edit a page.
 *
 * @module
 */

import { format, labels } from "./labels.ts";

/** The English table; its keys are every review label. */
export const en = {
  title: "Comments",
  count: "{n} comment|{n} comments",
  comment: "Comment",
  reply: "Reply",
  send: "Send",
  resolve: "Resolve",
  reopen: "Reopen",
  edit: "Edit",
  remove: "Delete",
  save: "Save",
  cancel: "Cancel",
  close: "Close",
  detached: "Detached: the text is gone",
  resolved: "Resolved by {name}",
  showResolved: "Show resolved",
  none: "No comments. Select text to comment.",
  confirmRemove: "Delete this comment?",
  deleted: "(deleted)",
  edited: " (edited)",
  link: "Review link",
  linkMade: "Anyone with this link can comment and approve until {when}:",
  copy: "Copy",
  approve: "Approve",
  ask: "Ask for changes",
  approved: "Approved by {name}, {when}",
  changes: "Changes asked by {name}, {when}",
  void: " (edited since)",
  name: "Your name",
  nameHint: "Shown with your comments.",
  go: "Continue",
  note: "Note (optional)",
  failed: "Not sent: {reason}",
};

/** The table in use: English, or German once `review_de.ts` is in. */
const table = { ...en };

/** The review labels: `L("count", { n: 2 })` → "2 comments". */
export const L = (
  key: keyof typeof en,
  values?: Record<string, string | number>,
): string => format(table[key], values);

/** Resolves once the table is the UI's language (German: a lazy chunk). */
export const ready: Promise<unknown> = labels.lang.startsWith("de")
  ? import("./review_de.ts").then((m) =>
    Object.keys(en).forEach((k, i) => table[k as keyof typeof en] = m.de[i])
  )
  : Promise.resolve();
