/**
 * A small model of Fresh 2.3's request pipeline, written from reading
 * Fresh's public source (`packages/fresh/src/app.ts`, `router.ts`,
 * `commands.ts`, `segments.ts`, `fs_routes.ts`, `middlewares/mod.ts`,
 * `middlewares/csrf.ts`). Fresh itself can't be installed here (JSR is not
 * reachable), so the Fresh wrappers are tested through this model. It keeps
 * only what the wrappers meet:
 *
 * - `trustProxy` rewrites `ctx.url` from `X-Forwarded-Proto` and
 *   `X-Forwarded-Host` with the URL setters, so a forwarded host without a
 *   port keeps the internal port (`https://example.com:8000`).
 * - Doubled slashes in the path are collapsed before routing.
 * - Middlewares run in order; each calls `ctx.next()`. Root middlewares run
 *   even when no route matches or the method doesn't.
 * - File routes (`fsRoute`) are registered for all seven methods. A
 *   per-method `handler` object lacking the request's method calls
 *   `ctx.next()`, which ends in 404. A catch-all function handler sees
 *   every method. A function handler declaring more than one parameter is
 *   refused when the route is loaded.
 * - Method routes (`app.post()`, …) answer other methods 405 without
 *   `Allow`; OPTIONS gets 204 with `Allow` from Fresh's default handler.
 * - HEAD falls back to the GET handler, and the body is dropped.
 * - A thrown `HttpError` becomes a plain-text answer with its status; any
 *   other error becomes 500 "Internal server error".
 * - `csrf()` follows Fresh's rules: safe methods pass; with
 *   `Sec-Fetch-Site`, `same-origin`/`none` or an allowed `Origin` pass;
 *   without it, no `Origin` passes and an allowed one passes; else 403.
 *   With no `origin` option, allowed means `ctx.url.origin`.
 *
 * @module
 */

/** The methods Fresh 2.3's router knows. */
export const FRESH_METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PATCH",
  "PUT",
  "DELETE",
  "OPTIONS",
] as const;

/** One of {@linkcode FRESH_METHODS}. */
export type Method = typeof FRESH_METHODS[number];

/** Fresh's `HttpError`: thrown by middlewares, answered in one place. */
export class HttpError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** Creates an error with a status and an optional message. */
  constructor(status: number, message?: string) {
    super(message);
    this.name = "HttpError";
    this.status = status;
  }
}

/** The parts of Fresh's `Context` the model fills in. */
export interface Ctx<State> {
  /** The incoming request. */
  readonly req: Request;
  /** The request URL, rewritten from X-Forwarded-* when `trustProxy`. */
  readonly url: URL;
  /** The matched route pattern, or `null`. */
  readonly route: string | null;
  /** Route parameters. */
  readonly params: Record<string, string>;
  /** Per-request state. */
  readonly state: State;
  /** The app's config. */
  readonly config: { trustProxy: boolean };
  /** Runs the rest of the chain. */
  next: () => Promise<Response>;
}

/** A Fresh middleware or handler function. */
export type Middleware<State> = (
  ctx: Ctx<State>,
) => Response | Promise<Response>;

/** What a route file exports as `handler`: a function or a method object. */
export type RouteHandler<State> =
  | Middleware<State>
  | Partial<Record<Method, Middleware<State>>>;

const STATUS_TEXT: Record<number, string> = {
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
};

const notFound = (): Promise<Response> => {
  throw new HttpError(404);
};
const notAllowed = (): Promise<Response> => {
  throw new HttpError(405);
};

/** Runs `fns` in order; the last one's `ctx.next()` is the chain's tail. */
function compile<State>(fns: Middleware<State>[]): Middleware<State> {
  return (ctx) => {
    const tail = ctx.next;
    const step = async (i: number): Promise<Response> => {
      if (i === fns.length) return await tail();
      ctx.next = () => step(i + 1);
      return await fns[i](ctx);
    };
    return step(0);
  };
}

interface RouteDef<State> {
  pattern: URLPattern;
  path: string;
  byMethod: Map<Method, Middleware<State>>;
}

/**
 * An App-like router: `use()`, method routes, file routes, `handler()`.
 *
 * @example
 * ```ts
 * const app = new FreshModelApp<{ user?: string }>({ trustProxy: true });
 * app.use(csrf());
 * app.fsRoute("/api/cms/save", { handler: (ctx) => new Response(ctx.url.origin) });
 * const res = await app.handler()(new Request("http://127.0.0.1:8000/api/cms/save"));
 * ```
 */
export class FreshModelApp<State> {
  /** The resolved config. */
  readonly config: { trustProxy: boolean };
  #middlewares: { prefix: string; fn: Middleware<State> }[] = [];
  #routes: RouteDef<State>[] = [];

  /** Creates an app; `trustProxy` defaults to `false`, as in Fresh. */
  constructor(config: { trustProxy?: boolean } = {}) {
    this.config = { trustProxy: config.trustProxy ?? false };
  }

