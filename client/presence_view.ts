/**
 * Presence and live changes, the view (a lazy chunk): opens the editor
 * event stream, shows who else is here in the edit bar (initials; names on
 * hover and for screen readers), names them on the regions they edit,
 * hands saved values to the model (`Model.stored`: a clean region takes
 * the value with a brief highlight; a dirty one gets "Ada saved this
 * field" and the conflict choice at once), passes draft-mode events on as
 * `cms:published`, `cms:drafts`, `cms:schedule` and `cms:comments` (review
 * in place re-reads) on `document`, and
 * reports this editor's focus and unsaved fields through `presence.ts`.
 *
 * @module
 */

import type { SavedEventData } from "../core/protocol/mod.ts";
import type { EditBar } from "./bar_types.ts";
import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";
import type { ListField } from "./list.ts";
import type { Field, Model } from "./model.ts";
import { createPresence, initials } from "./presence.ts";

const BAR_CSS =
  `:host{display:flex;gap:4px}span{display:inline-grid;place-items:center;width:24px;height:24px;border-radius:50%;background:#6a4cf0;color:#fff;font:600 11px system-ui,sans-serif}`;
// A ring, not an outline: a region's own state (unsaved, error) is its
// outline, and who else edits it must show beside that.
const PAGE_CSS =
  `[data-cms-peer]{box-shadow:0 0 0 2px #7a5cff!important}[data-cms-peer]:not(img)::after{content:attr(data-cms-peer);font:11px/1.6 system-ui,sans-serif;background:#6a4cf0;color:#fff;border-radius:4px;padding:0 4px;margin-left:6px}[data-cms-live]{animation:cms-live 1.5s}@keyframes cms-live{from{background:#ffe58a}}`;
const PEER = "data-cms-peer";

/** What a region says: who saved it (a conflict waits) or who edits it. */
function peerLabel(by: string | undefined, names: string[]): string {
  return by
    ? t("savedBy", { name: by })
    : names.length
    ? t("editing", { name: names.join(", ") })
    : "";
}

/** The editors here, as initials in the bar (names on hover). */
function avatars(h: Kit["h"], names: string[]): HTMLElement[] {
  return names.map((name) =>
    h("span", {
      title: name,
      role: "img",
      "aria-label": t("here", { name }),
    }, initials(name))
  );
}

/**
 * The fields of `doc` (the page as served now) whose values differ from
 * `model`'s, as saved events, each checked after the one before it was
 * applied; lists come whole (a list that changed shape
 * is one field).
 */
function* missed(doc: Document, model: Model): Generator<SavedEventData> {
  for (const el of doc.querySelectorAll<HTMLElement>("[data-cms-field]")) {
    const id = el.dataset.cmsField!;
    const f = model.get(id);
    const value = el.tagName === "IMG"
      ? el.getAttribute("src") ?? ""
      : f?.rich
      ? el.innerHTML.trim()
      : el.textContent ?? "";
    if (f && f.value !== value) {
      yield { field: id, value, version: el.dataset.cmsVersion!, by: "" };
    }
  }
  for (const el of doc.querySelectorAll<HTMLElement>("[data-cms-list]")) {
    const id = el.dataset.cmsList!;
    const value = [...el.children].filter((c) =>
      c.getAttribute("data-cms-field")?.startsWith(id + ".")
    ).map((c) => c.textContent ?? "");
    yield { field: id, value, version: el.dataset.cmsVersion!, by: "" };
  }
}

/** What the event stream's events do. */
interface StreamHandlers {
  // deno-lint-ignore no-explicit-any
  [event: string]: (data: any) => void;
  /** Events were missed (a reopen, a `resync`): re-read the page. */
  reread(): void;
}

/**
 * Opens the editor event stream of `url` for this page, and reopens it
 * later (with backoff) when it closes for good; after a reopen, `reread`
 * runs on its `hello` (a new EventSource has no Last-Event-ID). Draft-mode
 * events go to `document` as `cms:published`, `cms:drafts` and
 * `cms:schedule` (other editors' publishes, schedules firing). Returns the
 * close.
 */
function openStream(url: string, handlers: StreamHandlers): () => void {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay = 1000;
  let resync = false;
  function connect() {
    const es = source = new EventSource(
      `${url}?page=${encodeURIComponent(location.pathname)}`,
    );
    // deno-lint-ignore no-explicit-any
    const on = (name: string, run: (data: any) => void) =>
      es.addEventListener(name, (e) => run(JSON.parse(e.data)));
    on("hello", (d) => {
      delay = 1000;
      handlers.hello(d);
      if (resync) handlers.reread();
      resync = false;
    });
    on("presence", handlers.presence);
    on("saved", handlers.saved);
    on("resync", () => handlers.reread());
    for (const name of ["published", "drafts", "schedule", "comments"]) {
      on(
        name,
        (detail) =>
          document.dispatchEvent(new CustomEvent(`cms:${name}`, { detail })),
      );
    }
    es.onerror = () => {
      // Closed for good (503, 403, a network failure): reopen later.
      if (es.readyState !== EventSource.CLOSED) return;
      resync = true;
      timer = setTimeout(connect, delay * (1 + Math.random()));
      delay = Math.min(delay * 2, 30_000);
    };
  }
  connect();
  return () => {
    source?.close();
    clearTimeout(timer);
  };
}

