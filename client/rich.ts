/**
 * The rich text editor (lazily loaded chunk): a formatting toolbar, paste and
 * drop cleaned by the shared sanitizer policy, and image uploads with a
 * progress bar. Loaded only when a rich marker exists or the host uses
 * `mountRichText` / `RichText`.
 *
 * @module
 */

import DOMPurify from "dompurify";
import { h, isolate } from "./dom.ts";
import { Icon, type IconName } from "./icons.ts";
import { insertText } from "./regions.ts";
import { createSanitizer, type Sanitize } from "./sanitizer.ts";
import { UploadError, uploadImage } from "./upload.ts";

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
  /** Current HTML (trimmed `innerHTML`). Setting it sanitizes it first. */
  value: string;
  /** Subscribes to user edits; returns an unsubscribe function. */
  onChange(cb: (value: string) => void): () => void;
  /** Removes the toolbar and listeners; the element keeps its content. */
  destroy(): void;
}

let sanitizer: Sanitize | undefined;

/** Cleans HTML with the shared sanitizer policy. */
export function clean(html: string): string {
  sanitizer ??= createSanitizer(DOMPurify(window));
  return sanitizer(html);
}

const CSS = `
:host{all:initial!important;display:block!important;position:sticky!important;top:0!important;z-index:2147482000!important;margin:0 0 6px!important}
.bar{display:flex;flex-wrap:wrap;align-items:center;gap:2px;padding:4px;background:#fff;border:1px solid #d0d7de;border-radius:8px;box-shadow:0 1px 3px rgba(31,35,40,.08);font:13px/1.3 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328}
button{all:unset;display:inline-flex;align-items:center;justify-content:center;width:28px;height:28px;border-radius:6px;color:#1f2328;cursor:pointer}
button:hover{background:#eaeef2}
button[aria-pressed=true]{background:#ddf4ff;color:#0969da}
button:focus-visible{outline:2px solid #0969da;outline-offset:1px}
.sep{width:1px;height:18px;background:#d0d7de;margin:0 4px}
.msg{margin-left:6px;color:#59636e}
.msg.err{color:#cf222e}
progress{width:120px;height:8px;accent-color:#0969da}
progress[hidden]{display:none}
input{display:none}
`;

type Tool = [IconName, string, () => void, string?];

const ESCAPE: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
};

function textToHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ESCAPE[c]).replace(/\r?\n/g, "<br>");
}

function images(files: FileList | undefined | null): File[] {
  return [...files ?? []].filter((f) => f.type.startsWith("image/"));
}

/** Alt text from a file name: "summer_beach-2.jpg" → "summer beach 2". */
function altFrom(name: string): string {
  return name.replace(/\.[^.]*$/, "").replace(/[_-]+/g, " ").trim();
}

