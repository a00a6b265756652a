/**
 * One save request per field.
 *
 * @module
 */

/** The JSON body of a save request. */
export interface SaveBody {
  collection: string;
  key: string;
  field: string;
  value: string;
  version?: string;
}

/** What the save endpoint answered. */
export interface SaveAnswer {
  /** HTTP status; 0 when the request got no answer. */
  status: number;
  /** The body (a short reason, or the 409 JSON), or why there was no answer. */
  text: string;
  /** The `CMS-Version` header, if any. */
  version?: string;
}

/** Sends one `PATCH` to the save endpoint. Never rejects. */
export async function saveField(
  url: string,
  body: SaveBody,
): Promise<SaveAnswer> {
  try {
    const res = await fetch(url, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      text: await res.text(),
      version: res.headers.get("cms-version") ?? undefined,
    };
  } catch {
    return {
      status: 0,
      text: navigator.onLine ? "server unreachable" : "offline",
    };
  }
}