/** Posts this editor's presence to `url`. */
const reporter = (url: string) => (body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

/** The region of an event target's (or node's) element, or `null`. */
const regionOf = (target: EventTarget | null) =>
  (target as Element | null)?.closest?.("[data-cms-field]")
    ?.getAttribute("data-cms-field") ?? null;

/** Reports the focused region (focus, caret) to `presence`; the removers. */
function followFocus(
  listen: Kit["listen"],
  presence: ReturnType<typeof createPresence>,
): (() => void)[] {
  return [
    listen(document, "focusin", (e) => presence.focus(regionOf(e.target))),
    // The caret's region (focus events skip windows without system focus).
    listen(document, "selectionchange", () => {
      const at = getSelection()?.anchorNode ?? null;
      const id = regionOf(at?.nodeType === 1 ? at : at?.parentElement ?? null);
      if (id) presence.focus(id);
    }),
    // Moving to another region: its focusin follows.
    listen<FocusEvent>(document, "focusout", (e) => {
      if (!regionOf(e.relatedTarget)) presence.focus(null);
    }),
  ];
}

/** Names the peers (`label`) on `els`, adding them to `painted`. */
function mark(els: HTMLElement[], label: string, painted: Set<HTMLElement>) {
  for (const el of els) {
    el.setAttribute(PEER, label);
    el.setAttribute("aria-description", label);
    painted.add(el);
  }
}

/** Takes the peers' names off `painted`, and empties it. */
function unmark(painted: Set<HTMLElement>) {
  for (const el of painted) {
    el.removeAttribute(PEER);
    el.removeAttribute("aria-description");
  }
  painted.clear();
}

/** A brief highlight of regions that took a saved value. */
function flash(els: HTMLElement[]) {
  for (const el of els) {
    el.setAttribute("data-cms-live", "");
    setTimeout(() => el.removeAttribute("data-cms-live"), 1500);
  }
}

/**
 * Reports this editor's unsaved fields to `presence` (`cms:dirty`, and
 * `cms:saved`); `settled` runs after each `cms:dirty`. The removers.
 */
function followDirty(
  listen: Kit["listen"],
  presence: ReturnType<typeof createPresence>,
  model: Model,
  settled: () => void,
): (() => void)[] {
  return [
    listen<CustomEvent<{ field: string; dirty: boolean }>>(
      document,
      "cms:dirty",
      ({ detail }) => {
        presence.dirty(detail.field, detail.dirty);
        settled();
      },
    ),
    listen<CustomEvent<{ field: string }>>(
      document,
      "cms:saved",
      ({ detail: { field } }) => {
        const f = model.get(field);
        presence.dirty(field, !!f && f.value !== f.base);
      },
    ),
  ];
}

/**
 * Starts presence and live changes for the page; returns the cleanup.
 * `regions(id)` gives a field's regions.
 */
export function attachPresence(
  { h, isolate, listen, sheet }: Kit,
  bar: EditBar,
  url: string,
  model: Model,
  regions: (id: string) => HTMLElement[],
): () => void {
  const { host, root } = isolate("cms-presence", BAR_CSS);
  const offSlot = bar.slot(host);
  const marks = sheet(PAGE_CSS);
  const adopted = () => document.adoptedStyleSheets;
  document.adoptedStyleSheets = [...adopted(), marks];
  /** Who saved a field that now waits for the editor's choice. */
  const savedBy = new Map<string, string>();
  const painted = new Set<HTMLElement>();

  const presence = createPresence({ report: reporter(url), changed: paint });

  function paint() {
    root.replaceChildren(...avatars(h, presence.others.map((e) => e.name)));
    unmark(painted);
    for (const f of model.fields) {
      if (!f.conflict) savedBy.delete(f.id);
      const label = peerLabel(savedBy.get(f.id), presence.editing(f.id));
      if (label) mark(regions(f.id), label, painted);
    }
  }

  function saved(d: SavedEventData) {
    const f = model.get(d.field) as
      | Field & Partial<Pick<ListField, "live">>
      | undefined;
    if (!f) return;
    const { value, conflict } = f;
    // A whole-list write: its chunk applies it (`listStored`).
    if (typeof d.value === "string") model.stored(d.field, d.value, d.version);
    else f.live?.(d.value, d.version);
    if (f.conflict && !conflict) savedBy.set(f.id, d.by);
    else if (f.value !== value) flash(regions(f.id));
    paint();
  }

  /** Re-reads the page's values and comments (events were missed). */
  async function reread() {
    document.dispatchEvent(
      new CustomEvent("cms:comments", { detail: { page: location.pathname } }),
    );
    const res = await fetch(location.href);
    if (!res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    for (const d of missed(doc, model)) saved(d);
  }

  const close = openStream(url, {
    hello: (d) => presence.receive("hello", d),
    presence: (d) => presence.receive("presence", d),
    saved,
    reread: () => void reread(),
  });

  const offs = [
    ...followFocus(listen, presence),
    ...followDirty(listen, presence, model, () => {
      // A settled choice ends its "… saved this field".
      if (savedBy.size) paint();
    }),
  ];

  return () => {
    close();
    presence.destroy();
    for (const off of offs) off();
    savedBy.clear();
    presence.receive("presence", { editors: [] });
    offSlot();
    document.adoptedStyleSheets = adopted().filter((s) => s !== marks);
  };
}
