/**
 * The German review labels (a lazy chunk, loaded by `review_labels.ts` for
 * a German UI): the texts in the order of the English table's keys, each
 * line naming its key in a comment (paired with the keys when loaded, so
 * the keys don't ship twice; `tests/client/review_model_test.ts` checks
 * the count and the names).
 *
 * @module
 */

/** German texts, in the order of the keys of the English review table. */
export const de: string[] = [
  "Kommentare", // title
  "{n} Kommentar|{n} Kommentare", // count
  "Kommentieren", // comment
  "Antworten", // reply
  "Senden", // send
  "Erledigt", // resolve
  "Wieder öffnen", // reopen
  "Bearbeiten", // edit
  "Löschen", // remove
  "Speichern", // save
  "Abbrechen", // cancel
  "Schließen", // close
  "Losgelöst: der Text ist weg", // detached
  "Erledigt von {name}", // resolved
  "Erledigte zeigen", // showResolved
  "Keine Kommentare. Text auswählen, um zu kommentieren.", // none
  "Diesen Kommentar löschen?", // confirmRemove
  "(gelöscht)", // deleted
  " (bearbeitet)", // edited
  "Review-Link", // link
  "Mit diesem Link kann jeder bis {when} kommentieren und freigeben:", // linkMade
  "Kopieren", // copy
  "Freigeben", // approve
  "Änderungen erbitten", // ask
  "Freigegeben von {name}, {when}", // approved
  "Änderungen erbeten von {name}, {when}", // changes
  " (seitdem bearbeitet)", // void
  "Ihr Name", // name
  "Steht bei Ihren Kommentaren.", // nameHint
  "Weiter", // go
  "Notiz (optional)", // note
  "Nicht gesendet: {reason}", // failed
];
