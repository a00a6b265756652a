/**
 * Defaults that never drop an editor's work: with one options object fed
 * to both factories and no `mediaBase`, an image the media endpoint just
 * stored keeps `srcset` and `sizes` through the save endpoint.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createMediaHandler } from "../server/media.ts";
import { createSaveHandler } from "../server/save.ts";
import { MemoryContentStore } from "../server/store/memory.ts";
import { MemoryMediaStorage } from "../server/media/memory.ts";
import type { MediaAnswer } from "../core/wire.ts";
import { REMOVED_HEADER } from "../core/wire.ts";
import { png } from "./fixtures/images.ts";

const headers = {
  "Sec-Fetch-Site": "same-origin",
  "Content-Type": "application/json",
};

Deno.test("defaults: srcset and sizes of an uploaded image survive saving without mediaBase", async () => {
  const store = new MemoryContentStore();
  const cms = {
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { body: "rich" } },
    store,
    storage: new MemoryMediaStorage({ publicUrl: "https://cdn.example/media" }),
  } as const;
  const media = createMediaHandler(cms);
  const save = createSaveHandler(cms);
  const up = await media(
    new Request("http://127.0.0.1/api/cms/media", {
      method: "POST",
      headers: { "Sec-Fetch-Site": "same-origin", "Content-Type": "image/png" },
      body: await png(1200, 800),
    }),
  );
  assert.equal(up.status, 200);
  const answer = await up.json() as MediaAnswer;
  assert.ok(answer.variants.length > 0, "sharp made variants");
  // What the client inserts for that answer.
  const srcset = [...answer.variants, answer]
    .map((v) => `${v.url} ${v.width}w`).join(", ");
  const img = `<img src="${answer.url}" width="${answer.width}" ` +
    `height="${answer.height}" alt="A photo" srcset="${srcset}" ` +
    `sizes="(max-width: 600px) 100vw, 600px">`;
  const res = await save(
    new Request("http://127.0.0.1/api/cms/save", {
      method: "PATCH",
      headers,
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "body",
        value: `<p>${img}</p>`,
      }),
    }),
  );
  assert.equal(res.status, 204, await res.text());
  assert.equal(res.headers.get(REMOVED_HEADER), null);
  const stored = String((await store.get("pages", "home"))?.body);
  assert.ok(stored.includes(`srcset="${srcset}"`), stored);
  assert.ok(stored.includes('sizes="(max-width: 600px) 100vw, 600px"'), stored);

  // A srcset pointing anywhere else is still removed (and counted).
  const foreign = await save(
    new Request("http://127.0.0.1/api/cms/save", {
      method: "PATCH",
      headers,
      body: JSON.stringify({
        collection: "pages",
        key: "home",
        field: "body",
        value: img.replaceAll(
          "https://cdn.example/media/",
          "https://evil.example/",
        ),
      }),
    }),
  );
  assert.equal(foreign.status, 204);
  assert.ok(Number(foreign.headers.get(REMOVED_HEADER)) >= 2);
  assert.doesNotMatch(
    String((await store.get("pages", "home"))?.body),
    /srcset/,
  );
});
