/**
 * The German label table, a lazy chunk loaded by `mountCms({ labels: "de" })`.
 * Typed as a complete {@linkcode Labels} table: a key added to the English
 * table without its German text is a type error.
 *
 * @module
 */

import type { Labels } from "./labels.ts";

/** German labels. */
export const de: Labels = {
  lang: "de",
  bar: "Bearbeitungsleiste",
  save: "Speichern",
  saveHint: "Speichern (Strg+S)",
  settings: "Einstellungen",
  history: "Verlauf",
  done: "Fertig",
  discard: "Verwerfen",
  ok: "OK",
  clean: "Alle Änderungen gespeichert",
  cleanRemoved:
    "Alle Änderungen gespeichert. {n} nicht unterstütztes Element wurde entfernt.|Alle Änderungen gespeichert. {n} nicht unterstützte Elemente wurden entfernt.",
  unsaved: "{n} ungespeicherte Änderung|{n} ungespeicherte Änderungen",
  saving: "Wird gespeichert…",
  offline: "Offline: Änderungen bleiben hier erhalten",
  notSaved: "Nicht gespeichert: {reason}",
  retrying: "Nicht gespeichert: {reason}. Neuer Versuch {when}.",
  restored:
    "{n} ungespeicherte Änderung wiederhergestellt.|{n} ungespeicherte Änderungen wiederhergestellt.",
  confirmDiscard: "Ungespeicherte Änderungen verwerfen?",
  unreachable: "Server nicht erreichbar",
  offlineReason: "offline",
  changedElsewhere: "anderswo geändert",
  conflict: "„{field}“ wurde anderswo geändert",
  yours: "Ihre Fassung",
  stored: "Gespeichert",
  keepMine: "Meine behalten",
  useStored: "Gespeicherte übernehmen",
  richText: "Formatierter Text",
  formatting: "Formatierung: {label}",
  bold: "Fett",
  italic: "Kursiv",
  link: "Link",
  heading: "Überschrift",
  bulleted: "Aufzählung",
  numbered: "Nummerierte Liste",
  image: "Bild einfügen",
  undo: "Rückgängig",
  redo: "Wiederholen",
  uploadProgress: "Fortschritt des Hochladens",
  uploading: "{name} wird hochgeladen…",
  uploadFailed: "Hochladen fehlgeschlagen: {reason}",
  linkUrl: "Adresse",
  linkText: "Text",
  newTab: "In neuem Tab öffnen",
  apply: "Übernehmen",
  remove: "Entfernen",
  cancel: "Abbrechen",
  linkEmpty: "Bitte eine Adresse eingeben.",
  linkBad:
    "Erlaubt sind https://-, mailto:- und tel:-Adressen oder ein Pfad dieser Website.",
  imageTools: "Bild",
  replace: "Ersetzen",
  altText: "Alternativtext",
  altTitle: "Bild beschreiben",
  altHelp:
    "Beschreiben Sie, was das Bild zeigt, für Menschen, die es nicht sehen.",
  decorative: "Dekorativ: keine Beschreibung nötig",
  altNeeded: "Beschreiben Sie das Bild oder markieren Sie es als dekorativ.",
  insert: "Einfügen",
  missingAlt: "{n} Bild ohne Alternativtext|{n} Bilder ohne Alternativtext",
  changeImage: "Bild ändern",
  dropImage: "Oder ein Bild darauf ziehen.",
  notImage: "Kein Bild",
  publish: "Veröffentlichen ({n})",
  discardDrafts: "Entwürfe verwerfen",
  publishing: "Wird veröffentlicht…",
  published: "{n} veröffentlicht",
  notPublishedConflict:
    "Nicht veröffentlicht: anderswo geändert; bitte neu laden",
  notPublished: "Nicht veröffentlicht: {reason}",
  notDiscarded: "Nicht verworfen",
  confirmDiscardDrafts:
    "{n} unveröffentlichte Änderung verwerfen?|{n} unveröffentlichte Änderungen verwerfen?",
  draftMark: "Entwurf",
  historyOf: "Verlauf: {field}",
  loading: "Wird geladen…",
  close: "Schließen",
  noHistory: "Noch kein Verlauf.",
  current: "Aktuell",
  restore: "Wiederherstellen",
  restoreAt: "Die Fassung vom {when} wiederherstellen",
  restoring: "Wird wiederhergestellt…",
  beforeHistory: "vor dem Verlauf",
  empty: "(leer)",
  historyUnavailable: "Verlauf nicht verfügbar: {reason}",
};
