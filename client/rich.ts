/**
 * The rich text editor (lazily loaded chunk): the editor's state (value,
 * selection, undo history, values set from outside) and its listeners. The
 * toolbar (`rich_toolbar.ts`) and uploads (`rich_uploads.ts`) are its
 * view parts; paste and drop are cleaned by the shared sanitizer policy. The link panel and the image tools
 * (alt text dialog, Replace, Remove) are lazy chunks of their own, loaded on
 * first use. Loaded only when a rich marker exists or the host uses
 * `mountRichText` / `RichText`. Its types, shared with those parts and
 * panels, are in `rich_types.ts`.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import type {
  ImageTools,
  RichCore,
  RichTextController,
  RichTextOptions,
} from "./rich_types.ts";
import { createHistory } from "./undo.ts";
import { t } from "./labels.ts";
import { THEME } from "./theme.ts";
import { createToolbar } from "./rich_toolbar.ts";
import { receive, upload } from "./rich_uploads.ts";
import { blockKey, toggleCode } from "./rich_blocks.ts";

type Cleaner = typeof import("./clean.ts");
let cleaner: Cleaner | undefined;
/** Loads the shared sanitizer policy (its rebuild, a lazy chunk). */
export const loadSanitizer = async (): Promise<void> => {
  cleaner ??= await import("./clean.ts");
};

// The host is out of the page's flow (no layout shift); the toolbar floats
// fixed above its region, shown for the focused region only.
const CSS =
  `:host{display:block!important;position:absolute!important;z-index:2147482000!important}
.w{position:fixed;display:flex;flex-wrap:wrap;align-items:center;gap:4px;width:max-content;max-width:calc(100vw - 16px);box-sizing:border-box;padding:4px}
.w[hidden]{display:none}
[role=toolbar]{display:flex;flex-wrap:wrap;align-items:center;gap:2px}
[role=toolbar] button{padding:4px 7px;background:transparent;border-color:transparent}
[role=toolbar] button:hover{background:var(--bg2)}
[role=toolbar] [aria-pressed=true]{background:var(--bg2);border-color:var(--a)}
.sl,.mn{position:absolute;top:calc(100% + 4px);left:0;z-index:1}
.sl{width:min(24em,calc(100vw - 16px))}
dialog.k{width:28em}
dialog img{display:block;max-width:12em;max-height:8em;margin:0 0 var(--sp)}
[data-tip],.bw{position:relative}
[data-tip]:hover::after,[data-tip]:focus-visible::after{content:attr(data-tip);position:absolute;top:calc(100% + 6px);left:0;z-index:3;padding:3px 8px;border-radius:4px;background:var(--fg);color:var(--bg);font-size:12px;white-space:nowrap;pointer-events:none}
.bt{min-width:8.5em;justify-content:space-between}
.mn{z-index:2;display:flex;flex-direction:column;min-width:15em;padding:4px}
.mn button{justify-content:space-between;gap:16px}
.mn [aria-checked=true]{background:var(--bg2);font-weight:600}
kbd{font:12px ui-monospace,monospace;color:var(--mu)}
.ks{display:grid;grid-template-columns:1fr auto;gap:4px 16px;margin:0 0 var(--sp)}
.ks dd{margin:0}`;
// The file input, the idle progress bar and an idle panel carry `hidden`: no
// rule here sets their `display`, so the UA's `[hidden]{display:none}` holds.

/**
 * The region's value: trimmed `innerHTML`. Chromium and WebKit nest a new
 * list in its <p>, which HTML parsing (so the stored value) splits into
 * empty paragraphs: the value leaves that <p> out, and WebKit's placeholder
 * <br> at the end of an item. Bold and italic are `<strong>` and `<em>`
 * whatever the engine made (Ctrl+B gives `<b>` in some), and the
 * `&nbsp;` engines put in for a space typed at a line's end or next to
 * another is a plain space.
 */
