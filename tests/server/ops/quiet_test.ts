/**
 * Silent by default: a host that sets no logger sees nothing on stdout or
 * stderr for 2xx and 4xx answers (20 saves, an upload, refusals), and one
 * stderr line with the request id for a 5xx. Run in a child process, so
 * the real streams are what is checked.
 *
 * @module
 */
import assert from "node:assert/strict";

Deno.test("quiet: default options print nothing for 20 saves, an upload and refusals; a 500 prints one line with its id", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cms-quiet-" });
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../fixtures/quiet_app.ts", import.meta.url).pathname,
        `${dir}/result.json`,
      ],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    const err = dec.decode(stderr);
    assert.equal(code, 0, err);
    const result = JSON.parse(await Deno.readTextFile(`${dir}/result.json`));
    assert.deepEqual(result.statuses, [...Array(20).fill(204), 200]);
    assert.deepEqual(result.refused, [403, 400, 400]);
    assert.equal(result.failed, 500);
    assert.equal(dec.decode(stdout), "");
    const lines = err.split("\n").filter((l) => l !== "");
    assert.equal(lines.length, 1, err);
    assert.ok(lines[0].includes(result.requestId), lines[0]);
    assert.match(lines[0], /500/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
