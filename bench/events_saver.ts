/**
 * The saver of `bench/events.ts`, run as a Worker: saves happen on their
 * own thread, so the 200 listeners parsed in the main thread do not delay
 * the save answers it times. Message in: `{url, cookie, value}`; out:
 * `{started, ms, status}` with `started` as absolute time
 * (`performance.timeOrigin + performance.now()`).
 *
 * @module
 */
/// <reference lib="deno.worker" />

self.onmessage = async (
  e: MessageEvent<{ url: string; cookie: string; value: string }>,
) => {
  const { url, cookie, value } = e.data;
  const started = performance.now();
  const res = await fetch(`${url}/api/cms/save`, {
    method: "PATCH",
    headers: {
      Cookie: cookie,
      "Sec-Fetch-Site": "same-origin",
      Origin: url,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({
      collection: "pages",
      key: "home",
      field: "title",
      value,
    }),
  });
  await res.body?.cancel();
  self.postMessage({
    started: performance.timeOrigin + started,
    ms: performance.now() - started,
    status: res.status,
  });
};
