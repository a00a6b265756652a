/**
 * Every string of the editing UI, in ONE table. English is built in; German
 * is a separate lazy chunk (`labels_de.ts`); `mountCms({ labels })` takes
 * `"de"` or a partial table that overrides single entries.
 *
 * A label is a string. `{name}` is replaced by a value (`{n}`, `{field}`,
 * `{reason}`, `{when}`). A label that depends on a count lists its plural
 * forms separated by `|`, in the order of
 * `new Intl.PluralRules(lang).resolvedOptions().pluralCategories`
 * (English and German: one|other). Times go through `Intl` in `lang`.
 *
 * @module
 */

/** The English table; its keys are every label of the UI. */
export const en = {
  /** BCP 47 language of the table: used by `Intl` and the plural rules. */
  lang: "en",
  // Edit bar.
  bar: "Edit bar",
  save: "Save",
  saveHint: "Save (Ctrl+S)",
  settings: "Settings",
  history: "History",
  done: "Done",
  discard: "Discard",
  listUp: "Move item up",
  listDown: "Move item down",
  listRemove: "Remove item",
  listAdd: "Add item",
  listBar: "List item actions",
  ok: "OK",
  clean: "All changes saved",
  unpublished: "{n} unpublished change|{n} unpublished changes",
  cleanRemoved:
    "All changes saved. {n} unsupported item was removed.|All changes saved. {n} unsupported items were removed.",
  unsaved: "{n} unsaved change|{n} unsaved changes",
  problems: "{n} problem|{n} problems",
  saving: "Saving…",
  offline: "Offline: changes are kept here",
  notSaved: "Not saved: {reason}",
  retrying: "Not saved: {reason}. Retrying {when}.",
  restored: "Restored {n} unsaved change.|Restored {n} unsaved changes.",
  confirmDiscard: "Discard your unsaved changes?",
  // Reasons of a failed save.
  unreachable: "server unreachable",
  offlineReason: "offline",
  changedElsewhere: "changed elsewhere",
  // Conflict dialog.
  conflict: "“{field}” was changed elsewhere",
  yours: "Yours",
  stored: "Stored",
  keepMine: "Keep mine",
  useStored: "Use stored",
  fieldItem: "{field}, item {n}",
  // Rich text editor.
  richText: "Rich text",
  formatting: "Formatting: {label}",
  bold: "Bold",
  italic: "Italic",
  link: "Link",
  inlineCode: "Inline code",
  blockType: "Block type",
  paragraph: "Paragraph",
  heading2: "Heading 2",
  heading3: "Heading 3",
  heading4: "Heading 4",
  quote: "Quote",
  codeBlock: "Code block",
  shortcuts: "Keyboard shortcuts",
  revertField: "Revert the field",
  bulleted: "Bulleted list",
  numbered: "Numbered list",
  image: "Insert image",
  undo: "Undo",
  redo: "Redo",
  uploadProgress: "Upload progress",
  uploading: "Uploading {name}…",
  uploadFailed: "Upload failed: {reason}",
  // Link panel.
  linkUrl: "Address",
  linkText: "Text",
  newTab: "Open in a new tab",
  apply: "Apply",
  remove: "Remove",
  cancel: "Cancel",
  linkEmpty: "Enter an address.",
  linkBad: "Use an https://, mailto: or tel: address, or a path on this site.",
  // Image tools and the alt text dialog.
  imageTools: "Image",
  replace: "Replace",
  altText: "Alt text",
  altTitle: "Describe the image",
  altHelp: "Say what the image shows for people who cannot see it.",
  decorative: "Decorative: no description needed",
  altNeeded: "Describe the image, or mark it as decorative.",
  insert: "Insert",
  // Locales.
  locale: "Language: {name}",
  untranslated: "{n} field not translated yet|{n} fields not translated yet",
  notTranslated: "Not translated yet: shows {name}",
  copyFrom: "Copy from {name}",
  // Image fields.
  changeImage: "Change image",
  dropImage: "Or drop an image onto it.",
  notImage: "Not an image",
  // Draft mode (publish).
  publish: "Publish ({n})",
  discardDrafts: "Discard drafts",
  publishing: "Publishing…",
  publishedToast: "Published: {fields}.",
  viewAsVisitor: "View as visitor",
  notPublishedConflict: "Not published: changed by someone else; reload",
  notPublished: "Not published: {reason}",
  notDiscarded: "Not discarded",
  confirmDiscardDrafts:
    "Discard {n} unpublished change?|Discard {n} unpublished changes?",
  draftMark: "draft",
  otherPages: "{n} draft on other pages|{n} drafts on other pages",
  publishAll: "Publish all ({n})",
  // History panel.
  historyOf: "History: {field}",
  loading: "Loading…",
  close: "Close",
  noHistory: "No history yet.",
  current: "Current",
  restore: "Restore",
  restoreAt: "Restore the version of {when}",
  restoring: "Restoring…",
  notRestored: "Not restored: {reason}",
  restoreThis: "Restore this version",
  back: "Back",
  restorePreview: "What restoring the version of {when} changes:",
  words: "{n} word|{n} words",
  characters: "{n} character|{n} characters",
  beforeHistory: "before history",
  empty: "(empty)",
  historyUnavailable: "History unavailable: {reason}",
  publishedMark: "published",
  // Presence and live changes.
  here: "{name} is here",
  editing: "{name} is editing",
  savedBy: "{name} saved this field",
  // Scheduling and the media library (their dialogs: schedule.ts and
  // media_library.ts).
  publishAt: "Publish at…",
  fromLibrary: "Choose from library",
};

