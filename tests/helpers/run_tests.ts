/**
 * `deno task test`: runs `deno test -A` with the arguments given (files,
 * `--filter`, …), then says what it skipped because the machine lacks it
 * (browsers, PostgreSQL) and the one command that installs it. Exits with
 * the test run's status.
 *
 * @module
 */
import { skipReport } from "./skips.ts";

const child = new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", ...Deno.args],
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
const { code } = await child.status;
const report = skipReport();
if (report) console.log(`\n${report}`);
Deno.exit(code);
