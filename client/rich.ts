/**
 * The rich text editor (lazily loaded chunk): an ARIA formatting toolbar,
 * undo history, paste and drop cleaned by the shared sanitizer policy, and
 * image uploads with a progress bar. The link panel and the image tools
 * (alt text dialog, Replace, Remove) are lazy chunks of their own, loaded on
 * first use. Loaded only when a rich marker exists or the host uses
 * `mountRichText` / `RichText`.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import type { IconName } from "./icons.ts";
import { isAllowedUrl, LINK_SCHEMES } from "../core/url.ts";
import { createHistory } from "./undo.ts";
import { imageAttrs, type UploadFailure, uploadImage } from "./upload.ts";
import { t } from "./labels.ts";

/** Options of `mountRichText` and `RichText`. */
export interface RichTextOptions {
  /** Initial HTML (sanitized). Default: the element's current content. */
  value?: string;
  /** Media endpoint for images. Default `/api/cms/media`. */
  media?: string;
  /** Public base URL of uploaded media (e.g. `/media/`): pasted or set
   * HTML keeps `srcset` only under it. Default: learned from the first
   * upload's answer. */
  mediaBase?: string;
  /** Accessible name of the editor and its toolbar. Default "Rich text". */
  label?: string;
  /** Called with the new value after every edit by the user. */
  onChange?: (value: string) => void;
  /** Called when an image upload fails (status 0 = network). */
  onError?: (status: number, reason: string) => void;
}

/** Controls one mounted rich text editor. */
export interface RichTextController {
  /** The editable element. */
  readonly element: HTMLElement;
  /** Current HTML (trimmed `innerHTML`, without the `<p>` Chromium and
   * WebKit wrap around a new list). Setting it sanitizes it first, and is one undo
   * step. */
  value: string;
  /** Subscribes to user edits; returns an unsubscribe function. */
  onChange(cb: (value: string) => void): () => void;
  /** Removes the toolbar and listeners; the element keeps its content. */
  destroy(): void;
}

/**
 * What the lazy panels (link, image tools) get from the editor they belong
 * to. Internal: only this package's chunks use it.
 */
export interface RichEditor {
  kit: Kit;
  /** The region. */
  el: HTMLElement;
  /** The toolbar's shadow root (the alt text dialog lives there). */
  root: ShadowRoot;
  /** The media endpoint (its `library` sibling lists the uploads). */
  media: string;
  /** The region's last selection, if any. */
  range(): Range | undefined;
  /** Focuses the region and puts its last selection back. */
  restore(): void;
  /** Shows `panel` under the toolbar buttons (one at a time). */
  show(panel: HTMLElement): void;
  /** Hides the panel and gives the region its focus back. */
  close(): void;
  /** Runs a scripted change as one undo step, then reports the value. */
  change(fn: () => void): void;
  /** Whether a link address is admitted (the sanitizer's rule). */
  linkOk(href: string): boolean;
  /** Opens the file picker; resolves with the chosen image, if any. */
  pick(): Promise<File | undefined>;
  /** Uploads an image; resolves with the `<img>` attributes, or undefined
   * after reporting the failure. */
  upload(file: File, alt: string): Promise<Record<string, string> | void>;
}

type Cleaner = typeof import("./clean.ts");
let cleaner: Cleaner | undefined;
/** Loads the shared sanitizer policy (its rebuild, a lazy chunk). */
export const loadSanitizer = async (): Promise<void> => {
  cleaner ??= await import("./clean.ts");
};

const CSS =
  `:host{all:initial!important;display:block!important;position:sticky!important;top:0!important;z-index:2147482000!important}
.w{margin-bottom:6px;padding:4px;background:#fff;border:1px solid #ccc;border-radius:8px;font:13px system-ui,sans-serif;color:#222}
.w,[role=toolbar],form{display:flex;flex-wrap:wrap;align-items:center;gap:4px}
[role=toolbar]{gap:2px}
button{all:unset;display:flex;padding:6px;border-radius:6px;cursor:pointer}
button:hover,button:focus-visible,[aria-pressed=true]{background:#def}
button:focus-visible,input:focus-visible{outline:2px solid #16e}
form,dialog>div{flex-basis:100%;padding:4px}
form button,dialog button{border:1px solid #888}
input[type=text]{font:inherit;padding:4px;border:1px solid #888;border-radius:4px}
.e{color:#b00;flex-basis:100%}
.e:empty{display:none}
dialog{font:14px system-ui,sans-serif;border-radius:8px}
dialog img{max-width:12em;max-height:8em;display:block}
@media(pointer:coarse){button{box-sizing:border-box;min-width:44px;min-height:44px;align-items:center;justify-content:center}}`;
// The file input, the idle progress bar and an idle panel carry `hidden`: no
// rule here sets their `display`, so the UA's `[hidden]{display:none}` holds.

