/**
 * Image uploads of the rich text editor (part of the rich chunk): the
 * upload with its progress and status, inserting chosen, pasted or dropped
 * images after asking for their alt text, and cleaned HTML paste.
 *
 * @module
 */

import { t } from "./labels.ts";
import type { RichCore } from "./rich_types.ts";
import type { UploadFailure } from "./upload.ts";

/** The images among `files`. */
export const images = (files: FileList | undefined | null): File[] =>
  [...files ?? []].filter((f) => f.type.startsWith("image/"));

/**
 * Uploads `image`; resolves with the `<img>` attributes, or undefined after
 * reporting the failure. The uploader is a chunk of its own, loaded at the
 * first upload: most editing sessions never upload.
 */
export async function upload(
  ed: RichCore,
  image: File,
  alt: string,
): Promise<Record<string, string> | void> {
  const { options } = ed;
  ed.uploads++;
  ed.say(t("uploading", { name: image.name }));
  ed.progress(0);
  try {
    const { imageAttrs, uploadImage } = await import("./upload.ts");
    const up = await uploadImage(ed.media, image, (p) => ed.progress(p));
    if (!options.mediaBase && up.url.endsWith(up.key)) {
      ed.base = up.url.slice(0, -up.key.length);
    }
    ed.say("");
    return imageAttrs(up, alt);
  } catch (err) {
    const { status, reason } = err as UploadFailure;
    ed.say(t("uploadFailed", {
      reason: status ? `${reason} (${status})` : reason,
    }));
    options.onError?.(status, reason);
  } finally {
    if (!--ed.uploads) ed.progress();
  }
}

/** The alt text dialogs asked for and not yet answered, in order: one
 * modal dialog at a time, whichever editor asks. */
let asking: Promise<unknown> = Promise.resolve();

/**
 * Asks for each image's alt text (one dialog at a time) while it uploads,
 * then inserts it where the caret was.
 */
export function insertImages(ed: RichCore, files: File[]): void {
  const { el } = ed;
  for (const image of files) {
    const at = ed.range()?.cloneRange();
    const alt = asking.then(() => ed.tools().then((m) => m.askAlt(ed, image)));
    asking = alt;
    // The upload starts at once; an image whose dialog was cancelled is
    // not inserted (its upload is already stored: media is shared).
    const attrs = upload(ed, image, "");
    void Promise.all([alt, attrs]).then(([alt, attrs]) => {
      if (alt === null || !attrs) return;
      const img = ed.kit.h("img", { ...attrs, alt });
      ed.change(() => {
        if (at && el.contains(at.startContainer)) {
          at.collapse(false);
          at.insertNode(img);
        } else el.append(img);
      });
    });
  }
}

/** Signatures of Word, Google Docs and LibreOffice HTML (and a `<th>` row
 * that may need a `<thead>`): such a paste is made plain HTML first by the
 * lazy `paste.ts` chunk. */
export const OFFICE: RegExp =
  /mso-|docs-internal-guid|schemas-microsoft|LibreOffice|aria-level|<th[\s>]/i;

/** Inserts cleaned `html` at the remembered selection (the sanitizer may
 * still be loading: the caret is put back first). */
async function insertHtml(ed: RichCore, html: string): Promise<void> {
  if (OFFICE.test(html)) html = (await import("./paste.ts")).tidy(html);
  const safe = await ed.clean(html);
  ed.restore();
  ed.exec("insertHTML", safe);
}

/** A paste or drop: images are uploaded, HTML is cleaned. */
export function receive(
  ed: RichCore,
  e: ClipboardEvent | DragEvent,
  data: DataTransfer | null,
): void {
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
  ed.remember();
  if (files.length) insertImages(ed, files);
  else void insertHtml(ed, html!);
}
