/**
 * "Choose from library" (a lazy chunk): a modal dialog that pages through
 * the uploads of the media library (config `library`), searches
 * them by file name and alt text, and hands back the chosen one's `<img>`
 * attributes (its stored URL and variants: nothing is uploaded again).
 *
 * The state lives in {@linkcode LibraryModel} (no DOM; tests drive it);
 * {@linkcode openLibrary} is the thin view. Keyboard: type to search,
 * ↑/↓ (or Home/End) move through the results, Enter chooses, Esc cancels.
 *
 * @module
 */

import type {
  MediaLibraryItem,
  MediaLibraryPage,
} from "../core/protocol/mod.ts";
import type { Kit } from "./dom.ts";
import { chunkLabels, t } from "./labels.ts";
import { reasonOf, refuse } from "./refusal.ts";
import { THEME } from "./theme.ts";
import { imageAttrs } from "./upload.ts";

/**
 * This chunk's labels (English; German when the UI is German). The title,
 * Cancel and "Loading…" are the shared table's (`t`).
 */
const EN = {
  search: "Search by file name or alt text",
  results: "Images",
  more: "More",
  choose: "Choose",
  none: "No images found",
  failed: "The library could not be loaded: {reason}",
  refused: "This image can't be used: {reason}",
  count: "{n} of {total}",
};
const DE: typeof EN = {
  search: "Nach Dateiname oder Alternativtext suchen",
  results: "Bilder",
  more: "Mehr",
  choose: "Wählen",
  none: "Keine Bilder gefunden",
  failed: "Die Mediathek konnte nicht geladen werden: {reason}",
  refused: "Dieses Bild kann nicht verwendet werden: {reason}",
  count: "{n} von {total}",
};

/** A label of this chunk in the UI's language. */
const libraryLabel = chunkLabels(EN, DE);

/**
 * The URL of one page of the library: the library endpoint with the
 * search and the page's cursor.
 *
 * @example
 * ```ts
 * import { libraryUrl } from "./media_library.ts";
 * libraryUrl("/api/cms/media/library", "sun", null, "http://x/");
 * // "http://x/api/cms/media/library?q=sun"
 * ```
 */
export function libraryUrl(
  library: string,
  query: string,
  cursor: string | null,
  base: string = location.href,
): string {
  const url = new URL(library, base);
  if (query) url.searchParams.set("q", query);
  if (cursor) url.searchParams.set("cursor", cursor);
  return url.href;
}

/**
 * The `<img>` attributes of a library image whose natural size is
 * `width` × `height`: its URL and variants as an upload's answer gives
 * them (see `imageAttrs`), with `alt`.
 *
 * @example
 * ```ts
 * import { reuseAttrs } from "./media_library.ts";
 * reuseAttrs({
 *   key: "a.jpg", name: "a.jpg", url: "/media/a.jpg", size: 9, uploaded: "",
 *   uploader: null,
 *   alts: [], used: false,
 *   variants: [{ key: "a-480w.webp", url: "/media/a-480w.webp", size: 3, width: 480 }],
 * }, 1200, 800, "Sea").srcset; // "/media/a-480w.webp 480w, /media/a.jpg 1200w"
 * ```
 */
export function reuseAttrs(
  item: MediaLibraryItem,
  width: number,
  height: number,
  alt: string,
): Record<string, string> {
  return imageAttrs({
    key: item.key,
    url: item.url,
    width,
    height,
    type: "",
    variants: item.variants.map((v) => ({
      url: v.url,
      width: v.width,
      height: Math.round(height * v.width / width),
      type: "",
    })),
  }, alt);
}

/**
 * The library dialog's state: the search, the results loaded so far (page
 * by page), the next cursor and the highlighted result. No DOM.
 */
export class LibraryModel {
  /** The search text the results are for. */
  query = "";
  /** The results loaded so far, newest first. */
  items: MediaLibraryItem[] = [];
  /** Cursor of the next page; `null` when everything is loaded. */
  next: string | null = null;
  /** How many uploads match the search. */
  total = 0;
  /** Index of the highlighted result; -1 for none. */
  active = -1;

  /** Starts a new search: drops the results. */
  search(query: string): void {
    this.query = query.trim();
    this.items = [];
    this.next = null;
    this.total = 0;
    this.active = -1;
  }

  /** Adds a page; the first result of a new search becomes highlighted. */
  add(page: MediaLibraryPage): void {
    this.items.push(...page.uploads);
    this.next = page.next;
    this.total = page.total;
    if (this.active < 0 && this.items.length) this.active = 0;
  }

