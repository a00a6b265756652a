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

/** A port on 127.0.0.1 that the OS says is free right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
