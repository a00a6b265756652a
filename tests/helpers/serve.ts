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
