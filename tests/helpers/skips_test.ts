/**
 * `deno task test` on a machine without the browsers or PostgreSQL: the
 * tests that need them are ignored, and the run ends by naming what it
 * skipped and the command that installs it. `CMS_TEST_MISSING` stands in
 * for the missing installs.
 *
 * @module
 */
import assert from "node:assert/strict";
import { INSTALL_COMMAND, skipReport } from "./skips.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Runs `deno task test FILE` with `env` added; its exit code and output. */
async function taskTest(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "test", file],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code, out: dec.decode(stdout) + dec.decode(stderr) };
}

Deno.test("skips: the report names what is missing and the install command; nothing missing, no report", () => {
  assert.equal(skipReport([], undefined), null);
  const report = skipReport(["firefox", "postgresql"], undefined)!;
  assert.match(report, /Firefox ESR/);
  assert.match(report, /PostgreSQL/);
  assert.doesNotMatch(report, /Chromium|WebKit/);
  assert.ok(report.includes(INSTALL_COMMAND), report);
  assert.match(skipReport([], "webkit")!, /only in: webkit \(CMS_ENGINES\)/);
});

Deno.test("skips: CMS_TEST_MISSING hides an installed requirement", async () => {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { installed } from "${ROOT}tests/helpers/skips.ts";` +
      `console.log(installed("postgresql"), installed("chromium"));`,
    ],
    env: { CMS_TEST_MISSING: "postgresql,chromium" },
    stdout: "piped",
  }).output();
  assert.equal(code, 0);
  assert.equal(new TextDecoder().decode(stdout).trim(), "false false");
});

Deno.test("skips: deno task test without PostgreSQL and the browsers ignores their tests and says so", async () => {
  // A file with a PostgreSQL test and a KV one.
  const file = "tests/server/store/locale_migration_test.ts";
  const none = await taskTest(file, {
    CMS_TEST_MISSING: "postgresql,chromium,firefox,webkit",
  });
  assert.equal(none.code, 0, none.out);
  assert.match(
    none.out,
    /locales on a pre-locale PostgreSQL database \.\.\. ignored/,
  );
  assert.match(none.out, /1 ignored/);
  const report = none.out.slice(none.out.lastIndexOf("Skipped:"));
  for (const what of ["Chromium", "Firefox ESR", "WebKitGTK", "PostgreSQL"]) {
    assert.ok(report.includes(what), `${what} not named:\n${report}`);
  }
  assert.ok(report.includes(INSTALL_COMMAND), report);
});
