/**
 * Image upload to the media endpoint: the raw file as the body, over
 * XMLHttpRequest so the editor can show upload progress.
 *
 * @module
 */

/** The media endpoint's 200 answer. */
export interface UploadedImage {
  key: string;
  url: string;
  width: number;
  height: number;
  type?: string;
}

/** A failed upload: HTTP status (0 for the network) and a readable reason. */
export class UploadError extends Error {
  /** HTTP status, or 0 when the request never got an answer. */
  readonly status: number;
  /** Makes an error from a status and the server's short reason. */
  constructor(status: number, reason: string) {
    super(reason);
    this.status = status;
  }
}

const REASONS: Record<number, string> = {
  0: "server unreachable",
  403: "not allowed",
  413: "file too large",
  415: "not a supported image",
  422: "image too large",
};

/** POSTs `file` to `url`, reporting progress as a fraction from 0 to 1. */
export function uploadImage(
  url: string,
  file: Blob,
  onProgress?: (fraction: number) => void,
): Promise<UploadedImage> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader(
      "content-type",
      file.type || "application/octet-stream",
    );
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress?.(e.loaded / e.total);
    };
    const fail = (status: number, text = "") =>
      reject(
        new UploadError(
          status,
          text.trim().slice(0, 200) || REASONS[status] || `HTTP ${status}`,
        ),
      );
    xhr.onerror = () => fail(0);
    xhr.onload = () => {
      if (xhr.status !== 200) return fail(xhr.status, xhr.responseText);
      try {
        const data = JSON.parse(xhr.responseText);
        const ok = typeof data?.url === "string" &&
          Number.isInteger(data.width) && Number.isInteger(data.height);
        if (ok) return resolve(data);
      } catch { /* below */ }
      fail(502, "unexpected answer from the media endpoint");
    };
    xhr.send(file);
  });
}
