/**
 * Review in place, the view (a lazy chunk, loaded after the editor is ready
 * when the page config names a `comments` endpoint, or at once on a review
 * link's page, `reviewer: true`): highlights on the quoted text of each open
 * thread (the CSS Custom Highlight API: nothing is ever added to a region's
 * content, so nothing of it can be saved), a "Comment"
 * button beside a selection in a region (and Ctrl+Alt+M), the count and the
 * latest verdict in the edit bar, and the panel: threads in page order, each
 * jumping to its text, detached ones with their quote; replies, resolve and
 * reopen, edit and delete of one's own; a review link for editors; a name,
 * Approve and "Ask for changes" for reviewers. Live: a `cms:comments` event
 * (the event stream's `comments`) re-reads; without a stream it re-reads
 * every 20 s while the page is visible. The state is `review_model.ts`.
 *
 * @module
 */

import type { Approval, TextAnchor } from "../core/protocol/review.ts";
import { anchorAt, type TextRange } from "../core/review/anchor.ts";
import type { EditBar } from "./bar_types.ts";
import type { CmsConfig } from "./config.ts";
import type { Kit } from "./dom.ts";
import { reasonOf, refuse } from "./refusal.ts";
import { L, ready } from "./review_labels.ts";
import { threads, verdict } from "./review_model.ts";
import type { View } from "./review_types.ts";
import { dateTime } from "./labels.ts";
import { THEME } from "./theme.ts";

// The Comment button; the panel's rules come with its chunk.
const STYLE = `.F{position:absolute;z-index:2147483001}`;
const PAGE =
  `::highlight(cms-c){background:#ffd54a66}::highlight(cms-on){background:#ffb300aa}[data-cms-noted]{text-decoration:underline wavy #e0a800}`;
const PATH = location.pathname;
// The labels in the UI's language first (German: its own small chunk).
await ready;

/** The range of `at` in the text of `el` (its text nodes, in order). */
function rangeIn(el: Node, at: TextRange): Range {
  const r = document.createRange();
  const walk = document.createTreeWalker(el, 4);
  let pos = 0, started = false;
  r.selectNodeContents(el);
  for (let n; (n = walk.nextNode() as Text | null);) {
    const end = pos + n.length;
    if (!started && at.start < end) {
      (r.setStart(n, at.start - pos), started = true);
    }
    if (at.end <= end) return r.setEnd(n, at.end - pos), r;
    pos = end;
  }
  return r;
}

/** The anchor of the selection when it lies in one region with text. */
function selected(): TextAnchor | undefined {
  const s = getSelection();
  if (!s?.rangeCount || s.isCollapsed) return;
  const r = s.getRangeAt(0), n = r.commonAncestorContainer;
  const el = (n.nodeType === 1 ? n as Element : n.parentElement)?.closest<
    HTMLElement
  >("[data-cms-field]");
  if (!el || !r.toString().trim()) return;
  const pre = document.createRange();
  pre.selectNodeContents(el);
  pre.setEnd(r.startContainer, r.startOffset);
  const start = pre.toString().length;
  return anchorAt(
    el.textContent!,
    start,
    start + r.toString().length,
    el.dataset.cmsField!,
  );
}

/** Sends a request; on a refusal shows (and for editors reports) why. */
async function call(
  v: View,
  method: string,
  url: string,
  body?: unknown,
): Promise<Response | undefined> {
  const res = await fetch(url, {
    method,
    headers: v.headers,
    body: body ? JSON.stringify(body) : null,
  }).catch(() => null);
  if (res?.ok) return v.error = "", void load(v), res;
  const reason = await reasonOf(res);
  v.error = L("failed", { reason });
  if (!v.me.kind.startsWith("r")) {
    refuse({
      action: "comment",
      status: res?.status ?? 0,
      reason,
      message: v.error,
    });
  }
  render(v);
}

/** Re-reads the page's comments and approvals. */
async function load(v: View): Promise<void> {
  const res = await fetch(
    `${v.cfg.comments}?page=${encodeURIComponent(PATH)}`,
    { headers: v.headers },
  ).catch(() => null);
  if (res?.ok) v.data = await res.json(), update(v);
}

