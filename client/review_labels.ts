/**
 * The labels of review in place (the review chunk's own tables, English and
 * German, through `chunkLabels`: nothing of them loads to edit a page).
 *
 * @module
 */

import { chunkLabels } from "./labels.ts";

const en = {
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
  detached: "Detached: the quoted text is gone",
  resolved: "Resolved by {name}",
  showResolved: "Show resolved",
  none: "No comments yet. Select text on the page to comment.",
  confirmRemove: "Delete this comment?",
  deleted: "(deleted)",
  edited: " (edited)",
  link: "Review link",
  linkMade:
    "Anyone with this link can comment on this page and approve it until {when}:",
  copy: "Copy",
  approve: "Approve",
  ask: "Ask for changes",
  approved: "Approved by {name}, {when}",
  changes: "Changes asked by {name}, {when}",
  void: " (edited since)",
  name: "Your name",
  nameHint: "Shown beside your comments and your verdict.",
  go: "Continue",
  note: "Note (optional)",
  failed: "Not sent: {reason}",
};

/** The review labels: `L("count", { n: 2 })` → "2 comments". */
export const L: (
  key: keyof typeof en,
  values?: Record<string, string | number>,
) => string = chunkLabels(en, {
  title: "Kommentare",
  count: "{n} Kommentar|{n} Kommentare",
  comment: "Kommentieren",
  reply: "Antworten",
  send: "Senden",
  resolve: "Erledigt",
  reopen: "Wieder öffnen",
  edit: "Bearbeiten",
  remove: "Löschen",
  save: "Speichern",
  cancel: "Abbrechen",
  close: "Schließen",
  detached: "Losgelöst: der zitierte Text ist nicht mehr da",
  resolved: "Erledigt von {name}",
  showResolved: "Erledigte zeigen",
  none:
    "Noch keine Kommentare. Text auf der Seite auswählen, um zu kommentieren.",
  confirmRemove: "Diesen Kommentar löschen?",
  deleted: "(gelöscht)",
  edited: " (bearbeitet)",
  link: "Review-Link",
  linkMade:
    "Mit diesem Link kann jeder diese Seite bis {when} kommentieren und freigeben:",
  copy: "Kopieren",
  approve: "Freigeben",
  ask: "Änderungen erbitten",
  approved: "Freigegeben von {name}, {when}",
  changes: "Änderungen erbeten von {name}, {when}",
  void: " (seitdem bearbeitet)",
  name: "Ihr Name",
  nameHint: "Steht bei Ihren Kommentaren und Ihrem Urteil.",
  go: "Weiter",
  note: "Notiz (optional)",
  failed: "Nicht gesendet: {reason}",
});
