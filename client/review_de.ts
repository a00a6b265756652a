/**
 * The German review labels (a lazy chunk, loaded by `review_labels.ts` for
 * a German UI).
 *
 * @module
 */

import type { en } from "./review_labels.ts";

/** The German review table. */
export const de: typeof en = {
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
};