/** Finds the threads again in the regions' text; paints everything. */
function update(v: View): void {
  const texts = new Map<string, string>(), versions = new Map();
  v.els.clear();
  for (const el of document.querySelectorAll<HTMLElement>("[data-cms-field]")) {
    const id = el.dataset.cmsField!;
    if (v.els.has(id)) continue;
    v.els.set(id, el);
    texts.set(id, el.textContent!);
    versions.set(id, el.dataset.cmsVersion);
  }
  v.list = threads(v.data.comments, texts);
  paint(v);
  const n = v.list.filter((t) => !t.head.resolved).length;
  const last = verdict(v.data.approvals, versions);
  const label = L("count", { n }) +
    (last ? " · " + said(last.approval, last.void) : "");
  // Re-added only when it changes (typing re-places the highlights).
  if (label !== v.label) {
    v.offBar?.();
    v.offBar = v.bar.add({ label, run: () => toggle(v, !v.open) });
    v.label = label;
  }
  render(v);
}

/** "Approved by Ada, 3 Jan 2026, 10:00" (and "edited since" when void). */
const said = (a: Approval, gone?: boolean): string =>
  L(a.verdict, { name: a.by.name, when: dateTime(Date.parse(a.at)) }) +
  (a.note ? `: ${a.note}` : "") + (gone ? L("void") : "");

/**
 * The highlights of the open threads (the active one stronger). Without
 * the Highlight API, regions with open threads get a wavy underline (an
 * attribute on the region itself: never part of its value).
 */
function paint(v: View): void {
  const all: Range[] = [], on: Range[] = [], api = globalThis.Highlight;
  v.ranges.clear();
  document.querySelectorAll("[data-cms-noted]").forEach((el) =>
    el.removeAttribute("data-cms-noted")
  );
  for (const t of v.list) {
    const el = v.els.get(t.head.anchor.field);
    if (!t.at || !el || t.head.resolved) continue;
    const r = rangeIn(el, t.at);
    v.ranges.set(t.id, r);
    (t.id === v.active ? on : all).push(r);
    if (!api) el.setAttribute("data-cms-noted", "");
  }
  if (api) {
    CSS.highlights.set("cms-c", new Highlight(...all));
    CSS.highlights.set("cms-on", new Highlight(...on));
  }
}

/** Opens (its chunk loads at the first open) or closes the panel. */
async function toggle(v: View, open: boolean): Promise<void> {
  v.P ??= await import("./review_panel.ts");
  v.open = open;
  v.panel.hidden = !open;
  render(v);
  if (open) v.panel.querySelector<HTMLElement>("h2")!.focus();
}

/** Jumps to thread `id`'s text, and marks it in the panel. */
function jump(v: View, id: string): void {
  v.active = id;
  paint(v);
  render(v);
  // The quote a quarter down the window: above a phone's bottom sheet.
  const at = v.ranges.get(id)?.getBoundingClientRect();
  if (at) scrollBy(0, at.top - innerHeight / 4);
}

/** Starts a new thread on `anchor` (the panel's top form). */
function compose(v: View, anchor?: TextAnchor): void {
  if (!anchor) return;
  v.form = anchor;
  v.float.hidden = true;
  toggle(v, true);
  v.root.querySelector<HTMLElement>("[data-k=new]")?.focus();
}

/** Renders the panel (keeping focus and typed text). */
function render(v: View): void {
  // Not during an IME composition in the panel (the next render catches up).
  if (!v.open || !v.P || v.composing) return;
  const was = v.root.activeElement as HTMLTextAreaElement | null;
  const k = was?.dataset.k, at = was?.selectionEnd ?? 0;
  v.panel.replaceChildren(
    ...v.P.renderPanel(v, {
      call,
      jump,
      toggle,
      render,
      said,
      stream,
      L,
    }),
  );
  // The box typed in, its caret kept, or when it went (sent), the heading.
  if (k) {
    const box = v.root.querySelector<HTMLTextAreaElement>(`[data-k="${k}"]`);
    box?.setSelectionRange(at, at);
    (box ?? v.panel.querySelector("h2"))?.focus();
  }
}

/** Where the Comment button goes: below the selection's end. */
function place(v: View): void {
  const s = v.sel = v.me.name ? selected() : undefined;
  v.float.hidden = !s;
  if (!s) return;
  const b = getSelection()!.getRangeAt(0).getBoundingClientRect();
  v.float.style.cssText = `left:${b.right + scrollX - 40}px;top:${
    b.bottom + scrollY + 6
  }px`;
}

/**
 * A named reviewer's own event stream (opened once named, so that others
 * see the name): a `comments` event re-reads. Editors get theirs through
 * the session.
 */
function stream(v: View): void {
  const { events, reviewer } = v.cfg;
  if (!reviewer || !events || !v.me.name || v.es) return;
  // An EventSource sends no headers: the token goes in the query too.
  const token = encodeURIComponent(v.headers["X-CMS-Review"] ?? "");
  v.es = new EventSource(
    `${events}?page=${encodeURIComponent(PATH)}&review=${token}`,
  );
  v.es.addEventListener("comments", () => load(v));
}

