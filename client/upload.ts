/**
 * Image upload to the media endpoint: the raw file as the body (its
 * `Content-Type` is the file's type; the endpoint sniffs the bytes anyway),
 * over XMLHttpRequest so the editor can show upload progress.
 *
 * @module
 */

import type { MediaAnswer } from "../core/protocol/mod.ts";
import { reasonText } from "./refusal.ts";

/** The media endpoint's 200 answer (`variants` and `processed` may be
 * missing from an older server). */
export type UploadedImage =
  & Omit<MediaAnswer, "variants" | "processed">
  & Partial<Pick<MediaAnswer, "variants" | "processed">>;

/**
 * The `<img>` attributes for an uploaded image: `src`, `width`, `height` and
 * `alt`; with variants also `srcset` (each variant and the original, by
 * width), `sizes` (the original's width, or the viewport when narrower),
 * `loading="lazy"` and `decoding="async"`.
 *
 * @example
 * ```ts ignore
 * imageAttrs({ key: "a", url: "/m/a.jpg", width: 2000, height: 1000 }, "Sea");
 * // { src: "/m/a.jpg", width: "2000", height: "1000", alt: "Sea" }
 * ```
 */
export function imageAttrs(
  up: UploadedImage,
  alt: string,
): Record<string, string> {
  const { url, width, height } = up;
  const attrs: Record<string, string> = {
    src: url,
    width: `${width}`,
    height: `${height}`,
    alt,
  };
  const variants = (up.variants ?? []).filter((v) =>
    typeof v?.url === "string" && Number.isInteger(v.width) && v.width > 0 &&
    v.width <= width && !/[\s,]/.test(v.url)
  );
  if (variants.length) {
    // The original too, unless a variant has its width already.
    const all = variants.some((v) => v.width === width)
      ? variants
      : [...variants, up];
    attrs.srcset = all.map((v) => `${v.url} ${v.width}w`).join(", ");
    attrs.sizes = `(max-width: ${width}px) 100vw, ${width}px`;
    attrs.loading = "lazy";
    attrs.decoding = "async";
  }
  return attrs;
}

/** Why an upload failed: what `uploadImage` rejects with. */
export interface UploadFailure {
  /** HTTP status, or 0 when the request never got an answer. */
  status: number;
  /** The server's short plain-text reason, or a fallback. */
  reason: string;
}

/**
 * POSTs `file` to `url`, reporting progress as a fraction from 0 to 1.
 * Rejects with an {@linkcode UploadFailure}.
 */
export function uploadImage(
  url: string,
  file: Blob,
  onProgress: (fraction: number) => void,
): Promise<UploadedImage> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const fail = (status: number, text = "") =>
      reject({
        status,
        reason: reasonText(
          status,
          xhr.getResponseHeader("content-type"),
          text,
        ),
      });
    xhr.open("POST", url);
    // The media library shows and searches the file's name.
    if (file instanceof File) {
      xhr.setRequestHeader("X-File-Name", encodeURIComponent(file.name));
    }
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => fail(0);
    xhr.onload = () => {
      if (xhr.status !== 200) return fail(xhr.status, xhr.responseText);
      try {
        const data = JSON.parse(xhr.responseText);
        const ok = typeof data?.url === "string" &&
          Number.isInteger(data.width) && Number.isInteger(data.height);
        if (ok) return resolve(data);
      } catch { /* below */ }
      fail(502, "bad answer from the media endpoint");
    };
    xhr.send(file);
  });
}
