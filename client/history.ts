/**
 * The history panel (a lazy chunk): the revisions of one field, newest
 * first, each with when (Intl), who, its size and a preview of its value,
 * and Restore. A modal `<dialog>` in its own shadow root: Tab moves between
 * the Restore buttons, Escape closes, focus returns where it was.
 *
 * Restore puts the revision's value in the field and saves it through the
 * session's normal save (allowlist, sanitizer, conflict check on the
 * field's version), so the page shows it at once and the save is itself
 * the newest revision.
 *
 * @module
 */

import type { HistoryListing, RevisionBody } from "../core/wire.ts";
import type { Kit } from "./dom.ts";
import { dateTime, labels, t } from "./labels.ts";

/** What the panel needs from the editing session. */
export interface HistoryTarget {
  /** The field's address, e.g. `pages:home:title`. */
  id: string;
  /** Whether its value is HTML (previewed as text). */
  rich: boolean;
  /** Puts `value` in the field and saves it. */
  restore(value: string): Promise<void>;
}

const CSS = `:host{all:initial!important}
dialog{font:13px/1.4 system-ui,sans-serif;color:#f6f8fa;background:#222;border:0;border-radius:12px;padding:12px;width:min(36em,calc(100vw - 48px))}
ol{list-style:none;margin:8px 0;padding:0;max-height:60vh;overflow:auto}
li{display:flex;gap:8px;align-items:center;padding:6px 0;border-top:1px solid #444}
div{flex:1;min-width:0}
p{margin:2px 0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:#bbb}
button{all:unset;padding:6px 10px;border-radius:8px;background:#444;cursor:pointer}
button:hover,button:focus-visible{outline:2px solid #58f}
@media(forced-colors:active){dialog,button{border:1px solid}dialog,p{color:CanvasText;background:Canvas}button{color:ButtonText;background:ButtonFace}}`;

/** How many revisions the panel lists. */
const LIMIT = 20;

/**
 * Opens the history panel of `target` (fetching from `url`, the history
 * endpoint); resolves when it closes.
 *
 * @example
 * ```ts ignore
 * const { openHistory } = await import("./history.ts");
 * await openHistory(kit, "/api/cms/history", {
 *   id: "pages:home:title",
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
  const get = async (query: Record<string, string>) => {
    const res = await fetch(
      `${url}?${new URLSearchParams({ field: target.id, ...query })}`,
    );
    if (!res.ok) throw new Error(await res.text() || `HTTP ${res.status}`);
    return await res.json();
  };
  const { host, root } = kit.isolate("cms-history", CSS);
  const back = document.activeElement as HTMLElement | null;
  const list = h("ol");
  const state = h("p", { role: "status" }, t("loading"));
  const close = h("button", {}, t("close"));
  const dialog = h(
    "dialog",
    { "aria-label": t("historyOf", { field: target.id }) },
    h("strong", {}, t("historyOf", { field: target.id })),
    state,
    list,
    close,
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

  const size = new Intl.NumberFormat(labels.lang, {
    style: "unit",
    unit: "byte",
    unitDisplay: "narrow",
  });
  try {
    const { revisions } = await get({
      limit: String(LIMIT),
    }) as HistoryListing;
    const values = await Promise.all(
      revisions.map((r) =>
        get({ revision: r.id }).then((b) => (b as RevisionBody).value)
      ),
    );
    state.textContent = revisions.length ? "" : t("noHistory");
    revisions.forEach((rev, i) => {
      const value = String(values[i]);
      const text = target.rich
        ? new DOMParser().parseFromString(value, "text/html").body
          .textContent ?? ""
        : value;
      const restore = h("button", {}, t(i ? "restore" : "current"));
      restore.setAttribute(
        "aria-label",
        i ? t("restoreAt", { when: dateTime(new Date(rev.at)) }) : t("current"),
      );
      if (i) {
        restore.onclick = async () => {
          state.textContent = t("restoring");
          await target.restore(value);
          dialog.close();
        };
      } else restore.setAttribute("aria-disabled", "true");
      list.append(h(
        "li",
        {},
        h(
          "div",
          {},
          h(
            "span",
            {},
            `${dateTime(new Date(rev.at))} · ${
              rev.editor ?? t("beforeHistory")
            } · ${size.format(rev.bytes)}`,
          ),
          h("p", { title: text }, text.slice(0, 200) || t("empty")),
        ),
        restore,
      ));
    });
    (list.querySelector("li:nth-child(2) button") as HTMLElement | null ??
      close).focus();
  } catch (err) {
    state.textContent = t("historyUnavailable", {
      reason: (err as Error).message,
    });
  }
  return closed;
}
