/**
 * The demo keeps you signed in: without a password option (the CLI's
 * `CMS_EDITOR_PASSWORD`), the generated password is written once into the
 * data folder (owner-only) and reused, so a restart keeps the sessions.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/main.ts";
import { login } from "../helpers/demo.ts";

Deno.test("demo: the generated password is kept in the data folder (0600) and a restart keeps the session", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cms-demo-pw-" });
  try {
    const first = await startDemo({ port: 0, dataDir });
    let cookie: string;
    try {
      cookie = await login(first.url, first.password);
    } finally {
      await first.close();
    }
    const file = `${dataDir}/editor-password`;
    assert.equal((await Deno.readTextFile(file)).trim(), first.password);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.ok(first.password.length >= 16);

    const second = await startDemo({ port: 0, dataDir });
    try {
      assert.equal(second.password, first.password);
      // The session from before the restart still edits.
      const res = await fetch(`${second.url}/?edit`, { headers: { cookie } });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /data-cms-field=/);
    } finally {
      await second.close();
    }

    // A given password wins and leaves the file alone.
    const third = await startDemo({ port: 0, dataDir, password: "chosen-pw" });
    try {
      assert.equal(third.password, "chosen-pw");
      assert.equal((await Deno.readTextFile(file)).trim(), first.password);
    } finally {
      await third.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
