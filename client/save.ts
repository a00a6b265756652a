/**
 * One save request per field, and a small concurrency pool.
 *
 * @module
 */

/** What the save endpoint answered for one field. */
export type SaveResult =
  | { ok: true; version?: string }
  | { ok: false; conflict: true; value: string; version?: string }
  | { ok: false; conflict?: false; status: number; reason: string };

/** The JSON body of a save request. */
export interface SaveBody {
  collection: string;
  key: string;
  field: string;
  value: string;
  version?: string;
}

/** Sends one `PATCH` to the save endpoint and classifies the answer. */
export async function saveField(
  url: string,
  body: SaveBody,
): Promise<SaveResult> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    return {
      ok: false,
      status: 0,
      reason: navigator.onLine ? "server unreachable" : "offline",
    };
  }
  const version = res.headers.get("cms-version") ?? undefined;
  if (res.ok) return { ok: true, version };
  const text = await res.text().catch(() => "");
  if (res.status === 409) {
    try {
      const data = JSON.parse(text);
      const value = typeof data.value === "string" ? data.value : "";
      return { ok: false, conflict: true, value, version: data.version };
    } catch { /* fall through to a plain error */ }
  }
  const reason = text.trim().slice(0, 200) || res.statusText ||
    `HTTP ${res.status}`;
  return { ok: false, status: res.status, reason };
}

/** Runs `task` over `items`, at most `limit` at a time. */
export async function pool<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, worker),
  );
}
