/**
 * Image fields (`<img data-cms-type="image">`), a lazy chunk loaded at the
 * first click, Enter or drop on one: the small panel (Replace through the
 * file picker, or drop onto the image) and the upload through the media
 * endpoint. The field's value is the stored image's URL; the `<img>` gets
 * `src`, `width`, `height` and, from the answer's variants, `srcset` and
 * `sizes`. Its `alt` is the host's and stays as it is.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";
import { THEME } from "./theme.ts";
import { imageAttrs, type UploadFailure, uploadImage } from "./upload.ts";

/** What the panel and uploads of one image field need from the session. */
export interface ImageFieldTarget {
  /** The `<img>` region. */
  el: HTMLImageElement;
  /** Media endpoint URL. */
  media: string;
  /** Media library endpoint URL, or `""`: no "Choose from library". */
  library: string;
  /** Called with the stored URL and the `<img>` attributes it brings. */
  done(url: string, attrs: Record<string, string>): void;
  /** Called when an upload fails (status 0 = network). */
  failed(status: number, reason: string): void;
}

const CSS =
  `form{position:fixed;z-index:2147483001;width:min(22em,calc(100vw - 16px))}`;

let panel: (() => void) | undefined;

/**
 * Uploads `file` for the image field and applies the answer: resolves once
 * the `<img>` shows the stored image (or the upload failed, reported
 * through `target.failed`). `say` receives progress and failure text.
 *
 * @example
 * ```ts ignore
 * await replaceImage(target, droppedFile);
 * ```
 */
export async function replaceImage(
  target: ImageFieldTarget,
  file: File,
  say: (text: string) => void = () => {},
): Promise<void> {
  if (!file.type.startsWith("image/")) {
    say(t("notImage"));
    return target.failed(415, t("notImage"));
  }
  say(t("uploading", { name: file.name }));
  try {
    const up = await uploadImage(
      target.media,
      file,
      (p) =>
        say(`${t("uploading", { name: file.name })} ${Math.round(p * 100)}%`),
    );
    const { alt: _, ...attrs } = imageAttrs(up, "");
    say("");
    target.done(up.url, attrs);
  } catch (err) {
    const { status, reason } = err as UploadFailure;
    say(t("uploadFailed", { reason }));
    target.failed(status, reason);
  }
}

/**
 * Opens the image field's panel below `target.el` (one panel at a time):
 * Replace opens the file picker, Cancel or Esc closes it and focus goes
 * back to the image. Returns the function closing it.
 *
 * @example
 * ```ts ignore
 * const close = openImageField(kit, target);
 * ```
 */
export function openImageField(kit: Kit, target: ImageFieldTarget): () => void {
  panel?.();
  const { h, isolate } = kit;
  const { host, root } = isolate("cms-image-field", THEME, CSS);
  const status = h("p", { class: "m", role: "status" }, t("dropImage"));
  const file = h("input", { type: "file", accept: "image/*", hidden: "" });
  const replace = h("button", { class: "p" }, t("replace"));
  const library = h("button", { hidden: "" }, t("fromLibrary"));
  library.hidden = !target.library;
  const cancel = h("button", {}, t("cancel"));
  const form = h(
    "form",
    { class: "k", role: "group", "aria-label": t("changeImage") },
    status,
    h("div", { class: "a" }, replace, library, cancel),
    file,
  );
  root.append(form);
  const r = target.el.getBoundingClientRect();
  form.style.left = `${Math.max(8, Math.min(r.left, innerWidth - 310))}px`;
  form.style.top = `${
    Math.max(8, Math.min(r.bottom + 6, innerHeight - 130))
  }px`;
  document.body.append(host);
  const close = () => {
    if (!host.isConnected) return;
    host.remove();
    if (panel === close) panel = undefined;
    target.el.focus();
  };
  replace.onclick = () => file.click();
  library.onclick = async () => {
    const { openLibrary } = await import("./media_library.ts");
    const chosen = await openLibrary(kit, target.library);
    if (!chosen) return library.focus();
    const { alt: _, ...attrs } = chosen.attrs; // the host's alt stays
    target.done(chosen.item.url, attrs);
    close();
  };
  cancel.onclick = close;
  file.onchange = () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    file.value = "";
    // The panel closes once the image shows the stored one; on a failure
    // it stays open with the reason.
    void replaceImage(
      { ...target, done: (url, attrs) => (target.done(url, attrs), close()) },
      chosen,
      (text) => status.textContent = text,
    );
  };
  form.onkeydown = (e) => {
    if (e.key !== "Escape") return;
    e.stopPropagation();
    close();
  };
  replace.focus();
  return panel = close;
}