  /** Adds middlewares for every path, or for paths under `prefix`. */
  use(
    first: string | Middleware<State>,
    ...fns: Middleware<State>[]
  ): this {
    const prefix = typeof first === "string" ? first : "/";
    if (typeof first !== "string") fns.unshift(first);
    for (const fn of fns) this.#middlewares.push({ prefix, fn });
    return this;
  }

  /** `app.post(path, fn)` and friends: one method, others get 405. */
  on(method: Method, path: string, fn: Middleware<State>): this {
    this.#add([method], path, fn);
    return this;
  }

  /**
   * A file route: what `routes/<path>.ts` exporting `handler` becomes. Fresh
   * loads file routes lazily and registers them for every method.
   */
  fsRoute(path: string, mod: { handler: RouteHandler<State> }): this {
    const { handler } = mod;
    if (typeof handler === "function" && handler.length > 1) {
      throw new Error(
        "Handlers must only have one argument but found more than one.",
      );
    }
    const render: Middleware<State> = (ctx) => {
      const method = ctx.req.method.toUpperCase() as Method;
      if (typeof handler === "function") return handler(ctx);
      const fn = handler[method] ??
        (method === "HEAD" ? handler.GET : undefined);
      return fn ? fn(ctx) : ctx.next();
    };
    this.#add(FRESH_METHODS, path, render);
    return this;
  }

  #add(methods: readonly Method[], path: string, fn: Middleware<State>) {
    let def = this.#routes.find((r) => r.path === path);
    if (!def) {
      def = {
        pattern: new URLPattern({ pathname: path }),
        path,
        byMethod: new Map(),
      };
      this.#routes.push(def);
    }
    for (const m of methods) if (!def.byMethod.has(m)) def.byMethod.set(m, fn);
  }

  #chainFor(path: string | null): Middleware<State>[] {
    return this.#middlewares
      .filter(({ prefix }) =>
        prefix === "/" ||
        (path !== null && (path === prefix || path.startsWith(prefix + "/")))
      )
      .map(({ fn }) => fn);
  }

  /** The `(Request) => Promise<Response>` handler, as `app.handler()`. */
  handler(): (req: Request) => Promise<Response> {
    return async (req) => {
      const url = new URL(req.url);
      url.pathname = url.pathname.replace(/\/+/g, "/");
      if (this.config.trustProxy) {
        const proto = req.headers.get("x-forwarded-proto");
        if (proto) url.protocol = proto + ":";
        const host = req.headers.get("x-forwarded-host");
        if (host) url.host = host;
      }
      const method = req.method.toUpperCase() as Method;
      const def = this.#routes.find((r) => r.pattern.test(url));
      let item = def?.byMethod.get(method) ??
        (method === "HEAD" ? def?.byMethod.get("GET") : undefined);
      const params = item && def
        ? Object.fromEntries(
          Object.entries(def.pattern.exec(url)?.pathname.groups ?? {})
            .map(([k, v]) => [k, v ?? ""]),
        )
        : {};
      let next: () => Promise<Response> = notFound;
      if (def && !item) {
        next = method === "OPTIONS"
          ? () =>
            Promise.resolve(
              new Response(null, {
                status: 204,
                headers: { Allow: [...def.byMethod.keys()].join(", ") },
              }),
            )
          : notAllowed;
      }
      const fns = this.#chainFor(item && def ? def.path : null);
      if (item) fns.push(item);
      item = compile(fns);
      const ctx: Ctx<State> = {
        req,
        url,
        route: def?.path ?? null,
        params,
        state: {} as State,
        config: this.config,
        next,
      };
      try {
        const res = await item(ctx);
        return method === "HEAD" ? new Response(null, res) : res;
      } catch (err) {
        if (err instanceof HttpError) {
          return new Response(
            err.message || STATUS_TEXT[err.status] || "Error",
            { status: err.status },
          );
        }
        return new Response("Internal server error", { status: 500 });
      }
    };
  }
}

/** Options of {@linkcode csrf}, as Fresh's. */
export interface CsrfOptions<State> {
  /** Allowed origin(s), or a predicate. Default: `ctx.url.origin`. */
  origin?: string | string[] | ((origin: string, ctx: Ctx<State>) => boolean);
}

/** Fresh's `csrf()` middleware, per its rules. */
export function csrf<State>(
  options: CsrfOptions<State> = {},
): Middleware<State> {
  const allowed = (origin: string | null, ctx: Ctx<State>): boolean => {
    if (origin === null) return false;
    const opt = options.origin;
    if (!opt) return origin === ctx.url.origin;
    if (typeof opt === "string") return origin === opt;
    if (typeof opt === "function") return opt(origin, ctx);
    return opt.includes(origin);
  };
  return async (ctx) => {
    const { method, headers } = ctx.req;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") {
      return await ctx.next();
    }
    const site = headers.get("Sec-Fetch-Site");
    const origin = headers.get("Origin");
    if (site !== null) {
      if (site === "same-origin" || site === "none" || allowed(origin, ctx)) {
        return await ctx.next();
      }
      throw new HttpError(403);
    }
    if (origin === null || allowed(origin, ctx)) return await ctx.next();
    throw new HttpError(403);
  };
}
