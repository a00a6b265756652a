/**
 * The history panel (a lazy chunk): the revisions of one field, newest
 * first, each with when (Intl), who, its size in characters (plain) or
 * words (rich), in draft mode whether it is a draft or published, and a
 * preview of what it changed (against the revision before it); the newest
 * carries a "Current" badge. Restore
 * on an older one first shows what it would change: a word-level diff of
 * the current value against that revision (removed words struck through,
 * inserted ones underlined), then "Restore this version" or Back. A modal
 * `<dialog>` in its own shadow root: Tab moves between buttons, Escape
 * closes, focus returns where it was.
 *
 * Restore puts the revision's value in the field and saves it through the
 * session's normal save (allowlist, sanitizer, conflict check on the
 * field's version), so the page shows it at once and the save is itself
 * the newest revision.
 *
 * @module
 */

import type {
  HistoryListing,
  RevisionBody,
  RevisionSummary,
} from "../core/protocol/mod.ts";
import { changeExcerpt, diffWords } from "./diff.ts";
import type { Kit } from "./dom.ts";
import { dateTime, t } from "./labels.ts";
import { THEME } from "./theme.ts";

/** What the panel needs from the editing session. */
export interface HistoryTarget {
  /** The field's address, e.g. `pages:home:title`. */
  id: string;
  /** The field's name for people (its declared label), e.g. "Title". */
  label: string;
  /** Whether its value is HTML (previewed and compared as text). */
  rich: boolean;
  /**
   * Publish mode `draft`: each revision is marked "draft" or "published".
   * Default `false` (every save went live; no marks).
   */
  drafts?: boolean;
  /** Puts `value` in the field and saves it; rejects with the text to
   * show when the save is refused. */
  restore(value: string): Promise<void>;
}

const CSS = `dialog.k{width:38em}
ol{list-style:none;margin:0 0 var(--sp);padding:0;max-height:55vh;overflow:auto}
li{display:flex;gap:var(--sp);align-items:center;padding:var(--sp) 0;border-top:1px solid var(--bg2)}
li>div{flex:1;min-width:0}
.t{padding:1px 8px;border-radius:9px;background:var(--bg2);border:1px solid var(--bd);font-size:12px;font-weight:600}
.d{margin-left:6px;font-size:11px;font-weight:600;text-transform:uppercase}
li p{margin:2px 0 0;overflow-wrap:anywhere;max-height:4.5em;overflow:hidden}
.df{white-space:pre-wrap;overflow-wrap:anywhere;max-height:45vh;overflow:auto;padding:var(--sp);border:1px solid var(--bd)}
ins{text-decoration:underline 2px var(--ok)}
del{text-decoration:line-through 2px var(--er)}
@media(forced-colors:active){ins,del{border:1px solid}}`;

/** How many revisions the panel lists. */
const LIMIT = 20;

/** The text of a value: rich values as their text content. */
const textOf = (value: string, rich: boolean) =>
  rich
    ? new DOMParser().parseFromString(
      // Blocks read as separate words.
      value.replace(/<\/(p|h\d|li|blockquote|pre)>/g, "$&\n"),
      "text/html",
    ).body.textContent?.trim() ?? ""
    : value;

/** The size people read: characters (plain) or words (rich). */
const sizeOf = (text: string, rich: boolean) =>
  rich
    ? t("words", { n: text.split(/\s+/).filter(Boolean).length })
    : t("characters", { n: [...text].length });

/**
 * Opens the history panel of `target` (fetching from `url`, the history
 * endpoint); resolves when it closes.
 *
 * @example
 * ```ts ignore
 * const { openHistory } = await import("./history.ts");
 * await openHistory(kit, "/api/cms/history", {
 *   id: "pages:home:title",
 *   label: "Title",
 *   rich: false,
 *   restore: async (value) => console.log(value),
 * });
 * ```
 */
export async function openHistory(
  kit: Kit,
  url: string,
  target: HistoryTarget,
): Promise<void> {
  const { h } = kit;
  const { host, root } = kit.isolate("cms-history", THEME, CSS);
  const back = document.activeElement as HTMLElement | null;
  const title = t("historyOf", { field: target.label });
  const list = h("ol");
  const state = h("p", { class: "m", role: "status" }, t("loading"));
  const close = h("button", {}, t("close"));
  const body = h("div", {}, list);
  const dialog = h(
    "dialog",
    { class: "k", "aria-label": title },
    h("h2", {}, title),
    state,
    body,
    h("div", { class: "a" }, close),
  );
  root.append(dialog);
  document.body.append(host);
  const closed = new Promise<void>((resolve) => {
    dialog.onclose = () => {
      host.remove();
      back?.focus();
      resolve();
    };
  });
  close.onclick = () => dialog.close();
  dialog.showModal();
  try {
    const rows = await load(url, target);
    state.textContent = rows.length ? "" : t("noHistory");
    const view = { kit, target, dialog, body, list, state, rows, close };
    rows.forEach((_, i) => list.append(row(view, i)));
    (list.querySelector("li:nth-child(2) button") as HTMLElement | null ??
      close).focus();
  } catch (err) {
    state.textContent = t("historyUnavailable", {
      reason: (err as Error).message,
    });
  }
  return closed;
}