/** Makes `el` a rich text editor with a toolbar inserted before it. */
export function attachRich(
  el: HTMLElement,
  options: RichTextOptions = {},
): RichTextController {
  const media = options.media ?? "/api/cms/media";
  const label = options.label ?? "Rich text";
  const listeners = new Set<(value: string) => void>();
  if (options.onChange) listeners.add(options.onChange);
  const before = el.getAttribute("contenteditable");
  if (options.value !== undefined) el.innerHTML = clean(options.value);
  el.contentEditable = "true";
  if (!el.hasAttribute("aria-label")) el.setAttribute("aria-label", label);
  document.execCommand("defaultParagraphSeparator", false, "p");

  const value = () => el.innerHTML.trim();
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
  const command = (name: string, arg?: string) => () => {
    restore();
    document.execCommand(name, false, arg);
    refresh();
  };

  const link = () => {
    restore();
    const range = saved?.cloneRange();
    const href = prompt("Link address", "https://")?.trim();
    if (!href || href === "https://") return;
    if (!/^(https?:|mailto:|[/?#.]|[^:]*$)/i.test(href)) return;
    restore();
    if (range && !range.collapsed) {
      document.execCommand("createLink", false, href);
    } else {document.execCommand(
        "insertHTML",
        false,
        clean(`<a href="${textToHtml(href)}">${textToHtml(href)}</a>`),
      );}
  };

  const heading = () => {
    restore();
    const h2 = document.queryCommandValue("formatBlock").toLowerCase() === "h2";
    document.execCommand("formatBlock", false, h2 ? "p" : "h2");
    refresh();
  };

  // Toolbar.
  const { host, root } = isolate("cms-rich-toolbar", CSS);
  const file = h("input", {
    type: "file",
    accept: "image/png,image/jpeg,image/gif,image/webp,image/avif",
    multiple: "",
    tabindex: "-1",
    "aria-hidden": "true",
  });
  const progress = h("progress", {
    max: "1",
    value: "0",
    hidden: "",
    "aria-label": "Upload progress",
  });
  const msg = h("span", {
    class: "msg",
    role: "status",
    "aria-live": "polite",
  });
  const tools: Tool[] = [
    ["bold", "Bold", command("bold"), "bold"],
    ["italic", "Italic", command("italic"), "italic"],
    ["link", "Link", link],
    ["heading", "Heading", heading],
    [
      "list",
      "Bulleted list",
      command("insertUnorderedList"),
      "insertUnorderedList",
    ],
    [
      "ordered",
      "Numbered list",
      command("insertOrderedList"),
      "insertOrderedList",
    ],
    ["image", "Insert image", () => file.click()],
  ];
  const toolbar = h("div", {
    class: "bar",
    role: "group",
    "aria-label": `Formatting: ${label}`,
  });
  const toggles: [HTMLButtonElement, string][] = [];
  for (const [icon, name, run, state] of tools) {
    const b = h(
      "button",
      { type: "button", "aria-label": name, title: name },
      Icon(icon),
    );
    b.addEventListener("mousedown", (e) => e.preventDefault());
    b.addEventListener("click", run);
    if (state) {
      b.setAttribute("aria-pressed", "false");
      toggles.push([b, state]);
    }
    if (icon === "heading" || icon === "image") {
      toolbar.append(h("span", { class: "sep" }));
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
  async function upload(image: File) {
    const at = saved?.cloneRange();
    active++;
    msg.className = "msg";
    msg.textContent = `Uploading ${image.name}…`;
    progress.value = 0;
    progress.hidden = false;
    try {
      const up = await uploadImage(media, image, (p) => progress.value = p);
      const img = h("img", {
        src: up.url,
        width: String(up.width),
        height: String(up.height),
        alt: altFrom(image.name),
      });
      if (at && el.contains(at.startContainer)) {
        at.collapse(false);
        at.insertNode(img);
      } else el.append(img);
      msg.textContent = "";
      notify();
    } catch (err) {
      const status = err instanceof UploadError ? err.status : 0;
      const reason = err instanceof Error ? err.message : String(err);
      msg.className = "msg err";
      msg.textContent = `Upload failed${
        status ? ` (${status})` : ""
      }: ${reason}`;
      options.onError?.(status, reason);
    } finally {
      if (--active === 0) progress.hidden = true;
    }
  }

  const on = <T extends Event>(
    target: EventTarget,
    type: string,
    fn: (e: T) => void,
  ) => {
    target.addEventListener(type, fn as EventListener);
    return () => target.removeEventListener(type, fn as EventListener);
  };
  const off = [
    on(file, "change", () => {
      for (const f of images(file.files)) void upload(f);
      file.value = "";
    }),
    on(el, "input", notify),
    on(document, "selectionchange", () => {
      remember();
      if (document.activeElement === el) refresh();
    }),
    on<ClipboardEvent>(el, "paste", (e) => {
      const data = e.clipboardData;
      if (!data) return;
      e.preventDefault();
      remember();
      const files = images(data.files);
      if (files.length) return files.forEach((f) => void upload(f));
      const html = data.getData("text/html");
      if (html) document.execCommand("insertHTML", false, clean(html));
      else insertText(data.getData("text/plain"));
    }),
    on<DragEvent>(el, "dragover", (e) => {
      if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
    }),
    on<DragEvent>(el, "drop", (e) => {
      const data = e.dataTransfer;
      const html = data?.getData("text/html");
      const files = images(data?.files);
      if (!files.length && !html) return;
      e.preventDefault();
      const range = document.caretRangeFromPoint?.(e.clientX, e.clientY);
      if (range) {
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
        remember();
      }
      if (files.length) files.forEach((f) => void upload(f));
      else document.execCommand("insertHTML", false, clean(html!));
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
      if (before === null) el.removeAttribute("contenteditable");
      else el.setAttribute("contenteditable", before);
    },
  };
}
