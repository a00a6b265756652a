/** Serves a handler on 127.0.0.1 on a free port for the length of a test. */

/** A running test server. */
export interface TestServer {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Stops the server and waits for it to finish. */
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1, port chosen by the OS. */
export function serve(
  handler: (req: Request) => Response | Promise<Response>,
): TestServer {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => server.shutdown(),
  };
}

/**
 * Sends `request` (raw bytes: request line, headers, body) to 127.0.0.1 on
 * `port` and returns the answer's status code (0 when none came). For what
 * `fetch` will not send: malformed `Host` headers and request targets.
 */
export async function rawStatus(
  port: number,
  request: string,
): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(request));
    const buf = new Uint8Array(16 * 1024);
    let text = "";
    for (let i = 0; i < 1000 && !text.includes("\r\n"); i++) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  } finally {
    conn.close();
  }
}

/** A port on 127.0.0.1 that the OS says is free right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Signs in through a password form at `${base}/login` (303 with a session
 * cookie, as the README quick start and `examples/hono` answer), then reads
 * `/?edit`: the cookie, the page, and the title marker's version.
 */
export async function formLoginAndEdit(
  base: string,
  password: string,
): Promise<{ cookie: string; page: string; version: string }> {
  const login = await fetch(`${base}/login`, {
    method: "POST",
    body: new URLSearchParams({ password }),
    redirect: "manual",
  });
  await login.body?.cancel();
  if (login.status !== 303) throw new Error(`login answered ${login.status}`);
  const cookie = login.headers.get("Set-Cookie")!.split(";")[0];
  const page = await (await fetch(`${base}/?edit`, { headers: { cookie } }))
    .text();
  const version = page.match(
    /data-cms-field="pages:home:title" data-cms-version="(\w+)"/,
  )?.[1];
  if (!version) throw new Error(`no title marker in edit mode:\n${page}`);
  return { cookie, page, version };
}
