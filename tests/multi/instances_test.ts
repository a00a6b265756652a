/**
 * Several instances at once: three demo processes (`deno run demo/main.ts`)
 * on one PostgreSQL and one S3 server (s3rver). Twenty rounds of concurrent
 * saves to different fields across instances, plus conflicting saves to one
 * field: no lost update, every conflict 409, revision counts equal to
 * accepted saves, one session valid on every instance.
 */
import assert from "node:assert/strict";
import { samplePng } from "../../demo/sample_image.ts";
import {
  DEMO_PASSWORD as PASSWORD,
  type DemoProcess,
  editorHeaders,
  fieldVersion,
  login,
  revisions,
  spawnDemo,
  stopDemo,
} from "../helpers/demo.ts";
import { HAS_POSTGRES, startPostgres } from "../helpers/postgres.ts";
import { startS3rver } from "../helpers/s3rver.ts";

const ROUNDS = 20;
const INSTANCES = 3;

interface Instance extends DemoProcess {
  dir: string;
}

/** Starts a demo process on its own data folder. */
async function spawn(env: Record<string, string>): Promise<Instance> {
  const dir = await Deno.makeTempDir({ prefix: "cms-multi-" });
  try {
    return { ...await spawnDemo({ ...env, CMS_DATA_DIR: dir }), dir };
  } catch (err) {
    await Deno.remove(dir, { recursive: true });
    throw err;
  }
}

async function stop(instance: Instance) {
  await stopDemo(instance);
  await Deno.remove(instance.dir, { recursive: true });
}

async function save(
  url: string,
  cookie: string,
  field: string,
  value: string,
  version?: string,
) {
  const res = await fetch(`${url}/api/cms/save`, {
    method: "PATCH",
    headers: editorHeaders(url, cookie),
    body: JSON.stringify({
      collection: "pages",
      key: "home",
      field,
      value,
      version,
    }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test(
  "3 instances on one PostgreSQL and one S3: no lost update, conflicts 409, history complete",
  { ignore: !HAS_POSTGRES },
  async () => {
    await using pg = await startPostgres();
    await using s3 = await startS3rver();
    const env = {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      DENO_DIR: Deno.env.get("DENO_DIR") ?? "",
      CMS_DATABASE_URL: await pg.database(),
      CMS_EDITOR_PASSWORD: PASSWORD,
      CMS_S3_BUCKET: s3.bucket,
      CMS_S3_ENDPOINT: s3.endpoint,
      CMS_S3_ACCESS_KEY_ID: s3.accessKeyId,
      CMS_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      CMS_S3_PATH_STYLE: "true",
    };
    if (!env.DENO_DIR) delete (env as Record<string, string>).DENO_DIR;
    const instances: Instance[] = [];
    try {
      // One after another: the first one creates the tables and seeds.
      for (let i = 0; i < INSTANCES; i++) instances.push(await spawn(env));
      const urls = instances.map((x) => x.url);

      // Sign in on instance 0; the session works on every instance.
      const cookie = await login(urls[0]);

      // Media through instance 2 lands in the one S3 bucket.
      const upload = await fetch(`${urls[2]}/api/cms/media`, {
        method: "POST",
        headers: {
          ...editorHeaders(urls[2], cookie),
          "Content-Type": "image/png",
        },
        body: await samplePng(20, 10),
      });
      assert.equal(upload.status, 200);
      const media = await upload.json();
      const object = await fetch(media.url);
      await object.body?.cancel();
      assert.equal(object.status, 200);

      const accepted = new Map<string, number>();
      const count = (field: string) =>
        accepted.set(field, (accepted.get(field) ?? 0) + 1);
      let titleVersion: string | undefined;
      let conflicts = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const base = titleVersion;
        const results = await Promise.all(urls.flatMap((url, i) => [
          // Different fields (list items of one record) on each instance.
          save(url, cookie, `features.${i}`, `r${round} i${i}`).then((s) => {
            assert.equal(s, 204, `features.${i} round ${round}`);
            count(`features.${i}`);
          }),
          // The same field from every instance, all based on one version.
          save(url, cookie, "title", `title r${round} i${i}`, base).then(
            (s) => {
              assert.ok(s === 204 || s === 409, `title: ${s}`);
              if (s === 204) count("title");
              else conflicts++;
              return s;
            },
          ),
        ]));
        const titles = results.filter((s) => typeof s === "number");
        if (round === 0) {
          // No version yet: nothing to conflict with, all three are saved.
          assert.deepEqual(titles.sort(), [204, 204, 204]);
        } else {
          assert.deepEqual(titles.sort(), [204, 409, 409], `round ${round}`);
        }
        // The next round's base is the version of the write committed last,
        // read back from the store: the answer that arrived last may belong
        // to an earlier commit.
        titleVersion = await fieldVersion(
          urls[round % INSTANCES],
          cookie,
          "title",
        );
        // No lost update: every instance reads every item of this round.
        for (const url of urls) {
          const page = await (await fetch(`${url}/`)).text();
          for (let i = 0; i < INSTANCES; i++) {
            assert.ok(
              page.includes(`r${round} i${i}`),
              `${url} round ${round}`,
            );
          }
        }
      }
      assert.equal(conflicts, 2 * (ROUNDS - 1));

      // Revision counts equal accepted saves (plus the seeded value, kept
      // once as the value from before history began), on every instance.
      for (const field of ["title", "features.0", "features.1", "features.2"]) {
        for (const url of urls) {
          const revs = await revisions(url, cookie, field);
          const byEditors = revs.filter((r) => r.editor !== null).length;
          assert.equal(byEditors, accepted.get(field), `${field} on ${url}`);
          assert.equal(revs.length - byEditors, 1);
        }
      }
      console.log(
        `${INSTANCES} instances, ${ROUNDS} rounds: ${
          [...accepted.values()].reduce((a, b) => a + b)
        } saves accepted, ${conflicts} conflicts (409), 0 lost`,
      );
    } finally {
      await Promise.all(instances.map(stop));
    }
  },
);
