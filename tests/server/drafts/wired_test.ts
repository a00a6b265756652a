/**
 * What the draft endpoints accept only when it is wired: a publish with
 * `at` only when a scheduler runs (here or elsewhere), and the drafts
 * listing's `page` links only from the host's `pageUrl`.
 */
import assert from "node:assert/strict";
import {
  createDraftsHandler,
  createPublishHandler,
  type DraftHandlerOptions,
} from "../../../server/drafts/mod.ts";
import { Scheduler } from "../../../server/drafts/scheduler.ts";
import { MemoryContentStore } from "../../../server/store/memory.ts";
import type { DraftsListing } from "../../../core/protocol/mod.ts";

const ORIGIN = "http://localhost";

function options(
  store: MemoryContentStore,
  extra: Partial<DraftHandlerOptions> = {},
): DraftHandlerOptions {
  return {
    authorize: () => ({ name: "Ada" }),
    allowlist: { pages: { title: "plain", body: "rich" } },
    store,
    ...extra,
  };
}

function post(body: unknown) {
  return new Request(`${ORIGIN}/api/cms/publish`, {
    method: "POST",
    headers: { Origin: ORIGIN, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function draft(store: MemoryContentStore, key: string, field: string) {
  await store.updateDraft("pages", key, (r) => ({ ...r, [field]: "x" }), {
    field,
    editor: "Ada",
  });
}

const AT = "2035-03-01T10:00:00Z";

Deno.test("publish with at is refused when no scheduler runs", async () => {
  const store = new MemoryContentStore();
  await draft(store, "home", "title");
  const res = await createPublishHandler(options(store))(
    post({ at: AT, fields: ["pages:home:title"] }),
  );
  assert.equal(res.status, 400);
  assert.match(await res.text(), /does not schedule publishes/);
  // Nothing was stored: the draft is still there, no schedule kept.
  assert.equal((await store.drafts()).length, 1);
  assert.deepEqual(await store.schedules(), []);
});

Deno.test("publish with at is accepted with a scheduler here or elsewhere", async () => {
  for (
    const extra of [
      { scheduler: new Scheduler({ store: new MemoryContentStore() }) },
      { schedulerElsewhere: true },
    ]
  ) {
    const store = new MemoryContentStore();
    await draft(store, "home", "title");
    const res = await createPublishHandler(options(store, extra))(
      post({ at: AT, fields: ["pages:home:title"] }),
    );
    assert.equal(res.status, 202, await res.text());
  }
});

Deno.test("the drafts listing links pages through pageUrl", async () => {
  const store = new MemoryContentStore();
  await draft(store, "home", "title");
  await draft(store, "about", "body");
  await draft(store, "odd", "title");
  const listing = async (extra: Partial<DraftHandlerOptions>) => {
    const res = await createDraftsHandler(options(store, extra))(
      new Request(`${ORIGIN}/api/cms/drafts`, {
        headers: { "Sec-Fetch-Site": "same-origin" },
      }),
    );
    assert.equal(res.status, 200);
    const { drafts } = await res.json() as DraftsListing;
    return Object.fromEntries(drafts.map((d) => [d.field, d.page ?? null]));
  };
  assert.deepEqual(await listing({}), {
    "pages:home:title": null,
    "pages:about:body": null,
    "pages:odd:title": null,
  });
  assert.deepEqual(
    await listing({
      pageUrl: (a) =>
        a.key === "home" ? "/" : a.key === "odd"
          ? "https://elsewhere.example/" // not a site path: no link
          : `/${a.key}`,
    }),
    {
      "pages:home:title": "/",
      "pages:about:body": "/about",
      "pages:odd:title": null,
    },
  );
  // A pageUrl that throws costs the link, not the listing.
  const error = console.error;
  console.error = () => {};
  try {
    assert.deepEqual(
      await listing({
        pageUrl: () => {
          throw new Error("boom");
        },
      }),
      {
        "pages:home:title": null,
        "pages:about:body": null,
        "pages:odd:title": null,
      },
    );
  } finally {
    console.error = error;
  }
});