const valueOf = (el: HTMLElement): string =>
  el.innerHTML.trim().replace(
    /<p>(<[ou]l>)|(<\/[ou]l>)<\/p>|<br>(?=<\/li>)|<(\/?)([bi])>|&nbsp;/g,
    (m, open = "", close = "", slash, tag) =>
      tag
        ? `<${slash}${tag === "b" ? "strong" : "em"}>`
        : m === "&nbsp;"
        ? " "
        : open + close,
  );

/** Makes `el` a rich text editor with a toolbar inserted before it. */
export function attachRich(
  kit: Kit,
  el: HTMLElement,
  options: RichTextOptions = {},
): RichTextController {
  const label = options.label ?? t("richText");
  const restoreEditable = kit.editable(el, "true");
  if (!el.hasAttribute("aria-label")) el.setAttribute("aria-label", label);
  document.execCommand("defaultParagraphSeparator", false, "p");
  const listeners = new Set<(value: string) => void>();
  if (options.onChange) listeners.add(options.onChange);
  const { host, root } = kit.isolate("cms-rich-toolbar", THEME, CSS);
  const ed = createCore(kit, el, root, options, listeners);
  const off = createToolbar(ed, label);
  el.before(host);
  const value = setter(ed);
  off.push(...editorListeners(ed));
  if (options.value !== undefined) value.set(options.value);
  return {
    element: el,
    get value() {
      return value.get();
    },
    set value(v: string) {
      value.set(v);
    },
    onChange(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    destroy() {
      for (const fn of off) fn();
      listeners.clear();
      host.remove();
      restoreEditable();
    },
  };
}

/** The editor's state; the toolbar fills in its view parts. */
function createCore(
  kit: Kit,
  el: HTMLElement,
  root: ShadowRoot,
  options: RichTextOptions,
  listeners: Set<(value: string) => void>,
): RichCore {
  const history = createHistory(el);
  let saved: Range | undefined;
  const ed = {
    kit,
    el,
    root,
    media: options.media ?? "/api/cms/media",
    library: options.library ?? "",
    options,
    history,
    base: options.mediaBase ?? "",
    last: valueOf(el),
    uploads: 0,
    range: () => saved,
    remember() {
      const sel = getSelection();
      if (sel?.rangeCount && el.contains(sel.anchorNode)) {
        saved = sel.getRangeAt(0).cloneRange();
      }
    },
    restore() {
      el.focus();
      const sel = getSelection();
      if (saved && sel && el.contains(saved.startContainer)) {
        sel.removeAllRanges();
        sel.addRange(saved);
      }
    },
    notify() {
      const v = valueOf(el);
      if (v === ed.last) return;
      ed.last = v;
      for (const cb of listeners) cb(v);
      // How many images in rich regions have no `alt` attribute at all.
      const missing = document.querySelectorAll(
        "[contenteditable] img:not([alt])",
      ).length;
      document.dispatchEvent(
        new CustomEvent("cms:alt", { detail: { missing } }),
      );
    },
    change(fn: () => void) {
      history.mark();
      fn();
      history.record();
      ed.notify();
    },
    undo(delta: -1 | 1) {
      if (history.go(delta)) {
        ed.remember();
        ed.notify();
      }
    },
    async clean(html: string) {
      await loadSanitizer();
      return cleaner!.sanitizerFor(ed.base)(html);
    },
    exec: (name: string, arg?: string) =>
      void document.execCommand(name, false, arg),
    link: () => void import("./link.ts").then((m) => m.openLink(ed)),
    tools: (): Promise<ImageTools> => import("./image_tools.ts"),
    upload: (file: File, alt: string) => upload(ed, file, alt),
  } as RichCore;
  return ed;
}

/**
 * A value set from outside (a restored draft, Esc, a restore) is cleaned
 * first; until the sanitizer is loaded the value reads as the one set.
 * Sets in a row: the last one wins. Once the sanitizer is loaded (always
 * for `mountRichText`), a set is synchronous.
 */
function setter(ed: RichCore) {
  const { el, history } = ed;
  let pending: string | undefined;
  let sets = 0;
  /** Shows `safe`; `told` is the value the setter holds (default: `safe`
   * as shown). When what was kept differs from it, that is reported. */
  const put = (safe: string, told?: string) => {
    pending = undefined;
    el.innerHTML = safe;
    history.record();
    ed.last = told ?? valueOf(el);
    ed.notify();
  };
  return {
    get: () => pending ?? valueOf(el),
    set(v: string) {
      const n = ++sets;
      if (cleaner) return put(cleaner.sanitizerFor(ed.base)(v));
      pending = v;
      // The session holds the value as set: it hears what was kept.
      void ed.clean(v).then((safe) => n === sets && put(safe, v));
    },
  };
}

/** The region's listeners: input, IME, keys, clicks, paste and drop. */
function editorListeners(ed: RichCore): (() => void)[] {
  const { el, history, kit: { listen } } = ed;
  let composing = false;
  return [
    listen<InputEvent>(el, "beforeinput", (e) => {
      const step = { historyUndo: -1, historyRedo: 1 }[e.inputType];
      if (step) {
        e.preventDefault();
        ed.undo(step as -1 | 1);
      } else if (!composing) history.mark();
    }),
    // Nothing is reported in the middle of an IME composition: its end is
    // one step.
    listen<InputEvent>(el, "input", (e) => {
      if (composing || e.isComposing) return;
      history.record(e.inputType);
      ed.notify();
    }),
    listen(el, "compositionstart", () => {
      history.mark();
      composing = true;
    }),
    listen(el, "compositionend", () => {
      composing = false;
      history.record();
      ed.notify();
    }),
    listen<KeyboardEvent>(el, "keydown", (e) => onKey(ed, e)),
    listen<MouseEvent>(el, "click", (e) => onClick(ed, e)),
    listen(document, "selectionchange", () => {
      ed.remember();
      if (document.activeElement === el) ed.refresh();
    }),
    // Pasted or dropped images are uploaded, HTML is cleaned; plain text
    // takes the browser's default path.
    listen<ClipboardEvent>(el, "paste", (e) => receive(ed, e, e.clipboardData)),
    listen<DragEvent>(el, "drop", (e) => receive(ed, e, e.dataTransfer)),
    listen<DragEvent>(el, "dragover", (e) => {
      if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
    }),
  ];
}

/** Undo, redo, the link panel, bold, italic, inline code, the shortcuts
 * list and the block types by keyboard. */
function onKey(ed: RichCore, e: KeyboardEvent): void {
  if (e.isComposing) return;
  // The key pressed with Ctrl (or Cmd on Apple keyboards), without Alt.
  const key = (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase();
  if (key === "y" || (key === "z" && e.shiftKey)) ed.undo(1);
  else if (key === "z") ed.undo(-1);
  else if (key === "k") ed.link();
  // Bold and italic the same way in every engine (Firefox has no keys).
  else if (key === "b" || key === "i") {
    ed.exec(key === "b" ? "bold" : "italic");
    ed.refresh();
  } else if (key === "e" && !e.shiftKey) toggleCode(ed);
  else if (key === "/") ed.shortcuts();
  else if (!blockKey(ed, e)) return;
  e.preventDefault();
}

/** A click on an image opens its tools; on a link, the link panel. */
function onClick(ed: RichCore, e: MouseEvent): void {
  const { el } = ed;
  const target = e.target as Element;
  const img = target.closest?.("img");
  if (img && el.contains(img)) {
    const range = document.createRange();
    range.selectNode(img);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    ed.remember();
    void ed.tools().then((m) => m.openImageTools(ed, img));
  } else if (el.contains(target.closest?.("a[href]") ?? null)) {
    ed.remember();
    ed.link();
  }
}
