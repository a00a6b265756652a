/**
 * Image tools of the rich text editor (a lazy chunk): the alt text dialog
 * asked on every insertion, and the panel a click on an image opens
 * (Replace, Alt text, Remove).
 *
 * @module
 */

import type { RichEditor } from "./rich_types.ts";
import { type Labels, t } from "./labels.ts";

let ids = 0;

/**
 * Asks for the alt text of `image` (a file being inserted, or an image in
 * the region) in a modal dialog. Resolves with the text, `""` for a
 * decorative image, or `null` when the editor cancels.
 *
 * @example
 * ```ts ignore
 * const alt = await askAlt(editor, file); // null: do not insert
 * ```
 */
export function askAlt(
  editor: RichEditor,
  image: File | HTMLImageElement,
): Promise<string | null> {
  const { kit: { h }, root } = editor;
  const id = `cms-alt-${++ids}`;
  const current = image instanceof File ? null : image.getAttribute("alt");
  const preview = image instanceof File
    ? URL.createObjectURL(image)
    : image.currentSrc || image.src;
  const text = h("input", {
    type: "text",
    value: current ?? "",
    "aria-describedby": `${id}h ${id}e`,
  });
  const decorative = h("input", { type: "checkbox" });
  decorative.checked = current === "";
  const error = h("p", { class: "e", id: `${id}e`, role: "alert" });
  const cancel = h("button", { type: "button" }, t("cancel"));
  const ok = h(
    "button",
    { type: "submit", class: "p" },
    t(image instanceof File ? "insert" : "ok"),
  );
  const form = h(
    "form",
    { method: "dialog" },
    h("h2", { id: `${id}l` }, t("altTitle")),
    h("img", { src: preview, alt: "" }),
    h("p", { class: "m", id: `${id}h` }, t("altHelp")),
    h("label", {}, t("altText"), text),
    h("label", { class: "c" }, decorative, t("decorative")),
    error,
    h("div", { class: "a" }, ok, cancel),
  );
  const dialog = h("dialog", {
    class: "k",
    "aria-labelledby": `${id}l`,
  }, form);
  // Fits the viewport at any width (CSSOM: allowed under a strict CSP):
  // the preview scales down (the theme's text input counts its padding).
  dialog.style.cssText = "width:min(28em,calc(100vw - 32px))";
  (form.children[1] as HTMLElement).style.cssText =
    "max-width:100%;max-height:30vh;height:auto";
  root.append(dialog);
  const sync = () => text.disabled = decorative.checked;
  decorative.onchange = sync;
  sync();
  return new Promise((resolve) => {
    let done = false;
    const finish = (alt: string | null) => {
      if (done) return;
      done = true;
      dialog.close();
      dialog.remove();
      if (image instanceof File) URL.revokeObjectURL(preview);
      editor.restore();
      resolve(alt);
    };
    form.onsubmit = (e) => {
      e.preventDefault();
      const alt = decorative.checked ? "" : text.value.trim();
      if (decorative.checked || alt) return finish(alt);
      error.textContent = t("altNeeded");
      text.setAttribute("aria-invalid", "true");
      text.focus();
    };
    cancel.onclick = () => finish(null);
    // Esc closes the dialog, with or without a cancel event (Chromium skips
    // that event without a user activation since the last one).
    dialog.onclose = () => finish(null);
    dialog.showModal();
    text.focus();
  });
}

/**
 * Shows the panel for an image in the region: Replace (a new upload takes
 * its place; the old one keeps the layout box until the new one arrives),
 * Choose from library (a stored image and its variants, no upload), Alt
 * text, Remove.
 *
 * @example
 * ```ts ignore
 * openImageTools(editor, clickedImage);
 * ```
 */
export function openImageTools(
  editor: RichEditor,
  img: HTMLImageElement,
): void {
  const { kit: { h } } = editor;
  /** Shows a stored image (new attributes) in `img`, as one undo step. */
  const show = (attrs: Record<string, string>) => {
    if (!img.isConnected) return;
    editor.change(() => {
      for (const name of ["srcset", "sizes", "loading", "decoding"]) {
        img.removeAttribute(name);
      }
      for (const [name, value] of Object.entries(attrs)) {
        img.setAttribute(name, value);
      }
    });
  };
  const button = (label: keyof Labels, run: () => unknown) => {
    const b = h("button", { type: "button" }, t(label));
    b.onclick = () => void run();
    return b;
  };
  const panel = h(
    "form",
    { class: "k a", role: "group", "aria-label": t("imageTools") },
    button("replace", async () => {
      const file = await editor.pick();
      if (!file) return;
      const alt = await askAlt(editor, img);
      if (alt === null) return;
      editor.close();
      // The old image stays, with its box, until the new one is stored.
      const attrs = await editor.upload(file, alt);
      if (attrs) show(attrs);
    }),
    editor.library && button("fromLibrary", async () => {
      const { openLibrary } = await import("./media_library.ts");
      const chosen = await openLibrary(editor.kit, editor.library);
      if (!chosen) return editor.restore();
      editor.close();
      // The image's own alt text stays; the library's fills an empty one.
      show({
        ...chosen.attrs,
        alt: img.getAttribute("alt") || chosen.attrs.alt,
      });
    }),
    button("altText", async () => {
      const alt = await askAlt(editor, img);
      if (alt !== null) editor.change(() => img.setAttribute("alt", alt));
    }),
    button("remove", () => {
      editor.close();
      editor.change(() => img.remove());
    }),
    button("cancel", () => editor.close()),
  );
  editor.show(panel);
  (panel.firstChild as HTMLElement).focus();
}
