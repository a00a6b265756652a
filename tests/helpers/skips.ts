/**
 * What the test run needs from the machine, whether it is there, and the
 * report `deno task test` prints when some of it is not: the browser
 * engines (Chromium, Firefox ESR, WebKitGTK under Xvfb) and PostgreSQL.
 * Tests that need one of them are ignored where it is missing (browser
 * tests are registered only for the engines found); the run then names
 * what it skipped and the one command that installs it all, instead of
 * passing quietly with fewer tests.
 *
 * `CMS_TEST_MISSING=postgresql,webkit` makes the detection treat those as
 * not installed (to see the report, or a run without them, on a machine
 * that has them).
 *
 * @module
 */

/** Something the tests start when it is installed. */
export type Requirement = "chromium" | "firefox" | "webkit" | "postgresql";

/** The one command that installs everything the tests can start. */
export const INSTALL_COMMAND = "sudo .ci/install";

/** Paths the detection looks at, overridable as the browser driver's are. */
const PATHS = {
  chromium: () => Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium",
  firefox: () => Deno.env.get("FIREFOX_PATH") ?? "/usr/bin/firefox-esr",
  minibrowser: () =>
    Deno.env.get("MINIBROWSER_PATH") ??
      "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
};

/** What each requirement is, for the report. */
const NAMES: Record<Requirement, string> = {
  chromium: "Chromium (browser tests)",
  firefox: "Firefox ESR (browser tests)",
  webkit: "WebKitGTK with WebKitWebDriver and Xvfb (browser tests)",
  postgresql: "PostgreSQL (store, history, drafts and multi-instance tests)",
};

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Requirements `CMS_TEST_MISSING` says to treat as not installed. */
function forcedMissing(): string[] {
  return (Deno.env.get("CMS_TEST_MISSING") ?? "").split(",")
    .map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/** Whether PostgreSQL's server binaries (Debian's layout) are installed. */
function postgresOnDisk(): boolean {
  try {
    for (const e of Deno.readDirSync("/usr/lib/postgresql")) {
      if (
        /^\d+$/.test(e.name) &&
        exists(`/usr/lib/postgresql/${e.name}/bin/initdb`)
      ) {
        return true;
      }
    }
  } catch { /* no folder: not installed */ }
  return false;
}

/** Whether `what` is installed here (and not hidden by `CMS_TEST_MISSING`). */
export function installed(what: Requirement): boolean {
  if (forcedMissing().includes(what)) return false;
  switch (what) {
    case "chromium":
      return exists(PATHS.chromium());
    case "firefox":
      return exists(PATHS.firefox());
    case "webkit":
      return exists(PATHS.minibrowser()) &&
        exists("/usr/bin/WebKitWebDriver") && exists("/usr/bin/Xvfb");
    case "postgresql":
      return postgresOnDisk();
  }
}

/** Whether PostgreSQL tests can run: `ignore: !HAS_POSTGRES` on the others. */
export const HAS_POSTGRES: boolean = installed("postgresql");

/** Every requirement not installed here. */
export function missing(): Requirement[] {
  const all: Requirement[] = ["chromium", "firefox", "webkit", "postgresql"];
  return all.filter((r) => !installed(r));
}

/**
 * The lines `deno task test` prints after the run: what it skipped and the
 * command that installs it; `null` when nothing was skipped. Engines left
 * out on purpose with `CMS_ENGINES` are named as such, not as missing.
 */
export function skipReport(
  absent: Requirement[] = missing(),
  engines: string | undefined = Deno.env.get("CMS_ENGINES"),
): string | null {
  const lines: string[] = [];
  if (absent.length) {
    lines.push(
      "Skipped: these are not installed, so their tests did not run:",
      ...absent.map((r) => `  - ${NAMES[r]}`),
      `Install them all (Debian or Ubuntu) with: ${INSTALL_COMMAND}`,
      "(or run .ci/run, which installs them and runs every test).",
    );
  }
  if (engines) {
    lines.push(`Browser tests ran only in: ${engines} (CMS_ENGINES).`);
  }
  return lines.length ? lines.join("\n") : null;
}
