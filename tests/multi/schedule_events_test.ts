/**
 * A schedule fired on one instance tells editors on another: two demo
 * processes (`CMS_PUBLISH=draft`) on one PostgreSQL. Instance A fires (it
 * polls often; B looks only at start), an editor's stream on B gets
 * `published`, `drafts` and `schedule`; a schedule that fails on A comes
 * to B as a failed `schedule` event, with its reason in B's listing.
 */
import assert from "node:assert/strict";
import type { ScheduleListing } from "../../core/protocol/mod.ts";
import {
  type DemoProcess,
  draftDemoEnv,
  editorHeaders,
  login,
  spawnDemo,
  stopDemo,
} from "../helpers/demo.ts";
import { HAS_POSTGRES, startPostgres } from "../helpers/postgres.ts";
import { openEvents, type SseEvent, type SseStream } from "../helpers/sse.ts";

const TITLE = "pages:home:title";
const data = (e: SseEvent) => JSON.parse(e.data);

Deno.test(
  "a schedule fired on instance A shows at an editor's stream on instance B (PostgreSQL)",
  { ignore: !HAS_POSTGRES },
  async () => {
    await using pg = await startPostgres();
    const databaseUrl = await pg.database();
    const dirs: string[] = [];
    const sites: DemoProcess[] = [];
    let stream: SseStream | undefined;
    try {
      // A fires; B's scheduler looks only at its start (a poll of 10 min).
      for (const poll of ["50", "600000"]) {
        const dir = await Deno.makeTempDir({ prefix: "cms-sched-events-" });
        dirs.push(dir);
        sites.push(
          await spawnDemo(
            draftDemoEnv({
              CMS_DATABASE_URL: databaseUrl,
              CMS_DATA_DIR: dir,
              CMS_SCHEDULE_POLL_MS: poll,
            }),
            { clearEnv: true, stderr: "null" },
          ),
        );
      }
      const [a, b] = sites;
      const cookie = await login(a.url);
      const post = async (path: string, method: string, body: unknown) => {
        const res = await fetch(`${a.url}/api/cms/${path}`, {
          method,
          headers: editorHeaders(a.url, cookie),
          body: JSON.stringify(body),
        });
        return { status: res.status, text: await res.text() };
      };
      const save = (text: string) =>
        post("save", "PATCH", {
          collection: "pages",
          key: "home",
          field: "title",
          value: text,
        });
      const schedule = (body: object) =>
        post("publish", "POST", {
          at: new Date(Date.now() + 300).toISOString(),
          fields: [TITLE],
          ...body,
        });
      stream = await openEvents(
        `${b.url}/api/cms/events?page=/`,
        editorHeaders(b.url, cookie),
      );
      assert.equal(stream.res.status, 200);
      await stream.next((e) => e.event === "hello");

      assert.equal((await save("Launch day")).status, 204);
      await stream.next((e) =>
        e.event === "drafts" && data(e).fields.includes(TITLE)
      );
      const from = stream.events.length;
      const made = await schedule({});
      assert.equal(made.status, 202, made.text);
      const { id } = JSON.parse(made.text);
      const live = await stream.next(
        (e) => e.event === "published",
        10_000,
        from,
      );
      assert.deepEqual(data(live).fields, [TITLE]);
      assert.equal(data(live).by, "Editor");
      await stream.next(
        (e) => e.event === "drafts" && !data(e).fields.includes(TITLE),
        10_000,
        from,
      );
      const fired = await stream.next(
        (e) => e.event === "schedule",
        10_000,
        from,
      );
      assert.deepEqual(data(fired), { id, fields: [TITLE], failed: false });
      assert.match(await (await fetch(`${b.url}/`)).text(), /Launch day/);

      // A conflict: the draft changed after scheduling. B's editor hears of
      // it; B's listing has the reason; nothing went live.
      assert.equal((await save("Draft v1")).status, 204);
      const mark = stream.events.length;
      const bad = await schedule({ versions: { [TITLE]: "stale" } });
      assert.equal(bad.status, 202, bad.text);
      const badId = JSON.parse(bad.text).id;
      const failed = await stream.next(
        (e) => e.event === "schedule" && data(e).id === badId,
        10_000,
        mark,
      );
      assert.equal(data(failed).failed, true);
      assert.ok(
        !stream.events.slice(mark).some((e) => e.event === "published"),
      );
      const res = await fetch(`${b.url}/api/cms/schedule`, {
        headers: editorHeaders(b.url, cookie),
      });
      const listing: ScheduleListing = await res.json();
      const entry = listing.schedules.find((s) => s.id === badId);
      assert.equal(entry?.state, "failed");
      assert.match(entry?.reason ?? "", /Conflict/);

      // Both firings were A's.
      stream.close();
      stream = undefined;
      await Promise.all(sites.map((s) => stopDemo(s)));
      const [logA, logB] = await Promise.all(sites.map((s) => s.output));
      assert.match(logA, /"msg":"schedule published"/);
      assert.match(logA, /"msg":"schedule failed"/);
      assert.doesNotMatch(logB, /"msg":"schedule (published|failed)"/);
    } finally {
      stream?.close();
      await Promise.all(sites.map((s) => stopDemo(s, "SIGKILL")));
      for (const dir of dirs) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
);
