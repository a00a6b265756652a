/**
 * The rich text editor (lazily loaded chunk): a formatting toolbar, paste and
 * drop cleaned by the shared sanitizer policy, and image uploads with a
 * progress bar. Loaded only when a rich marker exists or the host uses
 * `mountRichText` / `RichText`.
 *
 * @module
 */

import DOMPurify from "dompurify";
import type { Kit } from "./dom.ts";
import type { IconName } from "./icons.ts";
import {
  createSanitizer,
  isAllowedUrl,
  type Sanitize,
} from "../core/sanitizer.ts";
import { type UploadFailure, uploadImage } from "./upload.ts";

/** Options of `mountRichText` and `RichText`. */
export interface RichTextOptions {
  /** Initial HTML (sanitized). Default: the element's current content. */
  value?: string;
  /** Media endpoint for images. Default `/api/cms/media`. */
  media?: string;
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
  /** Current HTML (trimmed `innerHTML`, without the `<p>` Chromium wraps
   * around a new list). Setting it sanitizes it first. */
  value: string;
  /** Subscribes to user edits; returns an unsubscribe function. */
  onChange(cb: (value: string) => void): () => void;
  /** Removes the toolbar and listeners; the element keeps its content. */
  destroy(): void;
}

let sanitizer: Sanitize | undefined;

/** Cleans HTML with the shared sanitizer policy. */
function clean(html: string): string {
  sanitizer ??= createSanitizer(DOMPurify(window));
  return sanitizer(html);
}

const CSS =
  `:host{all:initial!important;display:block!important;position:sticky!important;top:0!important;z-index:2147482000!important}
div{display:flex;flex-wrap:wrap;align-items:center;gap:2px;margin-bottom:6px;padding:4px;background:#fff;border:1px solid #ccc;border-radius:8px;font:13px system-ui,sans-serif;color:#555}
button{all:unset;display:flex;padding:6px;border-radius:6px;color:#222;cursor:pointer}
button:hover,button:focus-visible,[aria-pressed=true]{background:#def}`;
// The file input and the idle progress bar carry `hidden`: no rule here sets
// their `display`, so the UA's `[hidden]{display:none}` applies.

const images = (files: FileList | undefined | null): File[] =>
  [...files ?? []].filter((f) => f.type.startsWith("image/"));

/** Alt text from a file name: "summer_beach-2.jpg" → "summer beach 2". */
const altFrom = (name: string): string =>
  name.replace(/\.[^.]*$/, "").replace(/[_-]+/g, " ").trim();

/** Makes `el` a rich text editor with a toolbar inserted before it. */
export function attachRich(
  { h, isolate, listen, editable, Icon }: Kit,
  el: HTMLElement,
  options: RichTextOptions = {},
): RichTextController {
  const { media = "/api/cms/media", label = "Rich text" } = options;
  const listeners = new Set<(value: string) => void>();
  if (options.onChange) listeners.add(options.onChange);
  if (options.value !== undefined) el.innerHTML = clean(options.value);
  const restoreEditable = editable(el, "true");
  if (!el.hasAttribute("aria-label")) el.setAttribute("aria-label", label);
  const exec = (name: string, arg?: string) =>
    document.execCommand(name, false, arg);
  exec("defaultParagraphSeparator", "p");

  // Chromium nests a new list in its <p>, which HTML parsing (so the stored
  // value) splits into empty paragraphs: the value leaves that <p> out.
  const value = () =>
    el.innerHTML.trim().replace(/<p>(<[ou]l>)|(<\/[ou]l>)<\/p>/g, "$1$2");
  const notify = () => {
    const v = value();
    for (const cb of listeners) cb(v);
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
  const insertHtml = (html: string) => exec("insertHTML", clean(html));

  const link = () => {
    const collapsed = saved?.collapsed ?? true;
    const href = prompt("Link address", "https://")?.trim();
    if (!href || href === "https://") return;
    if (!isAllowedUrl(href, ["http", "https", "mailto"])) return;
    restore();
    if (!collapsed) exec("createLink", href);
    else insertHtml(h("a", { href }, href).outerHTML);
  };

  const heading = () => {
    const h2 = document.queryCommandValue("formatBlock") === "h2";
    exec("formatBlock", h2 ? "p" : "h2");
  };

  // Toolbar: [icon, accessible name, action or toggle command].
  const { host, root } = isolate("cms-rich-toolbar", CSS);
  const file = h("input", {
    type: "file",
    accept: "image/*",
    multiple: "",
    hidden: "",
  });
  const progress = h("progress", {
    "aria-label": "Upload progress",
    hidden: "",
  });
  const msg = h("span", { role: "status", "aria-live": "polite" });
  const tools: [IconName, string, string | (() => void)][] = [
    ["bold", "Bold", "bold"],
    ["italic", "Italic", "italic"],
    ["link", "Link", link],
    ["heading", "Heading", heading],
    ["list", "Bulleted list", "insertUnorderedList"],
    ["ordered", "Numbered list", "insertOrderedList"],
    ["image", "Insert image", () => file.click()],
  ];
  const toolbar = h("div", {
    role: "group",
    "aria-label": `Formatting: ${label}`,
  });
  const toggles: [HTMLButtonElement, string][] = [];
  for (const [icon, name, run] of tools) {
    // In a shadow root a button has no form: no `type` needed.
    const b = h("button", { "aria-label": name }, Icon(icon));
    b.onmousedown = (e) => e.preventDefault();
    b.onclick = () => {
      restore();
      if (typeof run === "string") exec(run);
      else run();
      refresh();
    };
    if (typeof run === "string") {
      b.setAttribute("aria-pressed", "false");
      toggles.push([b, run]);
    }
    toolbar.append(b);
  }
  toolbar.append(file, progress, msg);
  root.append(toolbar);
  el.before(host);

  function refresh() {
    for (const [b, state] of toggles) {
      b.setAttribute("aria-pressed", String(document.queryCommandState(state)));
    }
  }

  // Uploads.
  let active = 0;
  const say = (text: string) => msg.textContent = text;
  async function upload(image: File) {
    const at = saved?.cloneRange();
    active++;
    say(`Uploading ${image.name}…`);
    progress.value = 0;
    progress.hidden = false;
    try {
      const up = await uploadImage(media, image, (p) => progress.value = p);
      const img = h("img", {
        src: up.url,
        width: up.width + "",
        height: up.height + "",
        alt: altFrom(image.name),
      });
      if (at && el.contains(at.startContainer)) {
        at.collapse(false);
        at.insertNode(img);
      } else el.append(img);
      say("");
      notify();
    } catch (err) {
      const { status, reason } = err as UploadFailure;
      say(`Upload failed${status ? ` (${status})` : ""}: ${reason}`);
      options.onError?.(status, reason);
    } finally {
      if (--active === 0) progress.hidden = true;
    }
  }
  const uploadAll = (files: File[]) => files.forEach((f) => void upload(f));
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
    if (files.length) uploadAll(files);
    else insertHtml(html!);
  };

  const off = [
    listen(file, "change", () => {
      uploadAll(images(file.files));
      file.value = "";
    }),
    listen(el, "input", notify),
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
      return value();
    },
    set value(v: string) {
      el.innerHTML = clean(v);
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
