/**
 * Starts a throwaway PostgreSQL from Debian's binaries for a test file:
 * `initdb` in a temp folder as a non-root user, 127.0.0.1 on a free port,
 * durability off (it is thrown away), stopped and removed by `close()`.
 *
 * @module
 */
import { freePort } from "./serve.ts";
import postgres from "postgres";
import { HAS_POSTGRES, INSTALL_COMMAND } from "./skips.ts";

/** Whether PostgreSQL is installed: give its tests `ignore: !HAS_POSTGRES`. */
export { HAS_POSTGRES };

/** A running PostgreSQL. */
export interface PostgresHandle extends AsyncDisposable {
  /** URL of the `postgres` database, e.g. `postgres://cms@127.0.0.1:5555/postgres`. */
  url: string;
  /** Creates a fresh, empty database and returns its URL. */
  database(): Promise<string>;
  /** Stops the server and removes its folder. */
  close(): Promise<void>;
}

/** Where Debian puts the server binaries (the newest installed version). */
async function binDir(): Promise<string> {
  const versions: number[] = [];
  for await (const e of Deno.readDir("/usr/lib/postgresql")) {
    if (/^\d+$/.test(e.name)) versions.push(Number(e.name));
  }
  if (!versions.length) {
    throw new Error(
      `PostgreSQL is not installed (${INSTALL_COMMAND}, or apt-get install postgresql)`,
    );
  }
  return `/usr/lib/postgresql/${Math.max(...versions)}/bin`;
}

/** Runs a server binary, as `postgres` when we are root (initdb refuses root). */
async function run(bin: string, args: string[]): Promise<void> {
  const root = Deno.uid() === 0;
  const cmd = root ? "runuser" : bin;
  const out = await new Deno.Command(cmd, {
    args: root ? ["-u", "postgres", "--", bin, ...args] : args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr);
    throw new Error(`${bin} failed: ${err.trim()}`);
  }
}

let counter = 0;

/** Starts PostgreSQL; always `close()` it (or `await using`). */
export async function startPostgres(): Promise<PostgresHandle> {
  const bin = await binDir();
  const dir = await Deno.makeTempDir({ prefix: "cms-pg-" });
  if (Deno.uid() === 0) {
    const pw = await new Deno.Command("id", { args: ["-u", "postgres"] })
      .output();
    const gid = await new Deno.Command("id", { args: ["-g", "postgres"] })
      .output();
    const num = (o: Deno.CommandOutput) =>
      Number(new TextDecoder().decode(o.stdout));
    await Deno.chown(dir, num(pw), num(gid));
  }
  const data = `${dir}/data`;
  let started = false;
  const close = async () => {
    try {
      if (started) {
        await run(`${bin}/pg_ctl`, [
          "-D",
          data,
          "-m",
          "immediate",
          "-w",
          "stop",
        ]);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  };
  try {
    await run(`${bin}/initdb`, [
      "-D",
      data,
      "-U",
      "cms",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
      "--no-instructions",
    ]);
    const port = freePort();
    const opts = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${dir}`,
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=200",
    ].join(" ");
    started = true;
    await run(`${bin}/pg_ctl`, [
      "-D",
      data,
      "-o",
      opts,
      "-l",
      `${dir}/log`,
      "-w",
      "-t",
      "30",
      "start",
    ]);
    const url = `postgres://cms@127.0.0.1:${port}/postgres`;
    return {
      url,
      async database() {
        const name = `t${++counter}_${Date.now().toString(36)}`;
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          await sql.unsafe(`CREATE DATABASE ${name}`);
        } finally {
          await sql.end();
        }
        return `postgres://cms@127.0.0.1:${port}/${name}`;
      },
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * A `postgres` client on a fresh database of `pg` (10 connections); on a
 * failure to connect, `pg` is closed before the error is thrown.
 *
 * @example
 * ```ts ignore
 * const pg = await startPostgres();
 * const sql = await connectFresh(pg);
 * ```
 */
export async function connectFresh(pg: PostgresHandle): Promise<postgres.Sql> {
  try {
    return postgres(await pg.database(), { max: 10, onnotice: () => {} });
  } catch (err) {
    await pg.close();
    throw err;
  }
}
