/**
 * Who calls a review endpoint: an editor with a session, or a reviewer
 * holding a review link's token (the `X-CMS-Review` header, else the
 * cookie the name endpoint sets). One front for every review endpoint: the
 * method, the site (origin and Host), then the session or the token, the
 * token's page and expiry, and a per-token rate limit.
 *
 * @module
 */
import { MAX_NAME_CHARS, REVIEW_HEADER } from "../../core/protocol/review.ts";
import { Status } from "../../core/protocol/mod.ts";
import {
  admitEditor,
  type Authorize,
  type Editor,
  type EndpointCall,
  HttpError,
  type OriginOptions,
} from "../http/mod.ts";
import type { PreviewSigner } from "../drafts/mod.ts";

/** The cookie that binds a reviewer's name to their review link. */
export const REVIEW_COOKIE = "cms_review";

/** An editor with a session. */
export interface EditorCaller {
  /** Kind. */
  kind: "editor";
  /** The editor as `authorize` returned them. */
  editor: Editor;
}

/** A reviewer holding a valid token for one page. */
export interface ReviewerCaller {
  /** Kind. */
  kind: "reviewer";
  /** The token (its page was checked). */
  token: string;
  /** The one page the token opens. */
  page: string;
  /** The name the reviewer gave on this link, if any. */
  name?: string;
}

/** Whoever calls: an editor, or a reviewer on one page. */
export type Caller = EditorCaller | ReviewerCaller;

/** What the front needs. */
export interface AccessOptions extends OriginOptions {
  /** The editor from the server-side session, or `null`. */
  authorize: Authorize;
  /** Checks review tokens (capability `review`). */
  signer: PreviewSigner;
}

/** Stands for "no session" in the shared front. */
const NOBODY: Editor = { name: "reviewer" };

/** Most tokens whose buckets are kept; the least recently used goes first. */
const MAX_TOKENS = 10_000;

/** Token buckets per review token: `perMinute` requests, refilled evenly. */
export class TokenRate {
  readonly #capacity: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /** Buckets of `perMinute` requests (at least 1). */
  constructor(perMinute: number) {
    this.#capacity = Math.max(1, Math.floor(perMinute));
  }

  /** Takes one request from `key`'s bucket: 0, or the ms to wait. */
  take(key: string, now = Date.now()): number {
    const perMs = this.#capacity / 60_000;
    const old = this.#buckets.get(key);
    const tokens = old
      ? Math.min(this.#capacity, old.tokens + (now - old.at) * perMs)
      : this.#capacity;
    this.#buckets.delete(key);
    this.#buckets.set(key, {
      tokens: tokens >= 1 ? tokens - 1 : tokens,
      at: now,
    });
    if (this.#buckets.size > MAX_TOKENS) {
      this.#buckets.delete(this.#buckets.keys().next().value!);
    }
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / perMs);
  }
}

/** The value of cookie `name` of `req` (the first, as browsers send it). */
function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("Cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      return part.slice(eq + 1).trim();
    }
  }
  return undefined;
}

/** The review cookie's token and name (`<token>.<base64url name>`). */
export function reviewCookie(
  req: Request,
): { token: string; name?: string } | null {
  const value = cookie(req, REVIEW_COOKIE);
  const m = value ? /^(\d+\.[\w-]+?)(?:\.([\w-]+))?$/.exec(value) : null;
  if (!m) return null;
  const name = m[2] === undefined ? undefined : decodeName(m[2]);
  return name === null ? { token: m[1] } : { token: m[1], name };
}

/** A cookie's name part as text, or `null` when it is not valid. */
function decodeName(part: string): string | null {
  try {
    const bin = atob(part.replaceAll("-", "+").replaceAll("_", "/"));
    const name = new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(bin, (c) => c.charCodeAt(0)),
    );
    return checkName(name) === name ? name : null;
  } catch {
    return null;
  }
}

/** The `Set-Cookie` value binding `name` to `token` until `expires`. */
export function nameCookie(
  token: string,
  name: string,
  expires: Date,
  secure: boolean,
): string {
  const bytes = new TextEncoder().encode(name);
  const part = btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
  const maxAge = Math.max(
    0,
    Math.floor((expires.getTime() - Date.now()) / 1000),
  );
  return `${REVIEW_COOKIE}=${token}.${part}; Path=/; Max-Age=${maxAge}; ` +
    `HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/**
 * A reviewer's name, trimmed: 1 to `MAX_NAME_CHARS` characters without
 * control characters, else `null`.
 */
export function checkName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const name = value.trim().replace(/\s+/g, " ");
  return name && name.length <= MAX_NAME_CHARS &&
      ![...name].some((c) => c < " " || (c >= "\x7f" && c <= "\x9f"))
    ? name
    : null;
}

/** The expiry of a well-formed token (its signature unchecked). */
export function tokenExpiry(token: string): Date {
  return new Date(Number(token.slice(0, token.indexOf("."))) * 1000);
}

/**
 * Checks a review endpoint's request before anything is read: 405 with
 * `Allow` unless its method is one of `methods`, 421/403 from the origin
 * check, then the caller: an editor when `authorize` finds one (and
 * `editors` is true), else a reviewer whose token opens `page` (known now,
 * or checked later with {@linkcode reviewerFor}). 403 without either;
 * 429 past the token's rate.
 */
export async function admit(
  req: Request,
  methods: readonly string[],
  options: AccessOptions,
  rate: TokenRate,
  call: EndpointCall | undefined,
): Promise<EditorCaller | { kind: "token"; token: string }> {
  // The shared front (method, Host, origin, session); without a session,
  // the request goes on as a reviewer's.
  const editor = await admitEditor(req, methods, {
    ...options,
    authorize: async (r, context) =>
      await options.authorize(r, context) ?? NOBODY,
  }, call);
  if (editor !== NOBODY) return { kind: "editor", editor };
  const token = req.headers.get(REVIEW_HEADER) ?? reviewCookie(req)?.token;
  if (!token) throw new HttpError(Status.Forbidden, "Not authorized");
  const wait = rate.take(token);
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new HttpError(
      Status.TooManyRequests,
      `Too many requests from this review link: try again in ${seconds} s`,
      { "Retry-After": String(seconds) },
    );
  }
  return { kind: "token", token };
}

/**
 * The reviewer a token makes on `page`: 403 "This review link is invalid
 * or has expired" unless the token was signed for exactly `page` and has
 * not expired. The name comes from the cookie when it carries this token.
 */
export async function reviewerFor(
  req: Request,
  token: string,
  page: string,
  signer: PreviewSigner,
): Promise<ReviewerCaller> {
  if (!await signer.verify(token, page)) {
    throw new HttpError(
      Status.Forbidden,
      "This review link is invalid or has expired",
    );
  }
  const bound = reviewCookie(req);
  const name = bound?.token === token ? bound.name : undefined;
  return name === undefined
    ? { kind: "reviewer", token, page }
    : { kind: "reviewer", token, page, name };
}
