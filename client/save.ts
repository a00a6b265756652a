/**
 * One save request per field, over `fetch`.
 *
 * @module
 */

import {
  type ListSaveBody,
  REMOVED_HEADER,
  type SaveBody,
  VERSION_HEADER,
} from "../core/protocol/mod.ts";
import type { SaveAnswer } from "./model.ts";

/**
 * Sends one `PATCH` to the save endpoint at `url`. Never rejects: no answer
 * (network error, offline) is status 0 with an empty text.
 *
 * @example
 * ```ts ignore
 * const answer = await saveField("/api/cms/save", {
 *   collection: "pages", key: "home", field: "title", value: "Hi",
 * });
 * ```
 */
export async function saveField(
  url: string,
  body: SaveBody | ListSaveBody,
): Promise<SaveAnswer> {
  try {
    const res = await fetch(url, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const h = (name: string) => res.headers.get(name) ?? undefined;
    // A refusal's reason is plain text (or the 409's JSON); an HTML error
    // page (a proxy's) is not one: the model then shows the status.
    const html = /html/.test(h("content-type") ?? "");
    return {
      status: res.status,
      text: res.status === 204 || html ? "" : await res.text(),
      version: h(VERSION_HEADER),
      retryAfter: h("retry-after"),
      // Absent or 0 (our server sends a count ≥ 0): no count.
      removed: Number(h(REMOVED_HEADER)) || undefined,
    };
  } catch {
    return { status: 0, text: "" };
  }
}
