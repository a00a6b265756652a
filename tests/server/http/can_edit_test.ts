/**
 * One rule for what an editor may see and change: the host's `canEdit`,
 * asked through `mayEdit` by every endpoint that shows or changes content.
 * With one options object that lets an editor edit only titles, each
 * endpoint keeps the body away from them: save, history, the drafts list,
 * publish, discard, the schedule listing and the media library's alt texts.
 */
import assert from "node:assert/strict";
import { mayEdit } from "../../../server/http/mod.ts";
import { createSaveHandler } from "../../../server/save/mod.ts";
import { createHistoryHandler } from "../../../server/history/mod.ts";
import {
  createDiscardHandler,
  createDraftsHandler,
  createPublishHandler,
  createScheduleHandler,
} from "../../../server/drafts/mod.ts";
import {
  createMediaLibraryHandler,
  MemoryMediaStorage,
} from "../../../server/media/mod.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import type { FieldAddress } from "../../../core/address.ts";
import type {
  DraftsListing,
  MediaLibraryPage,
} from "../../../core/protocol/mod.ts";

const ORIGIN = "http://localhost";
const titlesOnly = (_req: Request, f: FieldAddress) => f.field === "title";

function request(path: string, body?: unknown, method = "POST"): Request {
  return new Request(
    `${ORIGIN}${path}`,
    body === undefined ? {} : {
      method,
      headers: { "Content-Type": "application/json", Origin: ORIGIN },
      body: JSON.stringify(body),
    },
  );
}

Deno.test("mayEdit: no rule lets everyone; a rule decides", async () => {
  const req = new Request(ORIGIN);
  const ada = { name: "Ada" };
  const title = { collection: "pages", key: "home", field: "title" };
  const body = { ...title, field: "body" };
  assert.equal(await mayEdit({}, req, body, ada), true);
  assert.equal(await mayEdit({ canEdit: titlesOnly }, req, title, ada), true);
  assert.equal(await mayEdit({ canEdit: titlesOnly }, req, body, ada), false);
  assert.equal(
    await mayEdit({ canEdit: () => Promise.resolve(false) }, req, title, ada),
    false,
  );
});

Deno.test("canEdit is one rule across every endpoint that shows content", async () => {
  const store = new MemoryContentStore();
  const storage = new MemoryMediaStorage();
  await storage.put("a.jpg", new Uint8Array([0xff, 0xd8, 1]), "image/jpeg");
  const img = (alt: string) =>
    `<p><img src="/media/a.jpg" width="4" height="3" alt="${alt}"></p>`;
  const options = {
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { title: "plain", body: "rich" } } as const,
    store,
    storage,
    publishMode: "draft" as const,
    canEdit: titlesOnly,
    schedulerElsewhere: true,
  };
  await store.updateDraft("pages", "home", (r) => ({ ...r, title: "T" }), {
    field: "title",
    editor: "Bo",
  });
  await store.updateDraft(
    "pages",
    "home",
    (r) => ({ ...r, body: img("Secret") }),
    {
      field: "body",
      editor: "Bo",
    },
  );
  await store.update("pages", "home", (r) => ({ ...r, title: img("Open") }));

  const save = createSaveHandler(options);
  const edit = (field: string) =>
    save(request("/api/cms/save", {
      collection: "pages",
      key: "home",
      field,
      value: "x",
    }, "PATCH"));
  assert.equal((await edit("body")).status, 403, "save");
  assert.equal((await edit("title")).status, 204, "save");

  const history = createHistoryHandler(options);
  const read = (field: string) =>
    history(request(`/api/cms/history?field=pages:home:${field}`));
  assert.equal((await read("body")).status, 403, "history");
  assert.equal((await read("title")).status, 200, "history");

  const listing = await (await createDraftsHandler(options)(
    request("/api/cms/drafts"),
  )).json() as DraftsListing;
  assert.deepEqual(listing.drafts.map((d) => d.field), ["pages:home:title"]);

  const publish = createPublishHandler(options);
  assert.equal(
    (await publish(
      request("/api/cms/publish", { fields: ["pages:home:body"] }),
    ))
      .status,
    403,
    "publish",
  );
  assert.equal(
    (await createDiscardHandler(options)(
      request("/api/cms/discard", { field: "pages:home:body" }),
    )).status,
    403,
    "discard",
  );
  // A schedule of the body (made by someone who may) is not listed.
  await store.addSchedule({
    id: crypto.randomUUID(),
    at: new Date(Date.now() + 86_400_000).toISOString(),
    fields: [{ collection: "pages", key: "home", field: "body" }],
    editor: "Bo",
    created: new Date().toISOString(),
  });
  const schedules = await (await createScheduleHandler(options)(
    request("/api/cms/schedule"),
  )).json() as { schedules: unknown[] };
  assert.equal(schedules.schedules.length, 0, "schedule listing");

  const library = await (await createMediaLibraryHandler(options)(
    request("/api/cms/media/library"),
  )).json() as MediaLibraryPage;
  assert.deepEqual(library.uploads[0].alts, ["Open"], "library");
});