const images = (files: FileList | undefined | null): File[] =>
  [...files ?? []].filter((f) => f.type.startsWith("image/"));

/** Whether a key event has Ctrl (or Cmd on Apple keyboards) and `key`. */
const mod = (e: KeyboardEvent, key: string) =>
  (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === key;

/** Images inside rich regions with no `alt` attribute at all. */
export function missingAlt(): number {
  return document.querySelectorAll("[contenteditable] img:not([alt])").length;
}

/** Makes `el` a rich text editor with a toolbar inserted before it. */
export function attachRich(
  kit: Kit,
  el: HTMLElement,
  options: RichTextOptions = {},
): RichTextController {
  const { h, isolate, listen, editable, Icon } = kit;
  const { media = "/api/cms/media", label = t("richText") } = options;
  const listeners = new Set<(value: string) => void>();
  if (options.onChange) listeners.add(options.onChange);
  // Where pasted or set HTML may keep `srcset` (see `mediaBase`).
  let base = options.mediaBase ?? "";
  /** Cleans `html` with the policy; the sanitizer loads at the first call. */
  const clean = async (html: string) => {
    await loadSanitizer();
    return cleaner!.sanitizerFor(base)(html);
  };
  const restoreEditable = editable(el, "true");
  if (!el.hasAttribute("aria-label")) el.setAttribute("aria-label", label);
  const exec = (name: string, arg?: string) =>
    document.execCommand(name, false, arg);
  exec("defaultParagraphSeparator", "p");
  const history = createHistory(el);

  // Chromium and WebKit nest a new list in its <p>, which HTML parsing (so
  // the stored value) splits into empty paragraphs: the value leaves that
  // <p> out, and WebKit's placeholder <br> at the end of an item.
  const value = () =>
    el.innerHTML.trim().replace(
      /<p>(<[ou]l>)|(<\/[ou]l>)<\/p>|<br>(?=<\/li>)/g,
      "$1$2",
    );
  let last = value();
  /** Reports the value when it changed, and the page's missing alt texts. */
  const notify = () => {
    const v = value();
    if (v === last) return;
    last = v;
    for (const cb of listeners) cb(v);
    document.dispatchEvent(
      new CustomEvent("cms:alt", { detail: { missing: missingAlt() } }),
    );
  };
  const change = (fn: () => void) => {
    history.mark();
    fn();
    history.record();
    notify();
  };

  let saved: Range | undefined;
  const remember = () => {
    const sel = getSelection();
    if (sel?.rangeCount && el.contains(sel.anchorNode)) {
      saved = sel.getRangeAt(0).cloneRange();
    }
  };
  const restore = () => {
    el.focus();
    const sel = getSelection();
    if (saved && sel && el.contains(saved.startContainer)) {
      sel.removeAllRanges();
      sel.addRange(saved);
    }
  };
  /** Inserts cleaned `html` at the remembered selection (the sanitizer
   * may still be loading: the caret is put back first). */
  const insertHtml = async (html: string) => {
    const safe = await clean(html);
    restore();
    exec("insertHTML", safe);
  };

  const heading = () => exec("formatBlock", isHeading() ? "p" : "h2");
  const isHeading = () => document.queryCommandValue("formatBlock") === "h2";
  const undo = (delta: -1 | 1) => {
    if (history.go(delta)) {
      remember();
      notify();
    }
  };

  // The wrapper: the toolbar, the panel slot, the file input, progress and
  // status. The toolbar is one tab stop (roving tabindex).
  const { host, root } = isolate("cms-rich-toolbar", CSS);
  const file = h("input", {
    type: "file",
    accept: "image/*",
    multiple: "",
    hidden: "",
  });
  const progress = h("progress", {
    "aria-label": t("uploadProgress"),
    hidden: "",
  });
  const msg = h("span", { role: "status" });
  const slot = h("div", { hidden: "" });
  const toolbar = h("div", {
    role: "toolbar",
    "aria-label": t("formatting", { label }),
    "aria-controls": el.id || "",
  });
  if (!el.id) toolbar.removeAttribute("aria-controls");
  root.append(h("div", { class: "w" }, toolbar, slot, file, progress, msg));
  el.before(host);

  // Lazy panels.
  let picked: ((f: File | undefined) => void) | undefined;
  const editor: RichEditor = {
    kit,
    el,
    root,
    media,
    range: () => saved,
    restore,
    show(panel) {
      slot.replaceChildren(panel);
      slot.hidden = false;
    },
    close() {
      slot.hidden = true;
      slot.replaceChildren();
      restore();
    },
    change,
    linkOk: (href) => isAllowedUrl(href, LINK_SCHEMES),
    pick: () =>
      new Promise((resolve) => {
        picked?.(undefined);
        picked = resolve;
        file.multiple = false;
        file.click();
      }),
    upload,
  };
  const link = () => import("./link.ts").then((m) => m.openLink(editor));
  const tools = () => import("./image_tools.ts");

  // Toolbar: [icon, accessible name, action or toggle command, pressed?].
  const items: [IconName, string, string | (() => unknown), string?][] = [
    ["bold", t("bold"), "bold"],
    ["italic", t("italic"), "italic"],
    ["link", t("link"), link, "Control+K Meta+K"],
    ["heading", t("heading"), heading],
    ["list", t("bulleted"), "insertUnorderedList"],
    ["ordered", t("numbered"), "insertOrderedList"],
    ["image", t("image"), () => {
      file.multiple = true;
      file.click();
    }],
    ["undo", t("undo"), () => undo(-1), "Control+Z Meta+Z"],
    [
      "redo",
      t("redo"),
      () => undo(1),
      "Control+Shift+Z Meta+Shift+Z Control+Y",
    ],
  ];
  const toggles: [HTMLButtonElement, () => boolean][] = [];
  const buttons = items.map(([icon, name, run, keys], i) => {
    // In a shadow root a button has no form: no `type` needed.
    const b = h("button", { "aria-label": name, tabindex: i ? "-1" : "0" });
    b.append(Icon(icon));
    if (keys) b.setAttribute("aria-keyshortcuts", keys);
    b.onmousedown = (e) => e.preventDefault();
    b.onclick = () => {
      restore();
      if (typeof run === "string") exec(run);
      else void run();
      refresh();
    };
    const state = typeof run === "string"
      ? () => document.queryCommandState(run)
      : run === heading
      ? isHeading
      : undefined;
    if (state) {
      b.setAttribute("aria-pressed", "false");
      toggles.push([b, state]);
    }
    return b;
  });
  toolbar.append(...buttons);
  /** Moves the toolbar's one tab stop to button `i` and focuses it. */
  const rove = (i: number) => {
    const n = buttons.length;
    buttons.forEach((b, j) => b.tabIndex = j === (i + n) % n ? 0 : -1);
    buttons[(i + n) % n].focus();
  };
  toolbar.onkeydown = (e) => {
    const i = buttons.indexOf(root.activeElement as HTMLButtonElement);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: -1 }[
      e.key
    ];
    if (i < 0 || to === undefined) return;
    e.preventDefault();
    rove(to);
  };

  function refresh() {
    for (const [b, state] of toggles) {
      b.setAttribute("aria-pressed", String(state()));
    }
  }

  // Uploads.
  let active = 0;
  const say = (text: string) => msg.textContent = text;
  async function upload(image: File, alt: string) {
    active++;
    say(t("uploading", { name: image.name }));
    progress.value = 0;
    progress.hidden = false;
    try {
      const up = await uploadImage(media, image, (p) => progress.value = p);
      if (!options.mediaBase && up.url.endsWith(up.key)) {
        base = up.url.slice(0, -up.key.length);
      }
      say("");
      return imageAttrs(up, alt);
    } catch (err) {
      const { status, reason } = err as UploadFailure;
      say(
        t("uploadFailed", {
          reason: status ? `${reason} (${status})` : reason,
        }),
      );
      options.onError?.(status, reason);
    } finally {
      if (--active === 0) progress.hidden = true;
    }
  }
  /** Asks for each image's alt text (one dialog at a time) while it uploads,
   * then inserts it where the caret was. */
  let asking = Promise.resolve();
  const insertImages = (files: File[]) => {
    for (const image of files) {
      const at = saved?.cloneRange();
      const alt = asking.then(() =>
        tools().then((m) => m.askAlt(editor, image))
      );
      asking = alt.then(() => {});
      // The upload starts at once; an image whose dialog was cancelled is
      // not inserted (its upload is already stored: media is shared).
      const attrs = upload(image, "");
      void Promise.all([alt, attrs]).then(([alt, attrs]) => {
        if (alt === null || !attrs) return;
        const img = h("img", { ...attrs, alt });
        change(() => {
          if (at && el.contains(at.startContainer)) {
            at.collapse(false);
            at.insertNode(img);
          } else el.append(img);
        });
      });
    }
  };
  const receive = (
    e: ClipboardEvent | DragEvent,
    data: DataTransfer | null,
  ) => {
    const files = images(data?.files);
    const html = data?.getData("text/html");
    if (!files.length && !html) return;
    e.preventDefault();
    if ("clientX" in e) {
      const range = document.caretRangeFromPoint?.(e.clientX, e.clientY);
      if (range) {
        getSelection()?.collapse(range.startContainer, range.startOffset);
      }
    }
    remember();
    if (files.length) insertImages(files);
    else void insertHtml(html!);
  };

  // A value set from outside (a restored draft, Esc, a restore) is cleaned
  // first; until the sanitizer is loaded the value reads as the one set.
  // Sets in a row: the last one wins.
  // Once the sanitizer is loaded (always for `mountRichText`), a set is
  // synchronous.
  let pending: string | undefined;
  let sets = 0;
  const put = (safe: string) => {
    pending = undefined;
    el.innerHTML = safe;
    history.record();
    last = value();
  };
  const setValue = (v: string) => {
    const n = ++sets;
    if (cleaner) return put(cleaner.sanitizerFor(base)(v));
    pending = v;
    void clean(v).then((safe) => {
      if (n !== sets) return;
      put(safe);
      // The session holds the value as set: tell it what was kept.
      if (last !== v) {
        const kept = last;
        last = v;
        if (kept !== v) notify();
      }
    });
  };
  if (options.value !== undefined) setValue(options.value);

  let composing = false;
  const off = [
    listen(file, "change", () => {
      const chosen = images(file.files);
      file.value = "";
      if (picked) picked(chosen[0]);
      else insertImages(chosen);
      picked = undefined;
    }),
    listen(file, "cancel", () => picked = void picked?.(undefined)),
    listen<InputEvent>(el, "beforeinput", (e) => {
      const step = { historyUndo: -1, historyRedo: 1 }[e.inputType];
      if (step) {
        e.preventDefault();
        undo(step as -1 | 1);
      } else if (!composing) history.mark();
    }),
    // Nothing is reported in the middle of an IME composition: its end is
    // one step.
    listen<InputEvent>(el, "input", (e) => {
      if (composing || e.isComposing) return;
      history.record(e.inputType);
      notify();
    }),
    listen(el, "compositionstart", () => {
      history.mark();
      composing = true;
    }),
    listen(el, "compositionend", () => {
      composing = false;
      history.record();
      notify();
    }),
    listen<KeyboardEvent>(el, "keydown", (e) => {
      if (e.isComposing) return;
      const redo = mod(e, "y") || (mod(e, "z") && e.shiftKey);
      if (redo || mod(e, "z")) undo(redo ? 1 : -1);
      else if (mod(e, "k")) void link();
      else return;
      e.preventDefault();
    }),
    listen<MouseEvent>(el, "click", (e) => {
      const target = e.target as Element;
      const img = target.closest?.("img");
      if (img && el.contains(img)) {
        const range = document.createRange();
        range.selectNode(img);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
        remember();
        void tools().then((m) => m.openImageTools(editor, img));
      } else if (el.contains(target.closest?.("a[href]") ?? null)) {
        remember();
        void link();
      }
    }),
    listen(document, "selectionchange", () => {
      remember();
      if (document.activeElement === el) refresh();
    }),
    // Pasted or dropped images are uploaded, HTML is cleaned; plain text
    // takes the browser's default path.
    listen<ClipboardEvent>(el, "paste", (e) => receive(e, e.clipboardData)),
    listen<DragEvent>(el, "drop", (e) => receive(e, e.dataTransfer)),
    listen<DragEvent>(el, "dragover", (e) => {
      if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
    }),
  ];

  return {
    element: el,
    get value() {
      return pending ?? value();
    },
    set value(v: string) {
      setValue(v);
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