/** The revisions with their values, newest first. */
async function load(
  url: string,
  target: HistoryTarget,
): Promise<{ rev: RevisionSummary; value: string }[]> {
  const get = async (query: Record<string, string>) => {
    const res = await fetch(
      `${url}?${new URLSearchParams({ field: target.id, ...query })}`,
    );
    if (!res.ok) throw new Error(await res.text() || `HTTP ${res.status}`);
    return await res.json();
  };
  const { revisions } = await get({
    limit: String(LIMIT),
  }) as HistoryListing;
  const values = await Promise.all(
    revisions.map((r) =>
      get({ revision: r.id }).then((b) => (b as RevisionBody).value)
    ),
  );
  return revisions.map((rev, i) => ({ rev, value: String(values[i]) }));
}

/** What the rows and the compare view share. */
interface View {
  kit: Kit;
  target: HistoryTarget;
  dialog: HTMLDialogElement;
  body: HTMLElement;
  list: HTMLElement;
  state: HTMLElement;
  /** The list's Close button (hidden while comparing: Back is there). */
  close: HTMLElement;
  rows: { rev: RevisionSummary; value: string }[];
}

/**
 * The preview of row `i`: what it changed against the revision before it
 * (removed words struck through, new ones underlined, context around);
 * the oldest shows its start.
 */
function preview(v: View, i: number): HTMLElement {
  const { kit: { h }, target: { rich }, rows } = v;
  const text = textOf(rows[i].value, rich);
  const older = rows[i + 1] ? textOf(rows[i + 1].value, rich) : text;
  const p = h("p", { title: text });
  for (const [op, part] of changeExcerpt(diffWords(older, text, 200_000))) {
    p.append(op ? h(op > 0 ? "ins" : "del", {}, part) : part);
  }
  if (!text && !p.textContent) p.textContent = t("empty");
  return p;
}

/** Row `i`: meta line, preview, and the Current badge or Restore. */
function row(v: View, i: number): HTMLElement {
  const { kit: { h }, target: { rich, drafts }, rows } = v;
  const { rev, value } = rows[i];
  const text = textOf(value, rich);
  const when = dateTime(new Date(rev.at));
  const meta = `${when} · ${rev.editor ?? t("beforeHistory")} · ${
    sizeOf(text, rich)
  }`;
  const mark = rev.published ? t("publishedMark") : t("draftMark");
  const end = i
    ? h("button", { "aria-label": t("restoreAt", { when }) }, t("restore"))
    : h("span", { class: "t" }, t("current"));
  end.onclick = i ? () => compare(v, i) : null;
  return h(
    "li",
    {},
    h(
      "div",
      {},
      h("span", { class: "m" }, meta),
      ...drafts ? [h("span", { class: "d" }, mark)] : [],
      preview(v, i),
    ),
    end,
  );
}

/** Shows what restoring revision `i` changes, with confirm and Back. */
function compare(v: View, i: number): void {
  const { kit: { h }, target, rows, body, list, state, close } = v;
  const { rev, value } = rows[i];
  const when = dateTime(new Date(rev.at));
  const diff = h("p", { class: "df" });
  for (
    const [op, text] of diffWords(
      textOf(rows[0].value, target.rich),
      textOf(value, target.rich),
    )
  ) diff.append(op ? h(op > 0 ? "ins" : "del", {}, text) : text);
  const restore = h("button", { class: "p" }, t("restoreThis"));
  const cancel = h("button", {}, t("back"));
  restore.onclick = async () => {
    state.textContent = t("restoring");
    try {
      await target.restore(value);
      v.dialog.close();
    } catch (why) {
      // Refused: the panel stays, saying why (the edit bar says it too).
      state.textContent = `${why}`;
    }
  };
  cancel.onclick = () => {
    body.replaceChildren(list);
    close.hidden = false;
    (list.children[i]?.querySelector("button") as HTMLElement)?.focus();
  };
  close.hidden = true;
  body.replaceChildren(
    h("p", {}, t("restorePreview", { when })),
    diff,
    h("div", { class: "a" }, cancel, restore),
  );
  restore.focus();
}
