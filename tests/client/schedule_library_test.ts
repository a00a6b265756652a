/**
 * The DOM-free parts of the editor's scheduling and media library chunks:
 * local time ↔ UTC in real time zones (child processes with `TZ`), the
 * schedule body, the schedule model's marks, and the library model's
 * search, paging, keyboard moves and reuse attributes.
 */
import assert from "node:assert/strict";
import {
  defaultTime,
  localToUtc,
  scheduleBody,
  ScheduleModel,
} from "../../client/schedule.ts";
import {
  LibraryModel,
  libraryUrl,
  reuseAttrs,
} from "../../client/media_library.ts";
import type { MediaLibraryItem } from "../../core/protocol/mod.ts";

/** `localToUtc` of each value, run in a process whose zone is `tz`. */
async function inZone(tz: string, values: string[]): Promise<unknown[]> {
  const mod = new URL("../../client/schedule.ts", import.meta.url).href;
  const code = `import { localToUtc, utcToLocal } from ${JSON.stringify(mod)};
    const values = ${JSON.stringify(values)};
    console.log(JSON.stringify(values.map((v) => {
      const utc = localToUtc(v);
      return [utc, utc && utcToLocal(Date.parse(utc))];
    })));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    env: { TZ: tz },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(out.success);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("publish at: the editor's local time is sent in UTC", async () => {
  assert.deepEqual(
    await inZone("Europe/Berlin", [
      "2030-07-01T09:00", // summer time, UTC+2
      "2030-01-15T09:30", // winter time, UTC+1
      "2030-03-31T02:30", // skipped by the spring change
      "2030-13-01T09:00",
      "",
    ]),
    [
      ["2030-07-01T07:00:00.000Z", "2030-07-01T09:00"],
      ["2030-01-15T08:30:00.000Z", "2030-01-15T09:30"],
      [null, null],
      [null, null],
      [null, null],
    ],
  );
  assert.deepEqual(await inZone("America/New_York", ["2030-01-01T09:00"]), [
    ["2030-01-01T14:00:00.000Z", "2030-01-01T09:00"],
  ]);
  assert.deepEqual(await inZone("Asia/Kolkata", ["2030-01-01T09:00"]), [
    ["2030-01-01T03:30:00.000Z", "2030-01-01T09:00"],
  ]);
});

Deno.test("publish at: body, default time", () => {
  const now = Date.parse("2030-01-01T09:55:00Z");
  assert.equal(
    new Date(defaultTime(now)).toISOString(),
    "2030-01-01T11:00:00.000Z",
  );
  assert.equal(
    new Date(defaultTime(Date.parse("2030-01-01T09:40:00Z"))).toISOString(),
    "2030-01-01T10:00:00.000Z",
  );
  assert.equal(scheduleBody([], {}, "2031-01-01T09:00", now), "noDrafts");
  assert.equal(scheduleBody(["a:b:c"], {}, "", now), "badTime");
  assert.equal(scheduleBody(["a:b:c"], {}, "2020-01-01T09:00", now), "badTime");
  const body = scheduleBody(
    ["a:b:c"],
    { "a:b:c": "v1" },
    "2031-01-01T09:00",
    now,
  );
  assert.ok(typeof body === "object");
  assert.deepEqual(body.fields, ["a:b:c"]);
  assert.deepEqual(body.versions, { "a:b:c": "v1" });
  assert.equal(body.at, localToUtc("2031-01-01T09:00"));
});

Deno.test("schedule model: marks the soonest pending schedule per field", () => {
  const model = new ScheduleModel();
  const entry = (id: string, at: string, fields: string[], failed = false) => ({
    id,
    at,
    fields,
    editor: "Ada",
    created: at,
    state: failed ? "failed" as const : "pending" as const,
    reason: failed ? "Conflict" : undefined,
  });
  model.set({
    schedules: [
      entry("late", "2030-02-01T00:00:00Z", ["p:h:title", "p:h:body"]),
      entry("soon", "2030-01-01T00:00:00Z", ["p:h:title"]),
      entry("bad", "2029-01-01T00:00:00Z", ["p:h:hero"], true),
    ],
  });
  assert.deepEqual(model.schedules.map((s) => s.id), ["bad", "soon", "late"]);
  const marks = model.marks();
  assert.equal(marks.get("p:h:title")?.id, "soon");
  assert.equal(marks.get("p:h:body")?.id, "late");
  assert.equal(marks.has("p:h:hero"), false);
  // A failed schedule stays listed (with its reason) until dismissed.
  assert.deepEqual(
    model.schedules.filter((s) => s.state === "failed").map((s) => s.reason),
    ["Conflict"],
  );
  model.added(
    { id: "new", at: "2029-06-01T00:00:00Z", fields: ["p:h:hero"] },
    "Bo",
  );
  assert.equal(model.marks().get("p:h:hero")?.id, "new");
  model.remove("soon");
  assert.equal(model.marks().get("p:h:title")?.id, "late");
});

const item = (key: string, alts: string[] = []): MediaLibraryItem => ({
  key,
  name: key,
  url: `/media/${key}`,
  size: 10,
  variants: [],
  uploaded: "2030-01-01T00:00:00Z",
  uploader: null,
  alts,
  used: false,
});

Deno.test("library model: search, pages, keyboard moves", () => {
  const model = new LibraryModel();
  const key = () => model.current?.key;
  assert.equal(key(), undefined);
  model.move(1); // nothing to move through
  assert.equal(model.active, -1);
  model.search("  sun ");
  assert.equal(model.query, "sun");
  model.add({ uploads: [item("a.jpg"), item("b.jpg")], next: "2", total: 3 });
  assert.equal(key(), "a.jpg");
  model.move(1);
  model.move(1);
  assert.equal(key(), "b.jpg"); // clamped
  model.add({ uploads: [item("c.jpg")], next: null, total: 3 });
  assert.equal(key(), "b.jpg"); // a new page keeps the highlight
  model.move(Infinity);
  assert.equal(key(), "c.jpg");
  model.move(-5);
  assert.equal(key(), "a.jpg");
  model.move(Infinity);
  model.move(-Infinity);
  assert.equal(key(), "a.jpg");
  assert.equal(model.next, null);
  model.search("x");
  assert.deepEqual([model.items, model.active, model.total], [[], -1, 0]);
});

Deno.test("library: URL, file name and the reused image's attributes", () => {
  assert.equal(
    libraryUrl("/api/cms/media/library", "sun set", "50", "http://x/page"),
    "http://x/api/cms/media/library?q=sun+set&cursor=50",
  );
  assert.equal(
    libraryUrl("library?x=1", "", null, "http://x/cms/"),
    "http://x/cms/library?x=1",
  );
  const attrs = reuseAttrs(
    {
      ...item("a.jpg"),
      variants: [
        { key: "a-480w.webp", url: "/media/a-480w.webp", size: 3, width: 480 },
        { key: "a-960w.webp", url: "/media/a-960w.webp", size: 5, width: 960 },
      ],
    },
    1200,
    800,
    "Sea",
  );
  assert.deepEqual(attrs, {
    src: "/media/a.jpg",
    width: "1200",
    height: "800",
    alt: "Sea",
    srcset:
      "/media/a-480w.webp 480w, /media/a-960w.webp 960w, /media/a.jpg 1200w",
    sizes: "(max-width: 1200px) 100vw, 1200px",
    loading: "lazy",
    decoding: "async",
  });
});