  /**
   * Moves the highlight by `delta`, clamped to the results: `-Infinity`
   * goes to the first, `Infinity` to the last.
   */
  move(delta: number): void {
    if (!this.items.length) return;
    this.active = Math.max(
      0,
      Math.min(this.items.length - 1, this.active + delta),
    );
  }

  /** The highlighted result, if any. */
  get current(): MediaLibraryItem | undefined {
    return this.items[this.active];
  }
}

/** What the editor chose: the item and its `<img>` attributes. */
export interface LibraryChoice {
  /** The chosen upload. */
  item: MediaLibraryItem;
  /** `src`, `width`, `height`, `srcset`, … and `alt` (its first alt text). */
  attrs: Record<string, string>;
}

const CSS = `dialog{width:min(36em,calc(100vw - 32px))}
input[type=search]{all:unset;box-sizing:border-box;width:100%;min-height:30px;padding:4px 8px;border:1px solid var(--bd);border-radius:var(--r2);background:var(--bg);color:var(--fg);font:var(--f)}
ul{list-style:none;margin:var(--sp) 0;padding:0;max-height:50vh;overflow:auto}
li{display:flex;gap:var(--sp);align-items:center;padding:4px;border-radius:var(--r2);cursor:pointer}
li[aria-selected=true]{outline:2px solid var(--a);outline-offset:-2px;background:var(--bg2)}
img{flex:none;width:64px;height:48px;object-fit:cover;background:var(--bg2);border-radius:4px}
small{display:block;color:var(--mu)}
@media(forced-colors:active){li[aria-selected=true]{outline-color:Highlight}}`;

/** An open library dialog: its parts and state, shared below. */
interface Library {
  kit: Kit;
  media: string;
  model: LibraryModel;
  host: HTMLElement;
  dialog: HTMLDialogElement;
  form: HTMLFormElement;
  search: HTMLInputElement;
  list: HTMLUListElement;
  status: HTMLParagraphElement;
  more: HTMLButtonElement;
  choose: HTMLButtonElement;
  cancel: HTMLButtonElement;
  /** The latest request's ticket (older answers are dropped). */
  loading: number;
  /** The pending search, debounced. */
  timer?: ReturnType<typeof setTimeout>;
  closed: boolean;
  resolve(choice: LibraryChoice | null): void;
}

/**
 * Opens the library dialog for the media endpoint `media`. Resolves with
 * the chosen upload's attributes, or `null` when the editor cancels.
 *
 * @example
 * ```ts ignore
 * const chosen = await openLibrary(kit, "/api/cms/media");
 * if (chosen) img.src = chosen.attrs.src;
 * ```
 */
export function openLibrary(
  kit: Kit,
  media: string,
): Promise<LibraryChoice | null> {
  const v = libraryDialog(kit, media);
  const done = new Promise<LibraryChoice | null>((r) => v.resolve = r);
  const { search, list, dialog } = v;
  search.oninput = () => {
    // Busy from the first key until the answer is shown.
    list.setAttribute("aria-busy", "true");
    clearTimeout(v.timer);
    v.timer = setTimeout(() => {
      v.timer = undefined;
      v.model.search(search.value);
      paint(v);
      void load(v, null);
    }, 200);
  };
  v.more.onclick = () => void load(v, v.model.next);
  search.onkeydown = list.onkeydown = (e) => listKey(v, e);
  v.form.onsubmit = (e) => {
    e.preventDefault();
    void finish(v, true);
  };
  v.cancel.onclick = () => void finish(v, false);
  dialog.onclose = () => void finish(v, false);
  // Esc cancels in every engine (WebKit may not close a modal dialog on
  // a scripted Esc).
  dialog.onkeydown = (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    e.stopPropagation();
    void finish(v, false);
  };
  dialog.showModal();
  search.focus();
  paint(v);
  void load(v, null);
  return done;
}

/**
 * Builds the dialog and puts it in the page (not yet shown). Its element
 * ids are its shadow root's own, so they need no prefix.
 */