/** A complete label table (see {@linkcode en} for the keys). */
export type Labels = { [K in keyof typeof en]: string };

/** Languages shipped with the client. */
export type Language = "en" | "de";

/** The table in use: English, changed in place by {@linkcode useLabels}. */
export const labels: Labels = { ...en };

/**
 * Makes `table` (a shipped table, or English with the given entries
 * replaced) the table in use. Unknown keys and non-string values are
 * ignored.
 *
 * @example
 * ```ts ignore
 * useLabels({ save: "Publish" });
 * t("save"); // "Publish"
 * ```
 */
export function useLabels(table: Partial<Labels> = {}): void {
  Object.assign(labels, en);
  let k: keyof Labels;
  for (k in en) {
    if (typeof table[k] === "string") labels[k] = table[k]!;
  }
}

/**
 * `text` with `{name}` filled from `values`; with a number `n`, first the
 * plural form for `n` in the table's language (forms separated by `|`). The
 * one rule for every label, the lazy chunks' own tables included.
 *
 * @example
 * ```ts ignore
 * format("{n} field|{n} fields", { n: 1 }); // "1 field"
 * ```
 */
export function format(
  text: string,
  values: Record<string, string | number> = {},
): string {
  // A label without `|` is its own only form (`at(-1)`).
  if (typeof values.n === "number") {
    const rules = new Intl.PluralRules(labels.lang);
    const forms = text.split("|");
    const at = rules.resolvedOptions().pluralCategories.indexOf(
      rules.select(values.n),
    );
    text = forms[at] ?? forms.at(-1)!;
  }
  return text.replace(/\{(\w+)\}/g, (m, name) => `${values[name] ?? m}`);
}

/**
 * The label function of a lazy chunk's own tables: a key of `en`, in German
 * (`de`) when the UI is, through {@linkcode format}.
 *
 * @example
 * ```ts ignore
 * const label = chunkLabels({ none: "None" }, { none: "Keine" });
 * label("none"); // "None" in an English UI
 * ```
 */
export function chunkLabels<T extends Record<string, string>>(
  en: T,
  de: T,
): (key: keyof T, values?: Record<string, string | number>) => string {
  return (key, values) =>
    format((labels.lang.startsWith("de") ? de : en)[key], values);
}

/**
 * The label `key` of the table (see {@linkcode format}).
 *
 * @example
 * ```ts ignore
 * t("unsaved", { n: 2 }); // "2 unsaved changes"
 * ```
 */
export function t(
  key: keyof Labels,
  values: Record<string, string | number> = {},
): string {
  return format(labels[key], values);
}

/**
 * A time relative to `now` in the table's language, e.g. "in 4 seconds",
 * "2 minutes ago" (`Intl.RelativeTimeFormat`, `numeric: "auto"`).
 *
 * @example
 * ```ts ignore
 * relative(Date.now() + 4000); // "in 4 seconds"
 * ```
 */
export function relative(time: number, now: number = Date.now()): string {
  const s = Math.round((time - now) / 1000);
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] = Math.abs(s) < 60
    ? [s, "second"]
    : Math.abs(s) < 3600
    ? [Math.round(s / 60), "minute"]
    : Math.abs(s) < 86400
    ? [Math.round(s / 3600), "hour"]
    : [Math.round(s / 86400), "day"];
  return new Intl.RelativeTimeFormat(labels.lang, { numeric: "auto" })
    .format(value, unit);
}

/**
 * A date and time in the table's language (`Intl.DateTimeFormat`, medium
 * date, short time), e.g. for history entries.
 *
 * @example
 * ```ts ignore
 * dateTime(new Date()); // "Jun 3, 2026, 2:05 PM"
 * ```
 */
export function dateTime(date: Date | number): string {
  return new Intl.DateTimeFormat(labels.lang, {
    dateStyle: "medium",
    timeStyle: "short",
  }).format(date);
}
