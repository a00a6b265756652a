/**
 * The German label table, a lazy chunk loaded by `mountCms({ labels: "de" })`.
 * The texts are listed in the order of the English table's keys (each line
 * names its key in a comment) and paired with those keys when the chunk
 * loads, so the chunk does not ship the keys a second time;
 * `tests/client/labels_test.ts` checks the count and that every comment names the
 * key at its place.
 *
 * @module
 */

import { en, type Labels } from "./labels.ts";

/** German texts, in the order of the keys of {@linkcode en}. */
const TEXTS = [
  "de", // lang
  "Bearbeitungsleiste", // bar
  "Speichern", // save
  "Speichern (Strg+S)", // saveHint
  "Einstellungen", // settings
  "Verlauf", // history
  "Fertig", // done
  "Verwerfen", // discard
  "Eintrag nach oben", // listUp
  "Eintrag nach unten", // listDown
  "Eintrag entfernen", // listRemove
  "Eintrag hinzufügen", // listAdd
  "Aktionen für Listeneinträge", // listBar
  "OK", // ok
  "Alle Änderungen gespeichert", // clean
  "{n} unveröffentlichte Änderung|{n} unveröffentlichte Änderungen", // unpublished
  "Alle Änderungen gespeichert. {n} nicht unterstütztes Element wurde entfernt.|Alle Änderungen gespeichert. {n} nicht unterstützte Elemente wurden entfernt.", // cleanRemoved
  "{n} ungespeicherte Änderung|{n} ungespeicherte Änderungen", // unsaved
  "{n} Problem|{n} Probleme", // problems
  "Wird gespeichert…", // saving
  "Offline: Änderungen bleiben hier erhalten", // offline
  "Nicht gespeichert: {reason}", // notSaved
  "Nicht gespeichert: {reason}. Neuer Versuch {when}.", // retrying
  "{n} ungespeicherte Änderung wiederhergestellt.|{n} ungespeicherte Änderungen wiederhergestellt.", // restored
  "Ungespeicherte Änderungen verwerfen?", // confirmDiscard
  "Server nicht erreichbar", // unreachable
  "offline", // offlineReason
  "anderswo geändert", // changedElsewhere
  "„{field}“ wurde anderswo geändert", // conflict
  "Ihre Fassung", // yours
  "Gespeichert", // stored
  "Meine behalten", // keepMine
  "Gespeicherte übernehmen", // useStored
  "{field}, Eintrag {n}", // fieldItem
  "Formatierter Text", // richText
  "Formatierung: {label}", // formatting
  "Fett", // bold
  "Kursiv", // italic
  "Link", // link
  "Code im Text", // inlineCode
  "Absatzformat", // blockType
  "Absatz", // paragraph
  "Überschrift 2", // heading2
  "Überschrift 3", // heading3
  "Überschrift 4", // heading4
  "Zitat", // quote
  "Codeblock", // codeBlock
  "Tastenkürzel", // shortcuts
  "Feld zurücksetzen", // revertField
  "Aufzählung", // bulleted
  "Nummerierte Liste", // numbered
  "Bild einfügen", // image
  "Rückgängig", // undo
  "Wiederholen", // redo
  "Fortschritt des Hochladens", // uploadProgress
  "{name} wird hochgeladen…", // uploading
  "Hochladen fehlgeschlagen: {reason}", // uploadFailed
  "Adresse", // linkUrl
  "Text", // linkText
  "In neuem Tab öffnen", // newTab
  "Übernehmen", // apply
  "Entfernen", // remove
  "Abbrechen", // cancel
  "Bitte eine Adresse eingeben.", // linkEmpty
  "Erlaubt sind https://-, mailto:- und tel:-Adressen oder ein Pfad dieser Website.", // linkBad
  "Bild", // imageTools
  "Ersetzen", // replace
  "Alternativtext", // altText
  "Bild beschreiben", // altTitle
  "Beschreiben Sie, was das Bild zeigt, für Menschen, die es nicht sehen.", // altHelp
  "Dekorativ: keine Beschreibung nötig", // decorative
  "Beschreiben Sie das Bild oder markieren Sie es als dekorativ.", // altNeeded
  "Einfügen", // insert
  "Sprache: {name}", // locale
  "{n} Feld noch nicht übersetzt|{n} Felder noch nicht übersetzt", // untranslated
  "Noch nicht übersetzt: zeigt {name}", // notTranslated
  "Aus {name} übernehmen", // copyFrom
  "Bild ändern", // changeImage
  "Oder ein Bild darauf ziehen.", // dropImage
  "Kein Bild", // notImage
  "Veröffentlichen ({n})", // publish
  "Entwürfe verwerfen", // discardDrafts
  "Wird veröffentlicht…", // publishing
  "Veröffentlicht: {fields}.", // publishedToast
  "Als Besucher ansehen", // viewAsVisitor
  "Nicht veröffentlicht: anderswo geändert; bitte neu laden", // notPublishedConflict
  "Nicht veröffentlicht: {reason}", // notPublished
  "Nicht verworfen", // notDiscarded
  "{n} unveröffentlichte Änderung verwerfen?|{n} unveröffentlichte Änderungen verwerfen?", // confirmDiscardDrafts
  "Entwurf", // draftMark
  "{n} Entwurf auf anderen Seiten|{n} Entwürfe auf anderen Seiten", // otherPages
  "Alle veröffentlichen ({n})", // publishAll
  "Verlauf: {field}", // historyOf
  "Wird geladen…", // loading
  "Schließen", // close
  "Noch kein Verlauf.", // noHistory
  "Aktuell", // current
  "Wiederherstellen", // restore
  "Die Fassung vom {when} wiederherstellen", // restoreAt
  "Wird wiederhergestellt…", // restoring
  "Nicht wiederhergestellt: {reason}", // notRestored
  "Diese Version wiederherstellen", // restoreThis
  "Zurück", // back
  "Was die Version vom {when} ändert:", // restorePreview
  "{n} Wort|{n} Wörter", // words
  "{n} Zeichen|{n} Zeichen", // characters
  "vor dem Verlauf", // beforeHistory
  "(leer)", // empty
  "Verlauf nicht verfügbar: {reason}", // historyUnavailable
  "veröffentlicht", // publishedMark
  "{name} ist hier", // here
  "{name} bearbeitet", // editing
  "{name} hat dieses Feld gespeichert", // savedBy
  "Veröffentlichen um…", // publishAt
  "Aus der Mediathek wählen", // fromLibrary
];

/** German labels. */
export const de: Labels = Object.fromEntries(
  Object.keys(en).map((key, i) => [key, TEXTS[i]]),
) as Labels;