function libraryDialog(kit: Kit, media: string): Library {
  const { h, isolate } = kit;
  const { host, root } = isolate("cms-media-library", THEME, CSS);
  const search = h("input", {
    type: "search",
    "aria-label": libraryLabel("search"),
    "aria-controls": "l",
    placeholder: libraryLabel("search"),
  });
  const list = h("ul", {
    id: "l",
    role: "listbox",
    tabindex: "0",
    "aria-label": libraryLabel("results"),
  });
  const status = h("p", { class: "m", role: "status" });
  const more = h("button", { type: "button" }, libraryLabel("more"));
  const choose = h(
    "button",
    { type: "submit", class: "p" },
    libraryLabel("choose"),
  );
  const cancel = h("button", { type: "button" }, t("cancel"));
  const form = h(
    "form",
    { method: "dialog" },
    h("h2", { id: "h" }, t("fromLibrary")),
    search,
    list,
    status,
    h("div", { class: "a" }, more, cancel, choose),
  );
  const dialog = h("dialog", { class: "k", "aria-labelledby": "h" }, form);
  root.append(dialog);
  document.body.append(host);
  return {
    kit,
    media,
    model: new LibraryModel(),
    host,
    dialog,
    form,
    search,
    list,
    status,
    more,
    choose,
    cancel,
    loading: 0,
    closed: false,
    resolve() {},
  };
}

/** Shows the model: the items, the active one, More, Choose, the count. */
function paint(v: Library): void {
  const { kit: { h }, model, list } = v;
  const rows = model.items.map((item, i) => {
    const thumb = item.variants[0]?.url ?? item.url;
    const li = h(
      "li",
      {
        id: `o${i}`,
        role: "option",
        "aria-selected": String(i === model.active),
      },
      h("img", { src: thumb, alt: "", loading: "lazy" }),
      h(
        "span",
        {},
        item.name,
        h("small", {}, item.alts.join(" · ")),
      ),
    );
    li.onclick = () => {
      model.active = i;
      paint(v);
    };
    li.ondblclick = () => void finish(v, true);
    return li;
  });
  list.replaceChildren(...rows);
  const active = rows[model.active];
  if (active) {
    list.setAttribute("aria-activedescendant", active.id);
    active.scrollIntoView?.({ block: "nearest" });
  } else list.removeAttribute("aria-activedescendant");
  v.more.hidden = model.next === null;
  v.choose.disabled = !model.current;
  v.status.textContent = model.items.length
    ? libraryLabel("count", { n: model.items.length, total: model.total })
    : libraryLabel("none");
}

/** Loads the page at `cursor` (`null`: the first) of the current search. */
async function load(v: Library, cursor: string | null): Promise<void> {
  const ticket = ++v.loading;
  v.status.textContent = t("loading");
  const res = await fetch(libraryUrl(v.media, v.model.query, cursor))
    .catch(() => null);
  if (ticket !== v.loading) return; // a newer search answered
  if (v.timer === undefined) v.list.removeAttribute("aria-busy");
  if (!res?.ok) {
    const reason = await reasonOf(res);
    v.status.textContent = refuse({
      action: "library",
      status: res?.status ?? 0,
      reason,
      message: libraryLabel("failed", { reason }),
    });
    return;
  }
  v.model.add(await res.json() as MediaLibraryPage);
  paint(v);
}

/** Arrows, Home and End move the active item (Home and End not in the
 * search box, where they move the caret). */
function listKey(v: Library, e: KeyboardEvent): void {
  const moves: Record<string, number> = {
    ArrowDown: 1,
    ArrowUp: -1,
    Home: -Infinity,
    End: Infinity,
  };
  const move = moves[e.key];
  if (!move || (e.target === v.search && !isFinite(move))) return;
  e.preventDefault();
  v.model.move(move);
  paint(v);
}

/** Closes the dialog once: resolves with the chosen item's attributes
 * (`chosen`), or `null`. */
async function finish(v: Library, chosen: boolean): Promise<void> {
  if (v.closed) return;
  const item = chosen ? v.model.current : undefined;
  if (chosen && !item) return;
  if (item) {
    // A choice counts as a use: media cleanup keeps the file until the
    // save that follows stores it. A file deleted meanwhile is refused.
    v.status.textContent = t("loading");
    const res = await fetch(libraryUrl(v.media, "", null), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ chosen: item.key }),
    }).catch(() => null);
    if (!res?.ok) {
      const reason = await reasonOf(res);
      v.status.textContent = refuse({
        action: "library",
        status: res?.status ?? 0,
        reason,
        message: libraryLabel("refused", { reason }),
      });
      return;
    }
    if (v.closed) return; // chosen twice while the first was on its way
  }
  v.closed = true;
  clearTimeout(v.timer);
  v.dialog.close();
  v.host.remove();
  if (!item) return v.resolve(null);
  // The natural size gives width/height (no layout shift) and the srcset.
  const probe = new Image();
  probe.src = item.url;
  await probe.decode().catch(() => {});
  v.resolve({
    item,
    attrs: reuseAttrs(
      item,
      probe.naturalWidth || item.variants.at(-1)?.width || 1,
      probe.naturalHeight || 1,
      item.alts[0] ?? "",
    ),
  });
}