/** The page's listeners: selection, keys, clicks on highlights, live. */
function follow(v: View): (() => void)[] {
  const { listen } = v.kit;
  let frame = 0;
  const soon = (
    fn: () => void,
  ) => (cancelAnimationFrame(frame), frame = requestAnimationFrame(fn));
  // Without a stream of its own or the session's, re-read now and then.
  const timer = setInterval(
    () => v.es || v.cfg.events && !v.cfg.reviewer || document.hidden || load(v),
    20_000,
  );
  stream(v);
  return [
    () => (clearInterval(timer), v.es?.close()),
    listen(document, "selectionchange", () => soon(() => place(v))),
    listen<KeyboardEvent>(document, "keydown", (k) => {
      if ((k.ctrlKey || k.metaKey) && k.altKey && k.code === "KeyM") {
        k.preventDefault();
        compose(v, selected());
      } else if (
        k.key === "Escape" && v.open && k.composedPath().includes(v.panel)
      ) {
        toggle(v, false);
      }
    }, true),
    // A click in a highlight marks its thread (a reviewer's opens the
    // panel; an editor's would take the focus from the text they edit).
    listen(document, "click", () => {
      const s = getSelection();
      if (!s?.isCollapsed || !s.anchorNode || !v.open && !v.cfg.reviewer) {
        return;
      }
      for (const [id, r] of v.ranges) {
        if (r.isPointInRange(s.anchorNode, s.anchorOffset)) {
          return (v.open || toggle(v, true), jump(v, id));
        }
      }
    }),
    // Edits in a region re-place the highlights (not typing in the panel:
    // a render then would end an IME composition).
    listen(document, "input", (e) => {
      if ((e.target as Element).closest?.("[data-cms-field]")) {
        soon(() => update(v));
      }
    }),
    listen(document, "cms:saved", () => soon(() => update(v))),
    listen(v.root, "compositionstart", () => v.composing = true),
    listen(v.root, "compositionend", () => v.composing = false),
    listen<CustomEvent<{ page: string }>>(document, "cms:comments", (e) => {
      if (e.detail?.page === PATH) load(v);
    }),
  ];
}

/**
 * Starts review in place on the page: an editor's (`cfg.comments`, with a
 * review link when `cfg.review` is set), or a reviewer's (`cfg.reviewer`,
 * the token taken from the page URL's `review` parameter; asks a name once
 * when `cfg.editor` is empty, and adds Approve and "Ask for changes" to the
 * bar). Returns the cleanup.
 */
export function attachReview(
  kit: Kit,
  bar: EditBar,
  cfg: CmsConfig,
): () => void {
  const { host, root } = kit.isolate("cms-review", THEME, STYLE);
  const token = new URLSearchParams(location.search).get("review");
  const v: View = {
    kit,
    bar,
    cfg,
    me: { name: cfg.editor, kind: cfg.reviewer ? "reviewer" : "editor" },
    headers: {
      "Content-Type": "application/json",
      ...cfg.reviewer && token ? { "X-CMS-Review": token } : {},
    },
    data: { comments: [], approvals: [] },
    list: [],
    els: new Map(),
    ranges: new Map(),
    root,
    panel: kit.h("aside", {
      class: "k P",
      role: "complementary",
      "aria-label": L("title"),
      hidden: "",
    }),
    float: kit.h("button", {
      class: "p F",
      hidden: "",
      "aria-keyshortcuts": "Control+Alt+M",
    }, L("comment")),
    drafts: new Map(),
  };
  v.float.onmousedown = (e) => e.preventDefault();
  v.float.onclick = () => compose(v, v.sel);
  root.append(v.panel, v.float);
  document.body.append(host);
  const marks = kit.sheet(PAGE);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, marks];
  const offs = follow(v);
  const verdicts = cfg.reviewer
    ? (["approved", "changes"] as const).map((form) =>
      bar.add({
        label: L(form === "approved" ? "approve" : "ask"),
        run: () => (v.form = form, toggle(v, true)),
      })
    )
    : [];
  if (cfg.reviewer && !cfg.editor) toggle(v, true);
  void load(v);
  return () => {
    offs.forEach((off) => off());
    verdicts.forEach((off) => off());
    v.offBar?.();
    host.remove();
    v.list = [];
    paint(v);
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) =>
      s !== marks
    );
  };
}
